// Package oauthtest runs a real OpenID provider (github.com/zitadel/oidc's
// op package) on 127.0.0.1, for tests of MCP servers that take OAuth
// tokens (runtime/mcpserver with WithAuthorization): authorization code
// with PKCE, client credentials, JWT or opaque access tokens,
// introspection, revocation, key rotation. Its storage, in memory, is the
// provider's policy: a token's audience is the RFC 8707 resource the
// client asked for, and the scopes granted are those requested that the
// user (or the client, for client credentials) may have.
//
//	p := oauthtest.Start(t, map[string][]string{"alice": {"notes:read"}},
//		oauthtest.Client{ID: "robot", Secret: "s", Scopes: []string{"notes:read"}})
//	tok, err := p.ClientCredentials(ctx, "robot", "s", "http://127.0.0.1:8080/mcp", "notes:read")
//
// It is meant for tests and for trying a server on one machine (New, with
// a login page at /login): it keeps everything in memory, its login asks
// for no password, and it serves plain http.
package oauthtest

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	_ "embed"
	"encoding/pem"
	"errors"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
	"golang.org/x/oauth2/clientcredentials"
)

// Client is a client registered with the provider.
type Client struct {
	ID, Secret  string
	RedirectURI string        // authorization code; empty: client credentials only
	Scopes      []string      // what a client credentials token may carry
	Opaque      bool          // access tokens are opaque (introspect them), not JWTs
	Lifetime    time.Duration // of its access tokens (default 1h); negative: issued expired
}

// Provider is a running OpenID provider. Its URL is the issuer.
type Provider struct {
	URL string
	srv *httptest.Server
	op  *op.Provider
	st  *storage

	// KeyFetches counts the requests for the provider's JWKS.
	KeyFetches atomic.Int64
}

// Start runs a provider on 127.0.0.1 whose users are users (id → the
// scopes they may be granted), with clients, until the test ends.
//
// Its signing key is the same in every test (testkey.pem, made for these
// tests only), so that a test spends no time making one and a benchmark's
// setup costs the same on every run.
func Start(t testing.TB, users map[string][]string, clients ...Client) *Provider {
	key, err := testKey()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p, err := start(ln, &storage{users: users, key: key, kid: "key-1"}, clients)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

//go:embed testkey.pem
var testKeyPEM []byte

var testKey = sync.OnceValues(func() (*rsa.PrivateKey, error) {
	b, _ := pem.Decode(testKeyPEM)
	if b == nil {
		return nil, errors.New("oauthtest: testkey.pem holds no PEM block")
	}
	k, err := x509.ParsePKCS8PrivateKey(b.Bytes)
	if err != nil {
		return nil, err
	}
	return k.(*rsa.PrivateKey), nil
})

// New runs a provider on addr (host:port; its issuer is http://addr) until
// Close, outside a test: a development authorization server.
func New(addr string, users map[string][]string, clients ...Client) (*Provider, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return start(ln, &storage{users: users, key: key, kid: "key-1"}, clients)
}

// Close stops the provider.
func (p *Provider) Close() { p.srv.Close() }

// Twin runs another provider, at another address (so another issuer), with
// the same signing key, users and clients, until the test ends: a token it
// issues is signed by a key p's relying parties trust.
func (p *Provider) Twin(t testing.TB) *Provider {
	p.st.mu.Lock()
	st := &storage{users: p.st.users, key: p.st.key, kid: p.st.kid}
	var clients []Client
	for _, c := range p.st.clients {
		clients = append(clients, *c)
	}
	p.st.mu.Unlock()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	twin, err := start(ln, st, clients)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(twin.Close)
	return twin
}

func start(ln net.Listener, st *storage, clients []Client) (*Provider, error) {
	st.clients = map[string]*Client{}
	st.requests = map[string]*authRequest{}
	st.codes = map[string]string{}
	st.tokens = map[string]*tokenInfo{}
	for i := range clients {
		c := clients[i]
		st.clients[c.ID] = &c
	}
	mux := http.NewServeMux()
	p := &Provider{st: st}
	p.srv = &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/keys" {
			p.KeyFetches.Add(1)
		}
		mux.ServeHTTP(w, r)
	}), ReadHeaderTimeout: 10 * time.Second}}
	p.srv.Start()
	p.URL = p.srv.URL
	var crypto [32]byte
	rand.Read(crypto[:])
	var err error
	p.op, err = op.NewProvider(&op.Config{CryptoKey: crypto, CodeMethodS256: true}, st, op.StaticIssuer(p.URL),
		op.WithAllowInsecure(), op.WithHttpInterceptors(resourceParam))
	if err != nil {
		p.srv.Close()
		return nil, err
	}
	mux.HandleFunc("/login", func(w http.ResponseWriter, r *http.Request) {
		id := r.FormValue("id")
		if r.FormValue("user") == "" {
			st.loginPage(w, id)
			return
		}
		if err := st.login(id, r.FormValue("user")); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		http.Redirect(w, r, op.AuthCallbackURL(p.op)(op.ContextWithIssuer(r.Context(), p.URL), id), http.StatusSeeOther)
	})
	mux.Handle("/", p.op)
	return p, nil
}

