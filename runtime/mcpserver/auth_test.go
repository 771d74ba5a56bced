package mcpserver_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/mcpserver"
	"github.com/toolcat/toolcat/runtime/mcpserver/oauth"
	"github.com/toolcat/toolcat/runtime/mcpserver/oauth/oauthtest"
)

// The users of the test provider and the scopes each may be granted.
var users = map[string][]string{
	"alice": {"mcp", "notes:read", "notes:write"},
	"bob":   {"mcp", "notes:read"},
	"carol": {},
}

const redirectURI = "http://127.0.0.1:1/callback" // never reached: the test's browser stops there

// The provider's clients: the MCP client of the authorization code flow,
// service accounts (client credentials), and the resource server itself
// (introspection).
var clients = []oauthtest.Client{
	{ID: "mcp-client", Secret: "mcp-secret", RedirectURI: redirectURI},
	{ID: "robot", Secret: "robot-secret", Scopes: []string{"mcp", "notes:read"}},
	{ID: "scribe", Secret: "scribe-secret", Scopes: []string{"mcp", "notes:read", "notes:write"}},
	{ID: "late", Secret: "late-secret", Scopes: []string{"mcp", "notes:read"}, Lifetime: -time.Minute},
	{ID: "opaque", Secret: "opaque-secret", Scopes: []string{"mcp", "notes:read"}, Opaque: true},
	{ID: "notes-server", Secret: "notes-server-secret"},
}

// notesRegistry has a tool per scope and one that needs none:
//   - read_notes: capability_required notes:read;
//   - write_note: capability_required notes:write;
//   - whoami: none; answers the token's subject and scopes (Principal).
func notesRegistry(t testing.TB) *runtime.Registry {
	empty := schema(`{"type":"object","properties":{}}`)
	reg := runtime.New()
	for _, tool := range []runtime.Tool{
		{Meta: runtime.Meta{Name: "read_notes", Description: "Lists the notes.", Risk: runtime.RiskLow, Idempotent: true,
			CapabilityRequired: "notes:read", ArgsSchema: empty},
			Execute: func(context.Context, any) (any, error) { return map[string]any{"notes": []string{"buy milk"}}, nil }},
		{Meta: runtime.Meta{Name: "write_note", Description: "Writes a note.", Risk: runtime.RiskLow,
			CapabilityRequired: "notes:write", ArgsSchema: empty},
			Execute: func(context.Context, any) (any, error) { return map[string]any{"written": true}, nil }},
		{Meta: runtime.Meta{Name: "whoami", Description: "Says who calls.", Risk: runtime.RiskLow, ArgsSchema: empty},
			Execute: func(ctx context.Context, _ any) (any, error) {
				p := mcpserver.Principal(ctx)
				if p == nil {
					return nil, errors.New("no principal in the context")
				}
				return map[string]any{"user": p.UserID, "scopes": p.Scopes, "client": p.Extra["client_id"]}, nil
			}},
	} {
		if err := reg.Register(tool); err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

// authEnv is a provider and a toolcat MCP server that accepts its tokens.
type authEnv struct {
	op       *oauthtest.Provider
	hs       *httptest.Server
	resource string // the MCP endpoint: hs.URL + "/mcp"
	srv      *mcpserver.Server
}

type authSetup struct {
	scopes   []string // Authorization.Scopes
	verifier []oauth.VerifierOption
	server   []mcpserver.Option
}

func startAuth(t testing.TB, su authSetup) *authEnv {
	e := &authEnv{op: oauthtest.Start(t, users, clients...)}
	mux := http.NewServeMux()
	e.hs = httptest.NewUnstartedServer(mux)
	e.hs.Start()
	t.Cleanup(e.hs.Close)
	e.resource = e.hs.URL + "/mcp"
	v, err := oauth.New(context.Background(), e.op.URL, e.resource, su.verifier...)
	if err != nil {
		t.Fatal(err)
	}
	e.srv = mcpserver.New(notesRegistry(t), append([]mcpserver.Option{mcpserver.WithLogger(quiet()),
		mcpserver.WithAuthorization(mcpserver.Authorization{
			Resource: e.resource, AuthorizationServers: []string{v.Issuer()}, Verifier: v.Verify,
			Scopes: su.scopes, ResourceName: "notes"})}, su.server...)...)
	mux.Handle("/mcp", e.srv.Handler())
	for _, p := range e.srv.ResourceMetadataPaths() {
		mux.Handle(p, e.srv.ResourceMetadataHandler())
	}
	return e
}

// user is a person behind go-sdk's client: the client runs the OAuth
// authorization code flow (PKCE, resource indicator) against the provider,
// and the user logs in there, consenting to the scopes consent lets
// through (all by default) on the first authorization, and to what is
// asked on the next ones (step-up).
type user struct {
	name    string
	consent func(asked []string) []string

	mu    sync.Mutex
	asked [][]string // the scope of each authorization URL
}

func (u *user) connect(t *testing.T, e *authEnv, version string) (*mcp.ClientSession, error) {
	first := true
	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		PreregisteredClient: &oauthex.ClientCredentials{ClientID: "mcp-client",
			ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: "mcp-secret"}},
		RedirectURL: redirectURI,
		ScopeFilter: func(scopes []string) []string {
			if first && u.consent != nil {
				scopes = u.consent(scopes)
			}
			first = false
			return scopes
		},
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			au, _ := url.Parse(args.URL)
			u.mu.Lock()
			u.asked = append(u.asked, strings.Fields(au.Query().Get("scope")))
			u.mu.Unlock()
			if got := au.Query().Get("resource"); got != e.resource {
				t.Errorf("the client asks for a token for %q, not %q", got, e.resource)
			}
			back, err := e.op.Login(ctx, args.URL, u.name)
			if err != nil {
				return nil, err
			}
			q := back.Query()
			return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{Logger: quiet()}).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: e.resource, OAuthHandler: h},
			&mcp.ClientSessionOptions{ProtocolVersion: version})
}

