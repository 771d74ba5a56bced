package basetools

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolcat/toolcat/runtime"
)

// webJail serves mux on a local server; names resolve through names
// (127.0.0.1 for any other), and dials are counted.
type webJail struct {
	*jail
	srv   *httptest.Server
	dials atomic.Int64
}

func newWebJail(t *testing.T, mux http.Handler, names map[string]string, cfg WebConfig) *webJail {
	t.Helper()
	w := &webJail{srv: httptest.NewServer(mux)}
	t.Cleanup(w.srv.Close)
	cfg.LookupIP = func(ctx context.Context, host string) ([]netip.Addr, error) {
		if a, ok := names[host]; ok {
			return []netip.Addr{netip.MustParseAddr(a)}, nil
		}
		return nil, fmt.Errorf("no such host %s", host)
	}
	cfg.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		w.dials.Add(1)
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
	w.jail = newFilesJail(t, Config{Web: cfg})
	return w
}

// url is the server's address under another host name.
func (w *webJail) url(host, path string) string {
	_, port, _ := net.SplitHostPort(w.srv.Listener.Addr().String())
	return "http://" + net.JoinHostPort(host, port) + path
}

var loopbackOnly = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}

func TestFetchWebPageText(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><head><title> Release
		notes </title><script>var secret = 1;</script><style>body{color:red}</style></head>
		<body><nav><a href="/">Home</a></nav><h1>Version 2</h1><p>It is <b>faster</b>
		and smaller.</p><ul><li>one</li><li>two</li></ul><noscript>enable js</noscript>
		<p>a&amp;b</p></body></html>`)
	})
	mux.HandleFunc("/latin1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=iso-8859-1")
		w.Write([]byte("caf\xe9"))
	})
	mux.HandleFunc("/meta", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><head><meta charset=\"iso-8859-1\"></head><body><p>na\xefve</p></body></html>"))
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte(strings.Repeat("x", 5000)))
	})
	mux.HandleFunc("/image", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n"))
	})
	mux.HandleFunc("/missing", http.NotFound)
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(3 * time.Second):
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/hop/", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(strings.TrimPrefix(r.URL.Path, "/hop/"), "%d", &n)
		http.Redirect(w, r, fmt.Sprintf("/hop/%d", n+1), http.StatusFound)
	})
	w := newWebJail(t, mux, map[string]string{"site.test": "127.0.0.1"},
		WebConfig{AllowAddresses: loopbackOnly, MaxBytes: 1000, Timeout: 500 * time.Millisecond})

	res := w.call(t, "fetch_web_page", map[string]any{"url": w.url("site.test", "/page")})
	if !res.Success {
		t.Fatal(res.JSON())
	}
	if res.Untrusted == nil {
		t.Error("the page's text is not marked untrusted")
	}
	got := decode[FetchWebPageResult](t, res)
	if want := "Home\nVersion 2\nIt is faster and smaller.\n- one\n- two\na&b"; got.Text != want || got.Title == nil || *got.Title != "Release notes" || got.ContentType != "text/html" {
		t.Errorf("text %q title %v, want %q", got.Text, got.Title, want)
	}
	for _, c := range []struct {
		desc, path string
		args       map[string]any
		code       runtime.Code
		text       string
		truncated  bool
	}{
		{desc: "charset converted", path: "/latin1", text: "café"},
		{desc: "charset of an HTML meta tag", path: "/meta", text: "naïve"},
		{desc: "body cut at MaxBytes", path: "/big", text: strings.Repeat("x", 1000), truncated: true},
		{desc: "text cut at max_chars", path: "/big", args: map[string]any{"max_chars": 100}, text: strings.Repeat("x", 100), truncated: true},
		{desc: "not text", path: "/image", code: runtime.CodeUnsupported},
		{desc: "an HTTP error", path: "/missing", code: runtime.CodeExternalError},
		{desc: "too slow", path: "/slow", code: runtime.CodeTimeout},
		{desc: "too many redirects", path: "/hop/0", code: runtime.CodeExternalError},
	} {
		args := map[string]any{"url": w.url("site.test", c.path)}
		for k, v := range c.args {
			args[k] = v
		}
		res := w.call(t, "fetch_web_page", args)
		if c.code != "" {
			if res.Success || res.Error.Code != c.code {
				t.Errorf("%s: %s", c.desc, res.JSON())
			}
			continue
		}
		got := decode[FetchWebPageResult](t, res)
		if !res.Success || got.Text != c.text || got.Truncated != c.truncated {
			t.Errorf("%s: %s", c.desc, clip(string(res.JSON()), 300))
		}
	}
}

// TestFetchWebPageSSRF checks that addresses that are not public are
// refused before any connection, after DNS resolution and on every
// redirect, unless the host allows them.
func TestFetchWebPageSSRF(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "fine") })
	mux.HandleFunc("/to", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("u"), http.StatusFound)
	})
	names := map[string]string{
		"public.test":   "127.0.0.1", // allowed below: stands for a public site
		"private.test":  "10.1.2.3",
		"metadata.test": "169.254.169.254",
		"v6local.test":  "::1",
		"mapped.test":   "::ffff:127.0.0.2",
		"ula.test":      "fd00::1",
		"cgnat.test":    "100.64.0.1",
		"zero.test":     "0.0.0.0",
		"loop2.test":    "127.0.0.2",
		"compat.test":   "::127.0.0.1",
		"siit.test":     "::ffff:0:127.0.0.1",
		"teredo.test":   "2001:0:7f00:1::1",
		"nat64.test":    "64:ff9b::169.254.169.254",
	}
	w := newWebJail(t, mux, names, WebConfig{AllowAddresses: loopbackOnly})
	if res := w.call(t, "fetch_web_page", map[string]any{"url": w.url("public.test", "/ok")}); !res.Success {
		t.Fatalf("the allowed address: %s", res.JSON())
	}
	refused := []string{
		w.url("private.test", "/ok"),
		w.url("metadata.test", "/latest/meta-data/"),
		w.url("v6local.test", "/ok"),
		w.url("mapped.test", "/ok"),
		w.url("ula.test", "/ok"),
		w.url("cgnat.test", "/ok"),
		w.url("zero.test", "/ok"),
		w.url("loop2.test", "/ok"),
		w.url("compat.test", "/ok"),
		w.url("siit.test", "/ok"),
		w.url("teredo.test", "/ok"),
		w.url("nat64.test", "/ok"),
		"http://[::127.0.0.1]/ok",
		"http://[64:ff9b::a9fe:a9fe]/ok",
		w.url("127.0.0.2", "/ok"),
		w.url("169.254.169.254", "/ok"),
		"http://[::1]/ok",
		"http://[fe80::1]/ok",
		"http://192.168.0.1/ok",
		"http://2130706434/ok", // 127.0.0.2 as one number: not an IP to Go, and no such host
	}
	for _, target := range refused {
		before := w.dials.Load()
		res := w.call(t, "fetch_web_page", map[string]any{"url": target})
		if res.Success {
			t.Errorf("%s: fetched", target)
			continue
		}
		if res.Error.Code != runtime.CodePermissionDenied && target != "http://2130706434/ok" {
			t.Errorf("%s: %s", target, res.JSON())
		}
		if w.dials.Load() != before {
			t.Errorf("%s: a connection was made", target)
		}
		// The same address reached through a redirect from an allowed page.
		res = w.call(t, "fetch_web_page", map[string]any{"url": w.url("public.test", "/to?u="+target)})
		if res.Success || res.Error.Code != runtime.CodePermissionDenied && target != "http://2130706434/ok" {
			t.Errorf("redirect to %s: %s", target, res.JSON())
		}
	}
	for _, target := range []string{"file:///etc/passwd", "gopher://public.test/", "ftp://public.test/"} {
		res := w.call(t, "fetch_web_page", map[string]any{"url": w.url("public.test", "/to?u="+target)})
		if res.Success || res.Error.Code != runtime.CodePermissionDenied {
			t.Errorf("redirect to %s: %s", target, res.JSON())
		}
	}
	// Without the allowance, the loopback test server itself is refused.
	strict := newWebJail(t, mux, names, WebConfig{})
	res := strict.call(t, "fetch_web_page", map[string]any{"url": strict.url("public.test", "/ok")})
	if res.Success || res.Error.Code != runtime.CodePermissionDenied || !strings.Contains(res.Error.Message, "loopback") {
		t.Errorf("loopback without the allowance: %s", res.JSON())
	}
	if strict.dials.Load() != 0 {
		t.Error("a connection was made to a refused address")
	}
}

func TestFetchWebPageAllowedHosts(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "fine") })
	names := map[string]string{"docs.example.com": "127.0.0.1", "example.com": "127.0.0.1", "evil.test": "127.0.0.1"}
	w := newWebJail(t, mux, names, WebConfig{AllowAddresses: loopbackOnly, AllowedHosts: []string{".example.com"}})
	for host, ok := range map[string]bool{"docs.example.com": true, "example.com": true, "evil.test": false} {
		res := w.call(t, "fetch_web_page", map[string]any{"url": w.url(host, "/")})
		if res.Success != ok || !ok && res.Error.Code != runtime.CodePermissionDenied {
			t.Errorf("%s: %s", host, res.JSON())
		}
	}
	res := w.call(t, "fetch_web_page", map[string]any{"url": "http://user:pw@" + strings.TrimPrefix(w.url("example.com", "/"), "http://")})
	if res.Success || res.Error.Code != runtime.CodePermissionDenied {
		t.Errorf("credentials in the URL: %s", res.JSON())
	}
}

// TestAddressGuardEmbeddedIPv4 checks every IPv6 form that carries an IPv4
// address: each is refused when the address it embeds is, and the NAT64
// form of a public address (how an IPv6-only host reaches an IPv4 site)
// is fetched.
func TestAddressGuardEmbeddedIPv4(t *testing.T) {
	w := newWebFetcher(WebConfig{})
	allowLocal := newWebFetcher(WebConfig{AllowAddresses: loopbackOnly})
	for _, c := range []struct {
		desc, addr string
		refused    bool
	}{
		{"IPv4-mapped loopback", "::ffff:127.0.0.1", true},
		{"IPv4-compatible loopback", "::127.0.0.1", true},
		{"IPv4-compatible metadata", "::169.254.169.254", true},
		{"IPv4-compatible public", "::8.8.8.8", true}, // deprecated form: refused whatever it holds
		{"IPv4-translated loopback", "::ffff:0:127.0.0.1", true},
		{"IPv4-translated private", "::ffff:0:10.0.0.1", true},
		{"IPv4-translated public", "::ffff:0:8.8.8.8", true},
		{"Teredo, loopback server", "2001:0:7f00:1::1", true},
		{"Teredo, private client", "2001:0:4136:e378:8000:63bf:f5ff:fffe", true}, // client 10.0.0.1 xored
		{"Teredo, public server and client", "2001:0:4136:e378:8000:63bf:3fff:fdd2", true},
		{"6to4 of loopback", "2002:7f00:1::1", true},
		{"6to4 of metadata", "2002:a9fe:a9fe::1", true},
		{"6to4 of a public address", "2002:808:808::1", true},
		{"NAT64 of loopback", "64:ff9b::127.0.0.1", true},
		{"NAT64 of metadata", "64:ff9b::169.254.169.254", true},
		{"NAT64 of private", "64:ff9b::192.168.1.1", true},
		{"NAT64 of shared space", "64:ff9b::100.64.0.1", true},
		{"NAT64 of a public address", "64:ff9b::8.8.8.8", false},
		{"local-use NAT64", "64:ff9b:1::a00:1", true},
		{"local-use NAT64 of a public address", "64:ff9b:1:808:800::", true},
		{"discard-only", "100::1", true},
		{"benchmarking", "2001:2::1", true},
		{"public IPv6", "2606:4700:4700::1111", false},
		{"public IPv4", "8.8.8.8", false},
	} {
		if got := w.refused(netip.MustParseAddr(c.addr)) != ""; got != c.refused {
			t.Errorf("%s (%s): refused %v, want %v", c.desc, c.addr, got, c.refused)
		}
	}
	// An allowed IPv4 range is not allowed through an IPv6 form: the NAT64
	// gateway, not this host, would reach 127.0.0.1 (its own loopback).
	// The IPv6 range itself can be allowed.
	for _, a := range []string{"64:ff9b::127.0.0.1", "::127.0.0.1", "2002:7f00:1::1"} {
		if why := allowLocal.refused(netip.MustParseAddr(a)); why == "" {
			t.Errorf("%s with 127.0.0.1/32 allowed: fetched", a)
		}
	}
	nat64 := newWebFetcher(WebConfig{AllowAddresses: []netip.Prefix{netip.MustParsePrefix("64:ff9b::7f00:1/128")}})
	if why := nat64.refused(netip.MustParseAddr("64:ff9b::127.0.0.1")); why != "" {
		t.Errorf("an allowed NAT64 address: refused (%s)", why)
	}
	if why := w.refused(netip.MustParseAddr("64:ff9b::127.0.0.1")); !strings.Contains(why, "127.0.0.1") {
		t.Errorf("the reason does not name the embedded address: %q", why)
	}
}