var loginPage = template.Must(template.New("login").Parse(`<!doctype html>
<title>Log in</title>
<h1>Log in to the development authorization server</h1>
<p>The client asks for: {{.Scopes}}. Each user is granted those of them they may have.</p>
<form action="/login" method="post"><input type="hidden" name="id" value="{{.ID}}">
{{range .Users}}<button name="user" value="{{.}}">{{.}}</button> {{end}}
</form>
`))

// loginPage shows the users to log in as.
func (s *storage) loginPage(w http.ResponseWriter, id string) {
	s.mu.Lock()
	ar, ok := s.requests[id]
	var users, scopes []string
	if ok {
		scopes = ar.scopes
	}
	for u := range s.users {
		users = append(users, u)
	}
	s.mu.Unlock()
	if !ok {
		http.Error(w, "no such authorization request", http.StatusBadRequest)
		return
	}
	slices.Sort(users)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	loginPage.Execute(w, map[string]any{"ID": id, "Users": users, "Scopes": strings.Join(scopes, " ")})
}

func (p *Provider) AddClient(c Client) {
	p.st.mu.Lock()
	p.st.clients[c.ID] = &c
	p.st.mu.Unlock()
}

// Rotate makes the provider sign with a new key, kid, publishing both.
func (p *Provider) Rotate(kid string) {
	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	p.st.mu.Lock()
	p.st.old = append(p.st.old, op.Key(&publicKey{kid: p.st.kid, key: &p.st.key.PublicKey}))
	p.st.key, p.st.kid = key, kid
	p.st.mu.Unlock()
}

// ClientCredentials gets a token for client id at the provider's token
// endpoint, for resource (RFC 8707) with scopes.
func (p *Provider) ClientCredentials(ctx context.Context, id, secret, resource string, scopes ...string) (string, error) {
	cfg := clientcredentials.Config{ClientID: id, ClientSecret: secret, TokenURL: p.URL + "/oauth/token", Scopes: scopes,
		EndpointParams: url.Values{"resource": {resource}}}
	tok, err := cfg.Token(ctx)
	if err != nil {
		return "", err
	}
	return tok.AccessToken, nil
}

// Login is what a user's browser does with an authorization URL: follows
// the provider's redirects, logs in as user at the login page, and returns
// the redirect to the client (its code, state and iss).
func (p *Provider) Login(ctx context.Context, authURL, user string) (*url.URL, error) {
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	next := authURL
	for range 10 {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, next, nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.Do(req)
		if err != nil {
			return nil, err
		}
		resp.Body.Close()
		loc, err := resp.Location()
		if err != nil {
			return nil, fmt.Errorf("oauthtest: %s answered %s without a redirect", next, resp.Status)
		}
		if loc.Host != req.URL.Host {
			return loc, nil // back to the client
		}
		if loc.Path == "/login" {
			q := loc.Query()
			q.Set("user", user)
			loc.RawQuery = q.Encode()
		}
		next = loc.String()
	}
	return nil, errors.New("oauthtest: too many redirects")
}