func listed(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	return names(res.Tools)
}

func whoami(t *testing.T, cs *mcp.ClientSession) map[string]any {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "whoami"})
	if err != nil || res.IsError {
		t.Fatalf("whoami: %v %+v", err, res)
	}
	var out map[string]any
	json.Unmarshal([]byte(mustJSON(res.StructuredContent)), &out)
	return out
}

var versions = []string{"2025-11-25", "2026-07-28"}

// TestAuthorizationCodeFlow: go-sdk's client finds the provider from the
// server's 401 and metadata, the user logs in, and the token's scopes
// decide what is listed and callable; the tool sees who calls.
func TestAuthorizationCodeFlow(t *testing.T) {
	e := startAuth(t, authSetup{scopes: []string{"mcp"}})
	for _, version := range versions {
		t.Run(version, func(t *testing.T) {
			alice := &user{name: "alice"}
			cs, err := alice.connect(t, e, version)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if got, want := listed(t, cs), []string{"read_notes", "whoami", "write_note"}; !slices.Equal(got, want) {
				t.Errorf("alice lists %v, want %v", got, want)
			}
			if all := []string{"mcp", "notes:read", "notes:write"}; len(alice.asked) != 1 || !slices.Equal(slices.Sorted(slices.Values(alice.asked[0])), all) {
				t.Errorf("the client asked for %v, want [%v] (the 401's scope)", alice.asked, all)
			}
			who := whoami(t, cs)
			if who["user"] != "alice" || who["client"] != "mcp-client" {
				t.Errorf("whoami = %v, want alice through mcp-client", who)
			}

			bob := &user{name: "bob"}
			cs, err = bob.connect(t, e, version)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if got, want := listed(t, cs), []string{"read_notes", "whoami"}; !slices.Equal(got, want) {
				t.Errorf("bob lists %v, want %v", got, want)
			}
			// write_note needs notes:write: the server answers 403 with
			// that scope, the client asks bob for it, the provider does
			// not grant it, and the call fails.
			_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "write_note"})
			if err == nil {
				t.Fatal("bob called write_note without notes:write")
			}
			if len(bob.asked) != 2 || !slices.Contains(bob.asked[1], "notes:write") {
				t.Errorf("the client asked bob for %v; the step-up should ask for notes:write", bob.asked)
			}
		})
	}
}

