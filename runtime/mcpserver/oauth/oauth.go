// Package oauth checks the OAuth 2.1 access tokens that clients send a
// toolcat MCP server, as the resource server the MCP authorization
// specification describes: a token is accepted only when its issuer
// signed it (a JWT whose key is in the issuer's JWKS) or vouches for it
// (RFC 7662 introspection), it is bound to this server's resource URI
// (RFC 8707: the audience), and it has not expired.
//
// A Verifier's Verify method is a go-sdk auth.TokenVerifier: hand it to
// mcpserver.WithAuthorization. Its auth.TokenInfo carries the token's
// subject as UserID, its scopes, its expiry and its claims (Extra).
//
//	v, err := oauth.New(ctx, "https://auth.example.com", "https://tools.example.com/mcp")
//	srv := mcpserver.New(reg, mcpserver.WithAuthorization(mcpserver.Authorization{
//		Resource:             "https://tools.example.com/mcp",
//		AuthorizationServers: []string{v.Issuer()},
//		Verifier:             v.Verify,
//	}))
//
// The package links github.com/go-jose/go-jose/v4 for the JOSE formats;
// only a binary that imports it carries it.
package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// Verifier checks the access tokens of one issuer for one resource. Make
// it with New; it is safe for concurrent use.
type Verifier struct {
	issuer   string
	audience string
	client   *http.Client
	algs     []jose.SignatureAlgorithm
	skew     time.Duration
	now      func() time.Time

	keys *keySet // JWT validation; nil with introspection

	introspection string // the endpoint, with introspection
	clientID      string
	clientSecret  string

	refresh time.Duration // least time between two JWKS fetches
	maxAge  time.Duration // JWKS older than this is fetched again

	mu       sync.Mutex
	verified map[string]verifiedToken // JWTs verified with the current keys
}

// verifiedToken is a JWT the verifier accepted, with the keys it was
// verified with: a fetch of the JWKS (which may withdraw a key) makes it
// verified again.
type verifiedToken struct {
	info *auth.TokenInfo
	keys *keySnapshot
}

// maxVerified bounds the JWTs kept verified.
const maxVerified = 1024

// VerifierOption configures a Verifier.
type VerifierOption func(*Verifier)

// VerifierHTTPClient sets the client that fetches the issuer's metadata and
// keys and calls its introspection endpoint (default: one with a 10-second
// timeout).
func VerifierHTTPClient(c *http.Client) VerifierOption {
	return func(v *Verifier) { v.client = c }
}

// VerifierClockSkew sets how far the issuer's clock may be from this
// server's: a token is accepted up to d after its exp, and d before its
// nbf (default 0).
func VerifierClockSkew(d time.Duration) VerifierOption {
	return func(v *Verifier) { v.skew = d }
}

// VerifierAlgorithms sets the JWS algorithms a token may be signed with
// (default DefaultAlgorithms). Symmetric algorithms (HS256...) and "none"
// are never accepted: the keys come from a public document.
func VerifierAlgorithms(algs ...string) VerifierOption {
	return func(v *Verifier) {
		v.algs = v.algs[:0]
		for _, a := range algs {
			if strings.HasPrefix(a, "HS") || strings.EqualFold(a, "none") {
				continue
			}
			v.algs = append(v.algs, jose.SignatureAlgorithm(a))
		}
	}
}

// VerifierKeysRefresh sets the least time between two fetches of the
// issuer's JWKS (default DefaultKeysRefresh): a token signed with a key
// the verifier does not know makes it fetch the set again, at most that
// often, so that tokens naming made-up keys cannot flood the issuer. A set
// older than maxAge (default DefaultKeysMaxAge) is fetched again on the
// next token, so that a key the issuer withdrew stops verifying.
func VerifierKeysRefresh(refresh, maxAge time.Duration) VerifierOption {
	return func(v *Verifier) { v.refresh, v.maxAge = refresh, maxAge }
}

