package basetools

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
)

// fetchWebPage implements the tool fetch_web_page. The catalog marks it
// returns_untrusted: the runtime wraps the page's text as untrusted data.
type fetchWebPage struct{ web *webFetcher }

var _ FetchWebPage = (*fetchWebPage)(nil)

// webFetcher is an HTTP client whose every connection, redirects
// included, goes to an address checked after DNS resolution.
type webFetcher struct {
	cfg    WebConfig
	client *http.Client
}

// errRefused marks a connection refused by the address rules.
type errRefused struct{ msg string }

func (e *errRefused) Error() string { return e.msg }

func newWebFetcher(cfg WebConfig) *webFetcher {
	w := &webFetcher{cfg: cfg}
	if w.cfg.LookupIP == nil {
		w.cfg.LookupIP = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	if w.cfg.DialContext == nil {
		d := &net.Dialer{}
		w.cfg.DialContext = d.DialContext
	}
	tr := &http.Transport{
		Proxy:                  nil, // a proxy would dial for us, unchecked
		DialContext:            w.dial,
		TLSClientConfig:        &tls.Config{RootCAs: cfg.RootCAs, MinVersion: tls.VersionTLS12},
		MaxResponseHeaderBytes: 64 << 10,
		ResponseHeaderTimeout:  cfg.Timeout,
		ForceAttemptHTTP2:      true,
	}
	w.client = &http.Client{
		Transport: tr,
		Timeout:   cfg.Timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > cfg.MaxRedirects {
				return fmt.Errorf("the page redirects more than %d times", cfg.MaxRedirects)
			}
			return w.checkURL(req.URL)
		},
	}
	return w
}

// checkURL refuses schemes other than http(s), credentials in the URL and
// hosts outside the allow-list. Addresses are checked when dialling.
func (w *webFetcher) checkURL(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return &errRefused{fmt.Sprintf("scheme %q is not http or https", u.Scheme)}
	}
	if u.User != nil {
		return &errRefused{"URLs with credentials are refused"}
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "" {
		return &errRefused{"the URL has no host"}
	}
	if len(w.cfg.AllowedHosts) == 0 {
		return nil
	}
	for _, h := range w.cfg.AllowedHosts {
		h = strings.ToLower(h)
		if host == h || strings.HasPrefix(h, ".") && (strings.HasSuffix(host, h) || host == h[1:]) {
			return nil
		}
	}
	return &errRefused{fmt.Sprintf("host %q is not among the hosts this agent may fetch", host)}
}

// dial resolves the host, refuses it if any of its addresses is not
// public (unless allowed), and connects to the first address.
func (w *webFetcher) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else if ips, err = w.cfg.LookupIP(ctx, host); err != nil {
		return nil, err
	}
	if len(ips) == 0 {
		return nil, fmt.Errorf("%s has no address", host)
	}
	for _, ip := range ips {
		if why := w.refused(ip); why != "" {
			return nil, &errRefused{fmt.Sprintf("%s resolves to %s, a %s address", host, ip, why)}
		}
	}
	return w.cfg.DialContext(ctx, network, net.JoinHostPort(ips[0].Unmap().String(), port))
}

// notPublic are ranges refused besides what netip classifies: shared
// address space, benchmarking, IETF protocol assignments, documentation,
// reserved, discard-only, site-local. The IPv6 forms that embed an IPv4
// address are judged by embeddedIPv4.
var notPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("100::/64"),      // discard-only
	netip.MustParsePrefix("2001::/23"),     // IETF protocol assignments: benchmarking, ORCHID, ...
	netip.MustParsePrefix("2001:db8::/32"), // documentation
	netip.MustParsePrefix("fec0::/10"),     // site-local
}

// The IPv6 forms that carry an IPv4 address.
var (
	ipv4Compatible = netip.MustParsePrefix("::/96")           // deprecated (RFC 4291)
	ipv4Translated = netip.MustParsePrefix("::ffff:0:0:0/96") // SIIT (RFC 2765)
	nat64          = netip.MustParsePrefix("64:ff9b::/96")    // well-known NAT64 (RFC 6052)
	nat64Local     = netip.MustParsePrefix("64:ff9b:1::/48")  // local-use NAT64 (RFC 8215)
	sixToFour      = netip.MustParsePrefix("2002::/16")       // 6to4 (RFC 3056, deprecated by RFC 7526)
	teredo         = netip.MustParsePrefix("2001::/32")       // Teredo (RFC 4380)
)

// refused says why ip may not be fetched, or "" if it may.
// AllowAddresses is matched against ip as it is given (an IPv4-mapped
// address as IPv4): an allowed IPv4 range does not allow the IPv6 forms
// that embed it, since a NAT64 gateway or a relay, not this host, would
// make that connection.
func (w *webFetcher) refused(ip netip.Addr) string {
	ip = ip.Unmap()
	for _, p := range w.cfg.AllowAddresses {
		if p.Contains(ip) {
			return ""
		}
	}
	return refusedAddress(ip)
}

// refusedAddress says why ip is not a public address, or "" if it is.
func refusedAddress(ip netip.Addr) string {
	switch {
	case ip.IsLoopback():
		return "loopback"
	case ip.IsPrivate():
		return "private"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return "link-local (cloud metadata lives there)"
	case ip.IsUnspecified():
		return "unspecified"
	case ip.IsMulticast(), ip.IsInterfaceLocalMulticast():
		return "multicast"
	case !ip.IsGlobalUnicast():
		return "non-public"
	}
	if why, ok := embeddedIPv4(ip); ok {
		return why
	}
	for _, p := range notPublic {
		if p.Contains(ip) {
			return "reserved"
		}
	}
	return ""
}