// TestStepUp: a user who first consents to reading only is asked for
// notes:write when calling write_note (403 insufficient_scope), consents,
// and the call goes through with the new token.
func TestStepUp(t *testing.T) {
	e := startAuth(t, authSetup{})
	for _, version := range versions {
		t.Run(version, func(t *testing.T) {
			alice := &user{name: "alice", consent: func(asked []string) []string {
				return slices.DeleteFunc(asked, func(s string) bool { return s == "notes:write" })
			}}
			cs, err := alice.connect(t, e, version)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if got, want := listed(t, cs), []string{"read_notes", "whoami"}; !slices.Equal(got, want) {
				t.Errorf("alice lists %v before the step-up, want %v", got, want)
			}
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "write_note"})
			if err != nil || res.IsError {
				t.Fatalf("write_note after the step-up: %v %+v", err, res)
			}
			if len(alice.asked) != 2 || !slices.Equal(slices.Sorted(slices.Values(alice.asked[1])), []string{"notes:read", "notes:write"}) {
				t.Errorf("the client asked for %v; the step-up should ask for the scopes held and notes:write", alice.asked)
			}
			if got := listed(t, cs); !slices.Contains(got, "write_note") {
				t.Errorf("alice lists %v after the step-up, without write_note", got)
			}
		})
	}
}

// bearer is an HTTP client that sends a fixed token.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

func connectWith(e *authEnv, token, version string) (*mcp.ClientSession, error) {
	return mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{Logger: quiet()}).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: e.resource, DisableStandaloneSSE: true,
			HTTPClient: &http.Client{Transport: bearer(token)}}, &mcp.ClientSessionOptions{ProtocolVersion: version})
}

