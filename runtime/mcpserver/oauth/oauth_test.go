package oauth_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/toolcat/toolcat/runtime/mcpserver/oauth"
	"github.com/toolcat/toolcat/runtime/mcpserver/oauth/oauthtest"
)

const resource = "https://notes.example.com/mcp"

func start(t *testing.T) *oauthtest.Provider {
	return oauthtest.Start(t, map[string][]string{"alice": {"notes:read"}},
		oauthtest.Client{ID: "robot", Secret: "robot-secret", Scopes: []string{"notes:read", "notes:write"}},
		oauthtest.Client{ID: "opaque", Secret: "opaque-secret", Scopes: []string{"notes:read"}, Opaque: true},
		oauthtest.Client{ID: "notes-server", Secret: "notes-server-secret"})
}

func token(t *testing.T, p *oauthtest.Provider, client, res string, scopes ...string) string {
	t.Helper()
	tok, err := p.ClientCredentials(context.Background(), client, client+"-secret", res, scopes...)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestVerify: a good token gives its subject, scopes, expiry and claims.
func TestVerify(t *testing.T) {
	p := start(t)
	v, err := oauth.New(context.Background(), p.URL, resource)
	if err != nil {
		t.Fatal(err)
	}
	ti, err := v.Verify(context.Background(), token(t, p, "robot", resource, "notes:read", "notes:write", "admin"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if ti.UserID != "robot" || !slices.Equal(ti.Scopes, []string{"notes:read", "notes:write"}) || ti.Extra["client_id"] != "robot" ||
		time.Until(ti.Expiration) < 50*time.Minute {
		t.Errorf("TokenInfo = %+v", ti)
	}
}

// TestNewRefusesIssuers: an issuer that is not https (nor loopback), that
// publishes no metadata, or whose metadata names another issuer.
func TestNewRefusesIssuers(t *testing.T) {
	liar := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/openid-configuration" {
			fmt.Fprint(w, `{"issuer":"https://auth.example.com","jwks_uri":"https://auth.example.com/keys"}`)
			return
		}
		http.NotFound(w, r)
	}))
	defer liar.Close()
	empty := httptest.NewServer(http.NotFoundHandler())
	defer empty.Close()
	p := start(t)
	for _, tc := range []struct{ desc, issuer, audience, want string }{
		{"plain http", "http://auth.example.com", resource, "not https"},
		{"a query", p.URL + "?x=1", resource, "without query"},
		{"no audience", p.URL, "", "the audience"},
		{"no metadata", empty.URL, resource, "publishes no metadata"},
		{"another issuer's metadata", liar.URL, resource, `is of issuer "https://auth.example.com"`},
	} {
		_, err := oauth.New(context.Background(), tc.issuer, tc.audience)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.desc, err, tc.want)
		}
	}
	if _, err := oauth.New(context.Background(), p.URL, resource, oauth.VerifierAlgorithms("HS256", "none")); err == nil {
		t.Error("a verifier of HS256 and none only was made")
	}
}

// TestKeyRotation: a token signed with a key published since the last
// fetch is accepted (the verifier fetches the JWKS again), as are tokens of
// the previous key while the issuer still publishes it.
func TestKeyRotation(t *testing.T) {
	p := start(t)
	v, err := oauth.New(context.Background(), p.URL, resource, oauth.VerifierKeysRefresh(0, time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	before := token(t, p, "robot", resource, "notes:read")
	p.Rotate("key-2")
	after := token(t, p, "robot", resource, "notes:read")
	if kid := header(t, after)["kid"]; kid != "key-2" {
		t.Fatalf("the rotated token names key %v", kid)
	}
	fetches := p.KeyFetches.Load()
	for _, tok := range []string{after, before, after} {
		if _, err := v.Verify(context.Background(), tok, nil); err != nil {
			t.Errorf("kid %v: %v", header(t, tok)["kid"], err)
		}
	}
	if n := p.KeyFetches.Load() - fetches; n != 1 {
		t.Errorf("the JWKS was fetched %d times for one new key, want 1", n)
	}
}

// TestUnknownKeysDoNotFloodTheIssuer: tokens naming keys the issuer does
// not have are refused, and the JWKS is fetched again once at most.
func TestUnknownKeysDoNotFloodTheIssuer(t *testing.T) {
	p := start(t)
	v, err := oauth.New(context.Background(), p.URL, resource)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	claims := map[string]any{"iss": p.URL, "aud": resource, "sub": "mallory", "exp": time.Now().Add(time.Hour).Unix()}
	fetches := p.KeyFetches.Load()
	for i := range 50 {
		s, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key}, (&jose.SignerOptions{}).WithHeader("kid", fmt.Sprint("k", i)))
		b, _ := json.Marshal(claims)
		jws, _ := s.Sign(b)
		tok, _ := jws.CompactSerialize()
		if _, err := v.Verify(context.Background(), tok, nil); !errors.Is(err, auth.ErrInvalidToken) {
			t.Fatalf("a token of unknown key k%d: %v, want ErrInvalidToken", i, err)
		}
	}
	if n := p.KeyFetches.Load() - fetches; n > 1 {
		t.Errorf("50 unknown keys fetched the JWKS %d times, want at most 1", n)
	}
}