// embeddedIPv4 judges the IPv6 forms that embed an IPv4 address: ok is
// true when ip is one, and why is then why it is refused, or "" when it
// may be fetched. Only the well-known NAT64 form of a public address may:
// it is how a host on an IPv6-only network reaches an IPv4 site (DNS64
// answers with it). The others are refused whatever they embed: the
// IPv4-compatible form is deprecated and some stacks send it over IPv4;
// the IPv4-translated form reaches IPv4 through a translator too; the
// local-use NAT64 prefix puts the IPv4 address where the network chooses,
// so it cannot be read; 6to4 (deprecated) and Teredo (obsolete) route
// through relays towards an address the URL's owner picks (Teredo embeds
// a server and, inverted, a client address), and no public site is
// reachable only through them.
func embeddedIPv4(ip netip.Addr) (why string, ok bool) {
	if !ip.Is6() {
		return "", false
	}
	b := ip.As16()
	v4 := func(i int) netip.Addr { return netip.AddrFrom4([4]byte{b[i], b[i+1], b[i+2], b[i+3]}) }
	of := func(form string, a netip.Addr) string {
		if r := refusedAddress(a); r != "" {
			return fmt.Sprintf("%s (of %s, %s)", form, a, r)
		}
		return fmt.Sprintf("%s (of %s)", form, a)
	}
	switch {
	case nat64.Contains(ip):
		a := v4(12)
		if r := refusedAddress(a); r != "" {
			return fmt.Sprintf("NAT64 (of %s, %s)", a, r), true
		}
		return "", true
	case ipv4Compatible.Contains(ip):
		return of("IPv4-compatible", v4(12)), true
	case ipv4Translated.Contains(ip):
		return of("IPv4-translated", v4(12)), true
	case nat64Local.Contains(ip):
		return "local-use NAT64", true
	case sixToFour.Contains(ip):
		return of("6to4", v4(2)), true
	case teredo.Contains(ip):
		client := netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]})
		return fmt.Sprintf("Teredo (server %s, client %s)", v4(4), client), true
	}
	return "", false
}

// textTypes are the media types whose text is returned.
func readable(mediaType string) bool {
	switch {
	case strings.HasPrefix(mediaType, "text/"),
		mediaType == "application/xhtml+xml", mediaType == "application/json",
		mediaType == "application/xml", strings.HasSuffix(mediaType, "+json"),
		strings.HasSuffix(mediaType, "+xml"), mediaType == "application/javascript":
		return true
	}
	return false
}

// Execute fetches the page and returns its readable text.
func (t *fetchWebPage) Execute(ctx context.Context, args *FetchWebPageArgs) (*FetchWebPageResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	w := t.web
	u, err := url.Parse(args.URL)
	if err != nil {
		return nil, FetchWebPageExternalError(fmt.Sprintf("the URL does not parse: %v", err))
	}
	if err := w.checkURL(u); err != nil {
		return nil, FetchWebPagePermissionDenied(err.Error())
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, FetchWebPageExternalError(err.Error())
	}
	req.Header.Set("User-Agent", w.cfg.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.1")
	resp, err := w.client.Do(req)
	if err != nil {
		return nil, t.fetchError(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return nil, FetchWebPageExternalError(fmt.Sprintf("%s answered %s", resp.Request.URL.Host, resp.Status))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, w.cfg.MaxBytes+1))
	if err != nil {
		return nil, t.fetchError(ctx, err)
	}
	truncated := int64(len(body)) > w.cfg.MaxBytes
	if truncated {
		body = body[:w.cfg.MaxBytes]
	}
	ct := resp.Header.Get("Content-Type")
	if ct == "" {
		ct = http.DetectContentType(body)
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return nil, FetchWebPageUnsupported(fmt.Sprintf("the Content-Type %q does not parse", clip(ct, 100)))
	}
	if !readable(mt) {
		return nil, FetchWebPageUnsupported(fmt.Sprintf("the page is %s, not text", mt))
	}
	body = toUTF8(body, ct)
	res := &FetchWebPageResult{URL: resp.Request.URL.String(), Status: int64(resp.StatusCode), ContentType: mt}
	text := strings.ToValidUTF8(string(body), "\uFFFD")
	if mt == "text/html" || mt == "application/xhtml+xml" {
		title, txt, err := htmlText(body)
		if err != nil {
			return nil, FetchWebPageExternalError("the HTML does not parse: " + err.Error())
		}
		text = txt
		if title != "" {
			res.Title = &title
		}
	}
	if r := []rune(text); len(r) > int(args.MaxChars) && args.MaxChars > 0 {
		text, truncated = string(r[:args.MaxChars]), true
	}
	res.Text, res.Truncated = text, truncated
	return res, nil
}

// fetchError turns a client error into the tool's error.
func (t *fetchWebPage) fetchError(ctx context.Context, err error) error {
	var ref *errRefused
	if errors.As(err, &ref) {
		return FetchWebPagePermissionDenied(ref.msg)
	}
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
		return FetchWebPageTimeout("the site did not answer within " + t.web.cfg.Timeout.String())
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return FetchWebPageExternalError("fetching the page failed: " + err.Error())
}

// toUTF8 converts body to UTF-8 when its encoding is declared (a byte
// order mark, the Content-Type's charset) or, for a body that is not valid
// UTF-8, guessed (an HTML meta tag, else windows-1252). Valid UTF-8 with
// no declaration is left as it is.
func toUTF8(body []byte, contentType string) []byte {
	enc, name, certain := charset.DetermineEncoding(body, contentType)
	if name == "utf-8" || !certain && utf8.Valid(body) {
		return body
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return body
	}
	return out
}