// resourceParam keeps the RFC 8707 resource parameter of an authorization
// or token request in its context, for the storage.
func resourceParam(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if res := r.FormValue("resource"); res != "" {
			r = r.WithContext(context.WithValue(r.Context(), resourceKey{}, res))
		}
		next.ServeHTTP(w, r)
	})
}

type resourceKey struct{}

func audience(ctx context.Context, clientID string) []string {
	if res, _ := ctx.Value(resourceKey{}).(string); res != "" {
		return []string{res}
	}
	return []string{clientID}
}

type storage struct {
	mu       sync.Mutex
	users    map[string][]string
	key      *rsa.PrivateKey
	kid      string
	old      []op.Key
	clients  map[string]*Client
	requests map[string]*authRequest
	codes    map[string]string
	tokens   map[string]*tokenInfo
}

type tokenInfo struct {
	clientID, subject string
	audience, scopes  []string
	issued, expires   time.Time
}

func randomID() string { return rand.Text() }

func (s *storage) login(id, user string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ar, ok := s.requests[id]
	allowed, known := s.users[user]
	if !ok || !known {
		return errors.New("no such request or user")
	}
	ar.subject, ar.done, ar.authTime = user, true, time.Now()
	ar.scopes = slices.DeleteFunc(ar.scopes, func(sc string) bool { return !slices.Contains(allowed, sc) })
	return nil
}

func (s *storage) CreateAuthRequest(ctx context.Context, r *oidc.AuthRequest, _ string) (op.AuthRequest, error) {
	ar := &authRequest{id: randomID(), clientID: r.ClientID, redirectURI: r.RedirectURI, state: r.State, nonce: r.Nonce,
		scopes: slices.Clone(r.Scopes), responseType: r.ResponseType, responseMode: r.ResponseMode,
		audience: audience(ctx, r.ClientID)}
	if r.CodeChallenge != "" {
		ar.challenge = &oidc.CodeChallenge{Challenge: r.CodeChallenge, Method: r.CodeChallengeMethod}
	}
	s.mu.Lock()
	s.requests[ar.id] = ar
	s.mu.Unlock()
	return ar, nil
}

func (s *storage) AuthRequestByID(_ context.Context, id string) (op.AuthRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ar, ok := s.requests[id]; ok {
		return ar, nil
	}
	return nil, errors.New("auth request not found")
}

func (s *storage) AuthRequestByCode(ctx context.Context, code string) (op.AuthRequest, error) {
	s.mu.Lock()
	id, ok := s.codes[code]
	s.mu.Unlock()
	if !ok {
		return nil, errors.New("code not found")
	}
	return s.AuthRequestByID(ctx, id)
}

func (s *storage) SaveAuthCode(_ context.Context, id, code string) error {
	s.mu.Lock()
	s.codes[code] = id
	s.mu.Unlock()
	return nil
}

func (s *storage) DeleteAuthRequest(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.requests, id)
	for code, rid := range s.codes {
		if rid == id {
			delete(s.codes, code)
		}
	}
	return nil
}