// VerifierIntrospection makes the verifier ask the issuer about every
// token (RFC 7662 token introspection at the introspection_endpoint of its
// metadata), authenticated as the client clientID with clientSecret
// (client_secret_basic), instead of checking JWTs itself: opaque tokens are
// accepted, and a token the issuer revoked is refused at once, for the cost
// of one request to the issuer per MCP request.
func VerifierIntrospection(clientID, clientSecret string) VerifierOption {
	return func(v *Verifier) { v.clientID, v.clientSecret = clientID, clientSecret }
}

// DefaultAlgorithms are the JWS algorithms a token may be signed with
// unless VerifierAlgorithms says otherwise.
var DefaultAlgorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// The defaults of VerifierKeysRefresh.
const (
	DefaultKeysRefresh = 30 * time.Second
	DefaultKeysMaxAge  = time.Hour
)

// Bounds on what the verifier reads.
const (
	// MaxTokenBytes bounds a token; a longer one is refused unread.
	MaxTokenBytes = 16 << 10
	// maxDocumentBytes bounds the metadata, JWKS and introspection
	// documents the verifier reads from the issuer.
	maxDocumentBytes = 1 << 20
	// maxKeys bounds the keys kept of a JWKS.
	maxKeys = 100
)

// New returns a verifier of the tokens issuer issues for audience (the
// resource URI of the MCP server, as its clients connect to it). It reads
// the issuer's metadata (RFC 8414, or OpenID Connect discovery) for its
// jwks_uri, or with VerifierIntrospection its introspection_endpoint, and
// fetches the JWKS once, so that a wrong issuer fails here rather than on
// the first token.
func New(ctx context.Context, issuer, audience string, opts ...VerifierOption) (*Verifier, error) {
	v := &Verifier{
		issuer:   issuer,
		audience: audience,
		client:   &http.Client{Timeout: 10 * time.Second},
		now:      time.Now,
		refresh:  DefaultKeysRefresh,
		maxAge:   DefaultKeysMaxAge,
		verified: map[string]verifiedToken{},
	}
	VerifierAlgorithms(DefaultAlgorithms...)(v)
	for _, o := range opts {
		o(v)
	}
	if err := checkURL(issuer, false); err != nil {
		return nil, fmt.Errorf("oauth: issuer %q: %w", issuer, err)
	}
	if audience == "" {
		return nil, errors.New("oauth: the audience (the server's resource URI) is empty")
	}
	if len(v.algs) == 0 {
		return nil, errors.New("oauth: no signature algorithm is accepted")
	}
	meta, err := discover(ctx, v.client, issuer)
	if err != nil {
		return nil, fmt.Errorf("oauth: %w", err)
	}
	if v.clientID != "" {
		if err := checkURL(meta.IntrospectionEndpoint, true); err != nil {
			return nil, fmt.Errorf("oauth: the introspection_endpoint of %s: %w", issuer, err)
		}
		v.introspection = meta.IntrospectionEndpoint
		return v, nil
	}
	if err := checkURL(meta.JWKSURI, true); err != nil {
		return nil, fmt.Errorf("oauth: the jwks_uri of %s: %w", issuer, err)
	}
	v.keys = &keySet{url: meta.JWKSURI, client: v.client, refresh: v.refresh, maxAge: v.maxAge, now: v.now}
	if err := v.keys.fetch(ctx); err != nil {
		return nil, fmt.Errorf("oauth: %w", err)
	}
	return v, nil
}

// Issuer returns the issuer whose tokens v accepts.
func (v *Verifier) Issuer() string { return v.issuer }