// post sends one JSON-RPC message with the given Authorization header
// values (none: no header).
func post(t *testing.T, target, body string, authz ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, target, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	var m struct{ Method string }
	json.Unmarshal([]byte(body), &m)
	req.Header.Set("Mcp-Method", m.Method)
	for _, a := range authz {
		req.Header.Add("Authorization", a)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

// listBody is a stateless (2026-07-28) tools/list.
const listBody = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{` +
	`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"curl","version":"1"},` +
	`"io.modelcontextprotocol/clientCapabilities":{}}}}`

// forge returns token with its header replaced by header and its claims
// changed by edit; the signature is kept.
func forge(t *testing.T, token string, header map[string]any, edit func(map[string]any)) string {
	parts := strings.Split(token, ".")
	h, c := parts[0], parts[1]
	if header != nil {
		b, _ := json.Marshal(header)
		h = base64.RawURLEncoding.EncodeToString(b)
	}
	if edit != nil {
		b, _ := base64.RawURLEncoding.DecodeString(c)
		var claims map[string]any
		if err := json.Unmarshal(b, &claims); err != nil {
			t.Fatal(err)
		}
		edit(claims)
		b, _ = json.Marshal(claims)
		c = base64.RawURLEncoding.EncodeToString(b)
	}
	return h + "." + c + "." + parts[2]
}

func claimsOf(t *testing.T, token string) map[string]any {
	b, _ := base64.RawURLEncoding.DecodeString(strings.Split(token, ".")[1])
	var c map[string]any
	json.Unmarshal(b, &c)
	return c
}

// sign signs claims with key (jose algorithm alg), naming kid.
func sign(t *testing.T, alg jose.SignatureAlgorithm, key any, kid string, claims map[string]any) string {
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, (&jose.SignerOptions{}).WithHeader("kid", kid).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(claims)
	jws, err := s.Sign(b)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := jws.CompactSerialize()
	return out
}

// TestTokensRefused: every token the server must not accept is answered
// 401 invalid_token with the challenge, and says why; a token without the
// scope every request needs is answered 403.
func TestTokensRefused(t *testing.T) {
	e := startAuth(t, authSetup{scopes: []string{"mcp"}})
	ctx := context.Background()
	good, err := e.op.ClientCredentials(ctx, "robot", "robot-secret", e.resource, "mcp", "notes:read")
	if err != nil {
		t.Fatal(err)
	}
	cc := func(id, secret, resource string, scopes ...string) string {
		tok, err := e.op.ClientCredentials(ctx, id, secret, resource, scopes...)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	twin := e.op.Twin(t) // another issuer, signing with the same key
	attacker, _ := rsa.GenerateKey(rand.Reader, 2048)
	header := func(alg string) map[string]any {
		var h map[string]any
		b, _ := base64.RawURLEncoding.DecodeString(strings.Split(good, ".")[0])
		json.Unmarshal(b, &h)
		h["alg"] = alg
		return h
	}
	pub, _ := x509.MarshalPKIXPublicKey(&attacker.PublicKey)
	parts := strings.Split(good, ".")
	for _, tc := range []struct {
		desc, token, why string
	}{
		{"expired", cc("late", "late-secret", e.resource, "mcp"), "the token expired at"},
		{"for another resource", cc("robot", "robot-secret", "https://other.example.com/mcp", "mcp"),
			`its audience does not include "` + e.resource + `"`},
		{"without resource: the client's audience", cc("robot", "robot-secret", "", "mcp"), "its audience does not include"},
		{"from another issuer with the same key", func() string {
			tok, err := twin.ClientCredentials(ctx, "robot", "robot-secret", e.resource, "mcp")
			if err != nil {
				t.Fatal(err)
			}
			return tok
		}(), `the token's issuer is "` + twin.URL + `"`},
		{"unsigned", parts[0] + "." + parts[1] + ".", "the signature does not verify"},
		{"alg none, the signature kept", forge(t, good, header("none"), nil), "not a JWT signed with an accepted algorithm"},
		{"alg none, no signature", func() string {
			f := forge(t, good, header("none"), nil)
			return f[:strings.LastIndex(f, ".")+1]
		}(), "not a JWT signed with an accepted algorithm"},
		{"tampered claims", forge(t, good, nil, func(c map[string]any) { c["scope"] = "mcp notes:read notes:write" }), "the signature does not verify"},
		{"tampered subject", forge(t, good, nil, func(c map[string]any) { c["sub"] = "alice" }), "the signature does not verify"},
		{"HS256 keyed with the issuer's public key", forge(t, sign(t, jose.HS256, pub, "key-1", claimsOf(t, good)), nil, nil),
			"not a JWT signed with an accepted algorithm"},
		{"signed by another key under the issuer's kid", sign(t, jose.RS256, attacker, "key-1", claimsOf(t, good)), "the signature does not verify"},
		{"signed by an unknown key", sign(t, jose.RS256, attacker, "made-up", claimsOf(t, good)), `signing key "made-up"`},
		{"not a JWT", "abc.def", "not a JWT"},
	} {
		resp, body := post(t, e.resource, listBody, "Bearer "+tc.token)
		ch := resp.Header.Get("WWW-Authenticate")
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(ch, `Bearer error="invalid_token", error_description="`) ||
			!strings.Contains(ch, `resource_metadata="`+e.hs.URL+`/.well-known/oauth-protected-resource/mcp"`) || !strings.Contains(body, tc.why) {
			t.Errorf("%s: %d %q %q, want 401 invalid_token saying %q", tc.desc, resp.StatusCode, ch, body, tc.why)
		}
	}

	// A token without the scope every request needs.
	scopeless := cc("robot", "robot-secret", e.resource, "notes:read")
	resp, body := post(t, e.resource, listBody, "Bearer "+scopeless)
	if want := `Bearer error="insufficient_scope", error_description="the token lacks scope mcp", scope="mcp", resource_metadata="` +
		e.hs.URL + `/.well-known/oauth-protected-resource/mcp"`; resp.StatusCode != http.StatusForbidden || resp.Header.Get("WWW-Authenticate") != want {
		t.Errorf("scope-less token: %d %q %q, want 403 %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body, want)
	}
	for _, version := range versions {
		if cs, err := connectWith(e, scopeless, version); err == nil {
			cs.Close()
			t.Errorf("%s: a client with a scope-less token connected", version)
		}
	}

	// The good token: its tools listed, the one it lacks the scope of
	// answered 403 with that scope, the call refused over both revisions.
	for _, version := range versions {
		cs, err := connectWith(e, good, version)
		if err != nil {
			t.Fatalf("%s: the good token: %v", version, err)
		}
		defer cs.Close()
		if got, want := listed(t, cs), []string{"read_notes", "whoami"}; !slices.Equal(got, want) {
			t.Errorf("%s: robot lists %v, want %v", version, got, want)
		}
		if who := whoami(t, cs); who["user"] != "robot" || !slices.Equal(who["scopes"].([]any), []any{"mcp", "notes:read"}) {
			t.Errorf("%s: whoami = %v", version, who)
		}
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "write_note"}); err == nil || !strings.Contains(err.Error(), "Forbidden") {
			t.Errorf("%s: write_note without notes:write: %v, want the 403", version, err)
		}
	}
	resp, _ = post(t, e.resource, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_note","arguments":{}}}`, "Bearer "+good)
	if want := `Bearer error="insufficient_scope", error_description="calling write_note needs scope notes:write", scope="mcp notes:write", resource_metadata="` +
		e.hs.URL + `/.well-known/oauth-protected-resource/mcp"`; resp.StatusCode != http.StatusForbidden || resp.Header.Get("WWW-Authenticate") != want {
		t.Errorf("tools/call write_note: %d %q, want 403 %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), want)
	}
}

// TestBadAuthorizationHeaders: malformed, huge or foreign credentials get
// an HTTP answer, and the server goes on.
func TestBadAuthorizationHeaders(t *testing.T) {
	e := startAuth(t, authSetup{})
	meta := `scope="notes:read notes:write", resource_metadata="` + e.hs.URL + `/.well-known/oauth-protected-resource/mcp"`
	for _, tc := range []struct {
		desc      string
		authz     []string
		status    int
		challenge string
	}{
		{"none", nil, 401, "Bearer " + meta},
		{"Basic", []string{"Basic dXNlcjpwYXNz"}, 401, "Bearer " + meta},
		{"Bearer without a token", []string{"Bearer"}, 400, ""},
		{"Bearer and spaces", []string{"Bearer    "}, 400, `Bearer error="invalid_request", error_description="the Authorization header has no token", ` + meta},
		{"two tokens", []string{"Bearer a b"}, 400, `Bearer error="invalid_request", error_description="the token has characters a bearer token cannot have", ` + meta},
		{"two headers", []string{"Bearer a", "Bearer b"}, 400, `Bearer error="invalid_request", error_description="more than one Authorization header", ` + meta},
		{"a quote", []string{`Bearer a"b`}, 400, ""},
		{"20 KiB", []string{"Bearer " + strings.Repeat("a", 20<<10)}, 400, `Bearer error="invalid_request", error_description="the token is over 16384 bytes", ` + meta},
	} {
		resp, body := post(t, e.resource, listBody, tc.authz...)
		if resp.StatusCode != tc.status || (tc.challenge != "" && resp.Header.Get("WWW-Authenticate") != tc.challenge) {
			t.Errorf("%s: %d %q %q, want %d %q", tc.desc, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body, tc.status, tc.challenge)
		}
	}
	// A header past the HTTP server's limit (1 MiB) never reaches the
	// handler.
	resp, _ := post(t, e.resource, listBody, "Bearer "+strings.Repeat("a", 2<<20))
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("a 2 MiB header: %d, want 431", resp.StatusCode)
	}
	tok, err := e.op.ClientCredentials(context.Background(), "robot", "robot-secret", e.resource, "mcp")
	if err != nil {
		t.Fatal(err)
	}
	if resp, body := post(t, e.resource, listBody, "bearer "+tok); resp.StatusCode != http.StatusOK {
		t.Errorf(`"bearer" in lower case: %d %s, want 200`, resp.StatusCode, body)
	}
}