func (s *storage) CreateAccessToken(_ context.Context, req op.TokenRequest) (string, time.Time, error) {
	var clientID string
	switch r := req.(type) {
	case *authRequest:
		clientID = r.clientID
	case *ccRequest:
		clientID = r.clientID
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	life := time.Hour
	if c := s.clients[clientID]; c != nil && c.Lifetime != 0 {
		life = c.Lifetime
	}
	id := randomID()
	now := time.Now()
	s.tokens[id] = &tokenInfo{clientID: clientID, subject: req.GetSubject(), audience: req.GetAudience(),
		scopes: req.GetScopes(), issued: now, expires: now.Add(life)}
	return id, now.Add(life), nil
}

func (s *storage) CreateAccessAndRefreshTokens(context.Context, op.TokenRequest, string) (string, string, time.Time, error) {
	return "", "", time.Time{}, errors.New("refresh tokens are not issued")
}

func (s *storage) TokenRequestByRefreshToken(context.Context, string) (op.RefreshTokenRequest, error) {
	return nil, op.ErrInvalidRefreshToken
}

func (s *storage) TerminateSession(context.Context, string, string) error { return nil }

func (s *storage) RevokeToken(_ context.Context, id, _, _ string) *oidc.Error {
	s.mu.Lock()
	delete(s.tokens, id)
	s.mu.Unlock()
	return nil
}

func (s *storage) GetRefreshTokenInfo(context.Context, string, string) (string, string, error) {
	return "", "", op.ErrInvalidRefreshToken
}

func (s *storage) SigningKey(context.Context) (op.SigningKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return &signingKey{kid: s.kid, key: s.key}, nil
}

func (s *storage) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.RS256}, nil
}

func (s *storage) KeySet(context.Context) ([]op.Key, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]op.Key{&publicKey{kid: s.kid, key: &s.key.PublicKey}}, s.old...), nil
}

func (s *storage) GetClientByClientID(_ context.Context, id string) (op.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.clients[id]; ok {
		return &client{c}, nil
	}
	return nil, errors.New("client not found")
}

func (s *storage) AuthorizeClientIDSecret(_ context.Context, id, secret string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.clients[id]; ok && c.Secret == secret {
		return nil
	}
	return errors.New("wrong client id or secret")
}

func (s *storage) SetUserinfoFromScopes(context.Context, *oidc.UserInfo, string, string, []string) error {
	return nil
}

func (s *storage) SetUserinfoFromToken(_ context.Context, ui *oidc.UserInfo, _, subject, _ string) error {
	ui.Subject = subject
	return nil
}

func (s *storage) SetIntrospectionFromToken(_ context.Context, resp *oidc.IntrospectionResponse, id, _, _ string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	tok, ok := s.tokens[id]
	if !ok || time.Now().After(tok.expires) {
		return errors.New("token not active")
	}
	resp.Active = true
	resp.Scope = tok.scopes
	resp.ClientID = tok.clientID
	resp.Subject = tok.subject
	resp.Audience = tok.audience
	resp.Expiration = oidc.FromTime(tok.expires)
	resp.IssuedAt = oidc.FromTime(tok.issued)
	resp.TokenType = "Bearer"
	return nil
}

func (s *storage) GetPrivateClaimsFromScopes(_ context.Context, _, _ string, scopes []string) (map[string]any, error) {
	return map[string]any{"scope": strings.Join(scopes, " ")}, nil
}

func (s *storage) GetKeyByIDAndClientID(context.Context, string, string) (*jose.JSONWebKey, error) {
	return nil, errors.New("no JWT profile keys")
}

func (s *storage) ValidateJWTProfileScopes(_ context.Context, _ string, scopes []string) ([]string, error) {
	return scopes, nil
}

func (s *storage) Health(context.Context) error { return nil }

// ClientCredentials and ClientCredentialsTokenRequest make the provider
// offer the client_credentials grant.
func (s *storage) ClientCredentials(ctx context.Context, id, secret string) (op.Client, error) {
	if err := s.AuthorizeClientIDSecret(ctx, id, secret); err != nil {
		return nil, err
	}
	return s.GetClientByClientID(ctx, id)
}

func (s *storage) ClientCredentialsTokenRequest(ctx context.Context, id string, scopes []string) (op.TokenRequest, error) {
	s.mu.Lock()
	c := s.clients[id]
	s.mu.Unlock()
	if c == nil {
		return nil, errors.New("client not found")
	}
	granted := slices.DeleteFunc(slices.Clone(scopes), func(sc string) bool { return !slices.Contains(c.Scopes, sc) })
	return &ccRequest{clientID: id, scopes: granted, audience: audience(ctx, id)}, nil
}