// Verify checks token and returns what it says: its subject (UserID), its
// scopes (the space-separated scope claim, or an scp array), its expiry and
// every claim (Extra). A token that is refused gives an error that wraps
// auth.ErrInvalidToken and says why; one that could not be checked (the
// issuer did not answer an introspection) gives another error.
//
// The last 1,024 JWTs accepted are remembered until the JWKS is fetched
// again, so that a client's next requests cost a lookup, not a signature
// check; they share one TokenInfo, which must not be changed.
func (v *Verifier) Verify(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	if len(token) > MaxTokenBytes {
		return nil, invalid("the token is over %d bytes", MaxTokenBytes)
	}
	if v.introspection != "" {
		claims, err := v.introspect(ctx, token)
		if err != nil {
			return nil, err
		}
		return v.check(claims)
	}
	// A JWT seen before, with the same keys, is not verified again: its
	// signature and claims do not change; only time passes.
	v.mu.Lock()
	seen, ok := v.verified[token]
	v.mu.Unlock()
	if ok && seen.keys == v.keys.snap.Load() && v.now().Sub(seen.keys.fetched) < v.maxAge {
		if v.now().After(seen.info.Expiration.Add(v.skew)) {
			return nil, invalid("the token expired at %s", seen.info.Expiration.UTC().Format(time.RFC3339))
		}
		return seen.info, nil
	}
	keys := v.keys.snap.Load()
	claims, err := v.verifyJWT(ctx, token)
	if err != nil {
		return nil, err
	}
	info, err := v.check(claims)
	if err != nil {
		return nil, err
	}
	if keys == v.keys.snap.Load() {
		v.mu.Lock()
		if len(v.verified) >= maxVerified {
			for t := range v.verified { // make room: drop one, at random
				delete(v.verified, t)
				break
			}
		}
		v.verified[token] = verifiedToken{info: info, keys: keys}
		v.mu.Unlock()
	}
	return info, nil
}

// verifyJWT checks the token's signature with the issuer's key and returns
// its claims.
func (v *Verifier) verifyJWT(ctx context.Context, token string) (map[string]any, error) {
	jws, err := jose.ParseSignedCompact(token, v.algs)
	if err != nil {
		return nil, invalid("not a JWT signed with an accepted algorithm (%s)", joseReason(err))
	}
	h := jws.Signatures[0].Header
	key, err := v.keys.key(ctx, h.KeyID, h.Algorithm)
	if err != nil {
		return nil, err
	}
	payload, err := jws.Verify(key)
	if err != nil {
		return nil, invalid("the signature does not verify with the issuer's key %q", h.KeyID)
	}
	var claims map[string]any
	if err := json.Unmarshal(payload, &claims); err != nil || claims == nil {
		return nil, invalid("the token's claims are not a JSON object")
	}
	return claims, nil
}

// joseReason shortens go-jose's error to what a client may be told.
func joseReason(err error) string {
	s := strings.TrimPrefix(err.Error(), "go-jose/go-jose: ")
	if len(s) > 100 {
		s = s[:100]
	}
	return s
}

// check verifies the claims every token must have, and maps them onto a
// TokenInfo.
func (v *Verifier) check(claims map[string]any) (*auth.TokenInfo, error) {
	if iss, _ := claims["iss"].(string); iss != v.issuer {
		return nil, invalid("the token's issuer is %q, not %q", iss, v.issuer)
	}
	if !hasAudience(claims["aud"], v.audience) {
		return nil, invalid("the token is not for this resource: its audience does not include %q", v.audience)
	}
	now := v.now()
	exp, ok := numericDate(claims["exp"])
	if !ok {
		return nil, invalid("the token has no expiry (exp)")
	}
	if now.After(exp.Add(v.skew)) {
		return nil, invalid("the token expired at %s", exp.UTC().Format(time.RFC3339))
	}
	if nbf, ok := numericDate(claims["nbf"]); ok && now.Add(v.skew).Before(nbf) {
		return nil, invalid("the token is not valid before %s", nbf.UTC().Format(time.RFC3339))
	}
	sub, _ := claims["sub"].(string)
	if sub == "" {
		return nil, invalid("the token names no subject (sub)")
	}
	return &auth.TokenInfo{UserID: sub, Scopes: scopes(claims), Expiration: exp, Extra: claims}, nil
}

// errInvalid is what a refused token's error wraps.
var errInvalid = auth.ErrInvalidToken

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errInvalid, fmt.Sprintf(format, args...))
}