// TestResourceMetadata: the RFC 9728 document at both addresses, HEAD
// and OPTIONS on it and on the MCP endpoint.
func TestResourceMetadata(t *testing.T) {
	e := startAuth(t, authSetup{scopes: []string{"mcp"}})
	if got, want := e.srv.ResourceMetadataPaths(), []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"}; !slices.Equal(got, want) {
		t.Errorf("ResourceMetadataPaths() = %v, want %v", got, want)
	}
	for _, p := range e.srv.ResourceMetadataPaths() {
		resp, err := http.Get(e.hs.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		json.NewDecoder(resp.Body).Decode(&m)
		resp.Body.Close()
		want := map[string]any{"resource": e.resource, "authorization_servers": []any{e.op.URL},
			"scopes_supported": []any{"mcp", "notes:read", "notes:write"}, "bearer_methods_supported": []any{"header"}, "resource_name": "notes"}
		if b1, b2 := mustJSON(m), mustJSON(want); resp.StatusCode != 200 || b1 != b2 || resp.Header.Get("Content-Type") != "application/json" ||
			resp.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("GET %s: %d %s, want %s", p, resp.StatusCode, b1, b2)
		}
		// What go-sdk's client reads of it.
		if prm, err := oauthex.GetProtectedResourceMetadata(context.Background(), e.hs.URL+p, e.resource, nil); err != nil || prm.AuthorizationServers[0] != e.op.URL {
			t.Errorf("go-sdk reads %s: %v %+v", p, err, prm)
		}
	}
	for _, tc := range []struct {
		method, path string
		status       int
		header, want string
	}{
		{"HEAD", "/.well-known/oauth-protected-resource/mcp", 200, "Content-Type", "application/json"},
		{"OPTIONS", "/.well-known/oauth-protected-resource/mcp", 204, "Access-Control-Allow-Methods", "GET, HEAD, OPTIONS"},
		{"POST", "/.well-known/oauth-protected-resource/mcp", 405, "Allow", "GET, HEAD, OPTIONS"},
		{"HEAD", "/mcp", 401, "WWW-Authenticate", `Bearer scope="mcp notes:read notes:write", resource_metadata="` + e.hs.URL + `/.well-known/oauth-protected-resource/mcp"`},
		{"GET", "/mcp", 401, "WWW-Authenticate", `Bearer scope="mcp notes:read notes:write", resource_metadata="` + e.hs.URL + `/.well-known/oauth-protected-resource/mcp"`},
		{"DELETE", "/mcp", 401, "WWW-Authenticate", `Bearer scope="mcp notes:read notes:write", resource_metadata="` + e.hs.URL + `/.well-known/oauth-protected-resource/mcp"`},
		// A CORS preflight carries no credentials: the MCP handler answers it (it offers no CORS).
		{"OPTIONS", "/mcp", 405, "WWW-Authenticate", ""},
	} {
		req, _ := http.NewRequest(tc.method, e.hs.URL+tc.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || resp.Header.Get(tc.header) != tc.want || (tc.method == "HEAD" && len(b) > 0) {
			t.Errorf("%s %s: %d %s=%q (%d bytes), want %d %q", tc.method, tc.path, resp.StatusCode, tc.header, resp.Header.Get(tc.header), len(b), tc.status, tc.want)
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestIntrospectedTokens: with introspection, the opaque tokens of the
// provider open the server as its JWTs do.
func TestIntrospectedTokens(t *testing.T) {
	e := startAuth(t, authSetup{verifier: []oauth.VerifierOption{oauth.VerifierIntrospection("notes-server", "notes-server-secret")}})
	opaque, err := e.op.ClientCredentials(context.Background(), "opaque", "opaque-secret", e.resource, "mcp", "notes:read")
	if err != nil {
		t.Fatal(err)
	}
	for _, version := range versions {
		cs, err := connectWith(e, opaque, version)
		if err != nil {
			t.Fatalf("%s: %v", version, err)
		}
		if got, want := listed(t, cs), []string{"read_notes", "whoami"}; !slices.Equal(got, want) {
			t.Errorf("%s: the opaque token lists %v, want %v", version, got, want)
		}
		if who := whoami(t, cs); who["user"] != "opaque" {
			t.Errorf("%s: whoami = %v", version, who)
		}
		cs.Close()
	}
	if resp, body := post(t, e.resource, listBody, "Bearer bm90IGEgdG9rZW4"); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "not active") {
		t.Errorf("a made-up opaque token: %d %s, want 401 not active", resp.StatusCode, body)
	}
}

// TestToolScopes: WithToolScopes gives the built-in tools scopes by name,
// and replaces the mapping of the registry's tools.
func TestToolScopes(t *testing.T) {
	e := startAuth(t, authSetup{server: []mcpserver.Option{
		mcpserver.WithSessionOptions(func(string) []runtime.SessionOption {
			return []runtime.SessionOption{runtime.SessionUndoTool(true)}
		}),
		mcpserver.WithToolScopes(func(m *runtime.Meta) []string {
			switch m.Name {
			case runtime.UndoLastActions:
				return []string{"notes:write"}
			case "whoami":
				return []string{"mcp"}
			}
			return mcpserver.CapabilityScopes(m)
		}),
	}})
	ctx := context.Background()
	for _, tc := range []struct {
		scopes []string
		want   []string
	}{
		{[]string{"notes:read"}, []string{"read_notes"}},
		{[]string{"mcp", "notes:read"}, []string{"read_notes", "whoami"}},
		{[]string{"notes:write"}, []string{"write_note", runtime.UndoLastActions}},
	} {
		tok, err := e.op.ClientCredentials(ctx, "scribe", "scribe-secret", e.resource, tc.scopes...)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := connectWith(e, tok, "2026-07-28")
		if err != nil {
			t.Fatal(err)
		}
		if got := listed(t, cs); !slices.Equal(got, tc.want) {
			t.Errorf("scopes %v list %v, want %v", tc.scopes, got, tc.want)
		}
		_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: runtime.UndoLastActions})
		if may := slices.Contains(tc.scopes, "notes:write"); may != (err == nil) || (!may && !strings.Contains(err.Error(), "Forbidden")) {
			t.Errorf("scopes %v call %s: %v", tc.scopes, runtime.UndoLastActions, err)
		}
		cs.Close()
	}
	resp, err := http.Get(e.hs.URL + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Scopes []string `json:"scopes_supported"`
	}
	json.NewDecoder(resp.Body).Decode(&m)
	resp.Body.Close()
	if want := []string{"mcp", "notes:read", "notes:write"}; !slices.Equal(m.Scopes, want) {
		t.Errorf("scopes_supported = %v, want %v", m.Scopes, want)
	}
}