// TestIntrospection: opaque tokens are accepted through the issuer's
// introspection endpoint, and refused once revoked, or when they are not
// for this resource; an introspection the issuer refuses is no verdict on
// the token.
func TestIntrospection(t *testing.T) {
	p := start(t)
	ctx := context.Background()
	v, err := oauth.New(ctx, p.URL, resource, oauth.VerifierIntrospection("notes-server", "notes-server-secret"))
	if err != nil {
		t.Fatal(err)
	}
	opaque := token(t, p, "opaque", resource, "notes:read")
	if strings.Count(opaque, ".") == 2 {
		t.Fatalf("the opaque client got a JWT: %s", opaque)
	}
	ti, err := v.Verify(ctx, opaque, nil)
	if err != nil || ti.UserID != "opaque" || !slices.Equal(ti.Scopes, []string{"notes:read"}) {
		t.Fatalf("opaque token: %+v %v", ti, err)
	}
	if ti, err := v.Verify(ctx, token(t, p, "robot", resource, "notes:write"), nil); err != nil || ti.UserID != "robot" {
		t.Errorf("a JWT, introspected: %+v %v", ti, err)
	}
	for _, tc := range []struct{ desc, token, want string }{
		{"for another resource", token(t, p, "opaque", "https://other.example.com/mcp", "notes:read"), "its audience does not include"},
		{"made up", "bm90IGEgdG9rZW4", "not active"},
	} {
		if _, err := v.Verify(ctx, tc.token, nil); !errors.Is(err, auth.ErrInvalidToken) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrInvalidToken saying %q", tc.desc, err, tc.want)
		}
	}
	// Revoked at the provider (RFC 7009): refused from the next request on.
	req, _ := http.NewRequest(http.MethodPost, p.URL+"/revoke", strings.NewReader(url.Values{"token": {opaque}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth("opaque", "opaque-secret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("revoke: %v %v", err, resp.Status)
	}
	resp.Body.Close()
	if _, err := v.Verify(ctx, opaque, nil); !errors.Is(err, auth.ErrInvalidToken) {
		t.Errorf("a revoked token: %v, want ErrInvalidToken", err)
	}
	wrong, err := oauth.New(ctx, p.URL, resource, oauth.VerifierIntrospection("notes-server", "not-the-secret"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wrong.Verify(ctx, token(t, p, "opaque", resource, "notes:read"), nil); err == nil || errors.Is(err, auth.ErrInvalidToken) {
		t.Errorf("an introspection with a wrong secret: %v, want an error that is not ErrInvalidToken", err)
	}
}

func header(t *testing.T, tok string) map[string]any {
	b, err := base64.RawURLEncoding.DecodeString(strings.Split(tok, ".")[0])
	if err != nil {
		t.Fatal(err)
	}
	var h map[string]any
	json.Unmarshal(b, &h)
	return h
}

// BenchmarkVerify: one RS256 JWT of the test provider (2048-bit key), the
// issuer's keys fetched: checked in full (first), and seen before (again).
func BenchmarkVerify(b *testing.B) {
	p := oauthtest.Start(b, nil, oauthtest.Client{ID: "robot", Secret: "robot-secret", Scopes: []string{"notes:read"}})
	v, err := oauth.New(context.Background(), p.URL, resource)
	if err != nil {
		b.Fatal(err)
	}
	tok, err := p.ClientCredentials(context.Background(), "robot", "robot-secret", resource, "notes:read")
	if err != nil {
		b.Fatal(err)
	}
	for _, seen := range []bool{false, true} {
		b.Run(map[bool]string{false: "first", true: "again"}[seen], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !seen {
					v.Forget()
				}
				if _, err := v.Verify(context.Background(), tok, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