type ccRequest struct {
	clientID         string
	scopes, audience []string
}

func (r *ccRequest) GetSubject() string    { return r.clientID }
func (r *ccRequest) GetAudience() []string { return r.audience }
func (r *ccRequest) GetScopes() []string   { return r.scopes }

type authRequest struct {
	id, clientID, redirectURI, state, nonce, subject string
	scopes, audience                                 []string
	responseType                                     oidc.ResponseType
	responseMode                                     oidc.ResponseMode
	challenge                                        *oidc.CodeChallenge
	done                                             bool
	authTime                                         time.Time
}

func (a *authRequest) GetID() string                         { return a.id }
func (a *authRequest) GetACR() string                        { return "" }
func (a *authRequest) GetAMR() []string                      { return []string{"pwd"} }
func (a *authRequest) GetAudience() []string                 { return a.audience }
func (a *authRequest) GetAuthTime() time.Time                { return a.authTime }
func (a *authRequest) GetClientID() string                   { return a.clientID }
func (a *authRequest) GetCodeChallenge() *oidc.CodeChallenge { return a.challenge }
func (a *authRequest) GetNonce() string                      { return a.nonce }
func (a *authRequest) GetRedirectURI() string                { return a.redirectURI }
func (a *authRequest) GetResponseType() oidc.ResponseType    { return a.responseType }
func (a *authRequest) GetResponseMode() oidc.ResponseMode    { return a.responseMode }
func (a *authRequest) GetScopes() []string                   { return a.scopes }
func (a *authRequest) GetState() string                      { return a.state }
func (a *authRequest) GetSubject() string                    { return a.subject }
func (a *authRequest) Done() bool                            { return a.done }

type client struct{ c *Client }

func (c *client) GetID() string                       { return c.c.ID }
func (c *client) RedirectURIs() []string              { return []string{c.c.RedirectURI} }
func (c *client) PostLogoutRedirectURIs() []string    { return nil }
func (c *client) ApplicationType() op.ApplicationType { return op.ApplicationTypeWeb }
func (c *client) AuthMethod() oidc.AuthMethod         { return oidc.AuthMethodBasic }
func (c *client) ResponseTypes() []oidc.ResponseType {
	return []oidc.ResponseType{oidc.ResponseTypeCode}
}
func (c *client) GrantTypes() []oidc.GrantType {
	return []oidc.GrantType{oidc.GrantTypeCode, oidc.GrantTypeClientCredentials}
}
func (c *client) LoginURL(id string) string { return "/login?id=" + url.QueryEscape(id) }
func (c *client) AccessTokenType() op.AccessTokenType {
	if c.c.Opaque {
		return op.AccessTokenTypeBearer
	}
	return op.AccessTokenTypeJWT
}
func (c *client) IDTokenLifetime() time.Duration { return time.Hour }
func (c *client) DevMode() bool                  { return true }
func (c *client) RestrictAdditionalIdTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (c *client) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (c *client) IsScopeAllowed(string) bool           { return true }
func (c *client) IDTokenUserinfoClaimsAssertion() bool { return false }

// ClockSkew lets the provider issue a token that has already expired
// (a negative Lifetime): it counts its expires_in from exp plus the skew.
func (c *client) ClockSkew() time.Duration { return -2 * min(c.c.Lifetime, 0) }

type signingKey struct {
	kid string
	key *rsa.PrivateKey
}

func (k *signingKey) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k *signingKey) Key() any                                    { return k.key }
func (k *signingKey) ID() string                                  { return k.kid }

type publicKey struct {
	kid string
	key *rsa.PublicKey
}

func (k *publicKey) ID() string                         { return k.kid }
func (k *publicKey) Algorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k *publicKey) Use() string                        { return "sig" }
func (k *publicKey) Key() any                           { return k.key }