// hasAudience reports whether the aud claim (a string or an array of
// strings) names want.
func hasAudience(aud any, want string) bool {
	switch a := aud.(type) {
	case string:
		return a == want
	case []any:
		return slices.ContainsFunc(a, func(x any) bool { s, _ := x.(string); return s == want })
	}
	return false
}

// numericDate reads a NumericDate claim (seconds since the epoch).
func numericDate(x any) (time.Time, bool) {
	f, ok := x.(float64)
	if !ok || f <= 0 || f > 1<<40 {
		return time.Time{}, false
	}
	sec := int64(f)
	return time.Unix(sec, int64((f-float64(sec))*1e9)), true
}

// scopes reads the token's scopes: the space-separated scope claim of RFC
// 9068 and RFC 7662, or the scp array some issuers send instead.
func scopes(claims map[string]any) []string {
	if s, ok := claims["scope"].(string); ok {
		return strings.Fields(s)
	}
	switch scp := claims["scp"].(type) {
	case string:
		return strings.Fields(scp)
	case []any:
		out := make([]string, 0, len(scp))
		for _, x := range scp {
			if s, ok := x.(string); ok && s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// serverMeta is what the verifier reads of the issuer's metadata.
type serverMeta struct {
	Issuer                string `json:"issuer"`
	JWKSURI               string `json:"jwks_uri"`
	IntrospectionEndpoint string `json:"introspection_endpoint"`
}

// discover reads the issuer's metadata at the addresses the MCP
// authorization specification lists: RFC 8414, then OpenID Connect
// discovery (path inserted, then appended).
func discover(ctx context.Context, c *http.Client, issuer string) (*serverMeta, error) {
	u, _ := url.Parse(issuer)
	path := strings.TrimSuffix(u.Path, "/")
	root := u.Scheme + "://" + u.Host
	urls := []string{root + "/.well-known/oauth-authorization-server" + path, root + "/.well-known/openid-configuration" + path}
	if path != "" {
		urls = append(urls, root+path+"/.well-known/openid-configuration")
	}
	for _, mu := range urls {
		var m serverMeta
		status, err := getJSON(ctx, c, mu, &m)
		if status >= 400 && status < 500 {
			continue // not there: try the next address
		}
		if err != nil {
			return nil, fmt.Errorf("the metadata of issuer %s: %w", issuer, err)
		}
		if m.Issuer != issuer {
			return nil, fmt.Errorf("the metadata at %s is of issuer %q, not %q", mu, m.Issuer, issuer)
		}
		return &m, nil
	}
	return nil, fmt.Errorf("issuer %s publishes no metadata (tried %s)", issuer, strings.Join(urls, ", "))
}

// getJSON reads a JSON document of at most maxDocumentBytes into out, and
// returns the HTTP status.
func getJSON(ctx context.Context, c *http.Client, u string, out any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	return resp.StatusCode, readJSON(resp, u, out)
}

func readJSON(resp *http.Response, u string, out any) error {
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, maxDocumentBytes))
		return fmt.Errorf("%s answered %s", u, resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxDocumentBytes+1))
	if err != nil {
		return fmt.Errorf("reading %s: %w", u, err)
	}
	if len(b) > maxDocumentBytes {
		return fmt.Errorf("%s is over %d bytes", u, maxDocumentBytes)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s is not the JSON expected: %w", u, err)
	}
	return nil
}

// checkURL accepts an absolute https URL, or http on a loopback host (a
// server and its issuer on one machine); with query, one with a query.
func checkURL(s string, query bool) error {
	if s == "" {
		return errors.New("missing")
	}
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if u.Host == "" || u.Fragment != "" || (u.RawQuery != "" && !query) {
		return errors.New("not an absolute URL without query or fragment")
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if h := u.Hostname(); h == "localhost" || net.ParseIP(h).IsLoopback() {
			return nil
		}
	}
	return errors.New("not https (http is accepted on a loopback host only)")
}