// TestSessionBoundToUser: a stateful session answers only the user whose
// token opened it.
func TestSessionBoundToUser(t *testing.T) {
	e := startAuth(t, authSetup{})
	ctx := context.Background()
	robot, err := e.op.ClientCredentials(ctx, "robot", "robot-secret", e.resource, "notes:read")
	if err != nil {
		t.Fatal(err)
	}
	scribe, err := e.op.ClientCredentials(ctx, "scribe", "scribe-secret", e.resource, "notes:read")
	if err != nil {
		t.Fatal(err)
	}
	send := func(token, session, body string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, e.resource, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	resp := send(robot, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`)
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, id)
	}
	send(robot, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	const list = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	if resp := send(robot, id, list); resp.StatusCode != http.StatusOK {
		t.Errorf("robot's session, robot's token: %d, want 200", resp.StatusCode)
	}
	if resp := send(scribe, id, list); resp.StatusCode != http.StatusForbidden {
		t.Errorf("robot's session, scribe's token: %d, want 403", resp.StatusCode)
	}
	// A call, which the server answers on its direct path for the
	// session's user only.
	const call = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_notes","arguments":{}}}`
	if resp := send(robot, id, call); resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("robot's call on robot's session: %d %s, want 200 application/json", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if resp := send(scribe, id, call); resp.StatusCode != http.StatusForbidden {
		t.Errorf("scribe's call on robot's session: %d, want 403", resp.StatusCode)
	}
}

// TestAuthorizationMisconfigured: a server whose authorization cannot
// work refuses every request rather than serving without it.
func TestAuthorizationMisconfigured(t *testing.T) {
	for _, a := range []mcpserver.Authorization{
		{Resource: "ftp://tools.example.com/mcp", AuthorizationServers: []string{"https://auth.example.com"}, Verifier: func(context.Context, string, *http.Request) (*auth.TokenInfo, error) { return nil, nil }},
		{Resource: "http://tools.example.com/mcp", AuthorizationServers: []string{"https://auth.example.com"}, Verifier: func(context.Context, string, *http.Request) (*auth.TokenInfo, error) { return nil, nil }},
		{Resource: "https://tools.example.com/mcp", AuthorizationServers: []string{"https://auth.example.com"}},
		{Resource: "https://tools.example.com/mcp", Verifier: func(context.Context, string, *http.Request) (*auth.TokenInfo, error) { return nil, nil }},
	} {
		srv := mcpserver.New(notesRegistry(t), mcpserver.WithLogger(quiet()), mcpserver.WithAuthorization(a))
		hs := httptest.NewServer(srv.Handler())
		resp, _ := post(t, hs.URL, listBody, "Bearer abc")
		hs.Close()
		if resp.StatusCode != http.StatusInternalServerError || srv.ResourceMetadataPaths() != nil {
			t.Errorf("%+v: %d, metadata at %v; want 500 and none", a, resp.StatusCode, srv.ResourceMetadataPaths())
		}
	}
}

// TestScopesFollowTheTools: a tool registered after the server started
// adds its scope to the metadata and the 401.
func TestScopesFollowTheTools(t *testing.T) {
	reg := notesRegistry(t)
	srv := mcpserver.New(reg, mcpserver.WithLogger(quiet()), mcpserver.WithAuthorization(mcpserver.Authorization{
		Resource: "http://127.0.0.1/mcp", AuthorizationServers: []string{"http://127.0.0.1:1"},
		Verifier: func(context.Context, string, *http.Request) (*auth.TokenInfo, error) {
			return nil, auth.ErrInvalidToken
		}}))
	defer srv.Close()
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	challenge := func() string {
		resp, _ := post(t, hs.URL, listBody)
		return resp.Header.Get("WWW-Authenticate")
	}
	if ch := challenge(); !strings.HasPrefix(ch, `Bearer scope="notes:read notes:write", `) {
		t.Errorf("before: %s", ch)
	}
	if err := reg.Register(runtime.Tool{Meta: runtime.Meta{Name: "archive_note", Description: "Archives a note.", Risk: runtime.RiskLow,
		CapabilityRequired: "notes:archive", ArgsSchema: schema(`{"type":"object"}`)},
		Execute: func(context.Context, any) (any, error) { return nil, nil }}); err != nil {
		t.Fatal(err)
	}
	if ch := challenge(); !strings.HasPrefix(ch, `Bearer scope="notes:archive notes:read notes:write", `) {
		t.Errorf("after archive_note: %s", ch)
	}
}

// FuzzAuthorizationHeader sends arbitrary Authorization headers and
// bodies: each is answered 400, 401 or 403 with a challenge, never
// served and never a panic.
func FuzzAuthorizationHeader(f *testing.F) {
	e := startAuth(f, authSetup{})
	tok, err := e.op.ClientCredentials(context.Background(), "robot", "robot-secret", e.resource, "notes:read")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"Bearer " + tok, "Bearer", "bearer  x", "Basic Zm9vOmJhcg==", "Bearer " + tok[:len(tok)-4] + "AAAA", "Bearer a.b.c", "Bearer ..", "Bearer eyJhbGciOiJub25lIn0.e30."} {
		f.Add(s)
	}
	h := e.srv.Handler()
	f.Fuzz(func(t *testing.T, header string) {
		if strings.Contains(header, tok) {
			return // the good token is served, as it should be
		}
		req := httptest.NewRequest(http.MethodPost, e.resource, strings.NewReader(listBody))
		req.Header.Set("Content-Type", "application/json")
		req.Header["Authorization"] = []string{header}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		switch w.Code {
		case http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden:
			if !strings.HasPrefix(w.Header().Get("WWW-Authenticate"), "Bearer ") {
				t.Errorf("%q: %d without a challenge", header, w.Code)
			}
		default:
			t.Errorf("%q: %d %s", header, w.Code, w.Body)
		}
	})
}
