package mcpserver

import (
	"bytes"
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
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/toolcat/toolcat/runtime"
)

// Authorization makes the streamable HTTP endpoint (Handler) an OAuth 2.1
// protected resource, as the MCP authorization specification (2025-11-25)
// describes. See WithAuthorization.
type Authorization struct {
	// Resource is the canonical URI of the MCP endpoint, as clients connect
	// to it, such as "https://tools.example.com/mcp": tokens must be issued
	// for it (their audience, RFC 8707), and the metadata document names it.
	// https, or http on a loopback host.
	Resource string
	// AuthorizationServers are the issuers clients get tokens from (RFC 9728
	// authorization_servers); at least one.
	AuthorizationServers []string
	// Verifier checks a bearer token and says whose it is and what it may
	// do: runtime/mcpserver/oauth's Verifier.Verify, or any
	// auth.TokenVerifier. A token it refuses must give an error that wraps
	// auth.ErrInvalidToken (401); another error answers 503.
	Verifier auth.TokenVerifier
	// Scopes are needed by every request, whatever it calls (none by
	// default); a token without them is answered 403.
	Scopes []string
	// ClockSkew is how long after its expiry a token is still accepted.
	ClockSkew time.Duration
	// ResourceName and ResourceDocumentation are the resource_name and
	// resource_documentation of the metadata document, for people.
	ResourceName          string
	ResourceDocumentation string
}

// WithAuthorization makes Handler a protected resource: every request
// needs a bearer token that a.Verifier accepts. Without one (or with a bad
// one) it is answered 401 with
//
//	WWW-Authenticate: Bearer resource_metadata="https://tools.example.com/.well-known/oauth-protected-resource/mcp"
//
// which tells the client where to read the server's RFC 9728 metadata
// (ResourceMetadataHandler), and from it which authorization server to ask.
// tools/list lists only the tools whose scopes (WithToolScopes) the token
// has, and a tools/call of a tool whose scopes it lacks is answered 403
// with
//
//	WWW-Authenticate: Bearer error="insufficient_scope", scope="...", resource_metadata="..."
//
// so that the client asks the user for those scopes (step-up) and calls
// again. The verified token reaches the tool through Principal(ctx).
// RunStdio and Run are not affected: a local client is trusted.
func WithAuthorization(a Authorization) Option {
	return func(s *Server) {
		s.auth().conf = a
		s.authz.on = true
	}
}

// WithToolScopes sets the OAuth scopes a token needs to list and call a
// tool, from its Meta (default CapabilityScopes). A tool with none is
// listed to every authenticated client. The built-in tools
// (runtime.SearchToolsByKeywords, SearchToolsByRegex, UndoLastActions) come
// with just their Name, so that fn can give them scopes by name; by default
// they need none.
func WithToolScopes(fn func(m *runtime.Meta) []string) Option {
	return func(s *Server) { s.auth().scopes = fn }
}

// CapabilityScopes is the default mapping of a tool onto OAuth scopes: the
// catalog's capability_required, as it is, is the one scope the tool needs
// ("db:read:articles" needs the scope "db:read:articles"; space-separated
// words are several scopes, all needed); a tool without
// capability_required needs none.
func CapabilityScopes(m *runtime.Meta) []string { return strings.Fields(m.CapabilityRequired) }

// Principal returns the verified token of the request running in ctx (its
// subject as UserID, its scopes, its claims in Extra), for a tool that acts
// on behalf of the user; nil when the server has no authorization, and
// over stdio. The TokenInfo may be shared with other requests of the same
// token: it must not be changed.
func Principal(ctx context.Context) *auth.TokenInfo {
	if r := Request(ctx); r != nil && r.Extra != nil && r.Extra.TokenInfo != nil {
		return r.Extra.TokenInfo
	}
	return auth.TokenInfoFromContext(ctx)
}

// authz is the server's authorization, when WithAuthorization or
// WithToolScopes was given.
type authz struct {
	on     bool
	conf   Authorization
	scopes func(*runtime.Meta) []string

	supported atomic.Pointer[[]string] // scopesSupported, until the tools change

	once    sync.Once
	err     error  // the configuration's flaw
	metaURL string // where the metadata document is, as the 401 says
	path    string // its path
}

// ready reports the configuration's flaw, and derives the metadata's
// address once.
func (a *authz) ready() error {
	a.once.Do(func() { a.err = a.check() })
	return a.err
}

func (s *Server) auth() *authz {
	if s.authz == nil {
		s.authz = &authz{scopes: CapabilityScopes}
	}
	return s.authz
}

func (s *Server) authorizing() bool { return s.authz != nil && s.authz.on }

const wellKnownResource = "/.well-known/oauth-protected-resource"

// check validates the configuration and derives the metadata's address.
func (a *authz) check() error {
	c := &a.conf
	if c.Verifier == nil {
		return errors.New("no Verifier")
	}
	if len(c.AuthorizationServers) == 0 {
		return errors.New("no AuthorizationServers")
	}
	u, err := url.Parse(c.Resource)
	if err != nil || u.Host == "" || u.Fragment != "" || (u.Scheme != "https" && !(u.Scheme == "http" && loopback(u.Hostname()))) {
		return fmt.Errorf("Resource %q is not an absolute https URL (http on a loopback host) without fragment", c.Resource)
	}
	a.path = wellKnownResource + strings.TrimSuffix(u.EscapedPath(), "/")
	a.metaURL = u.Scheme + "://" + u.Host + a.path
	return nil
}

func loopback(host string) bool {
	return host == "localhost" || net.ParseIP(host).IsLoopback()
}

// verifiedKey holds the TokenInfo the server verified, for the SDK's
// RequireBearerToken to put where the SDK reads it (auth.TokenInfoFromContext).
type verifiedKey struct{}

func verified(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
	if ti, _ := ctx.Value(verifiedKey{}).(*auth.TokenInfo); ti != nil {
		return ti, nil
	}
	return nil, auth.ErrInvalidToken
}

// protect wraps the MCP endpoint in the bearer token check, when the
// server has authorization.
func (s *Server) protect(next http.Handler) http.Handler {
	if !s.authorizing() {
		return next
	}
	a := s.authz
	if err := a.ready(); err != nil {
		s.logger.Error("mcpserver: authorization is misconfigured; every request is refused", "err", err)
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "the server's authorization is misconfigured", http.StatusInternalServerError)
		})
	}
	// The SDK keeps the token where its handler reads it (the session's
	// user, the request's Extra.TokenInfo) behind RequireBearerToken only:
	// it is given the token verified here.
	inner := auth.RequireBearerToken(verified, &auth.RequireBearerTokenOptions{
		ResourceMetadataURL: a.metaURL, ClockSkew: a.conf.ClockSkew})(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions {
			// A CORS preflight never carries credentials, and changes nothing.
			next.ServeHTTP(w, r)
			return
		}
		token, status, why := bearerToken(r)
		if status != 0 {
			code := "invalid_request"
			if why == "" {
				code = "" // no credentials: the challenge alone (RFC 6750 §3.1)
			}
			a.challenge(w, status, code, why, s.scopesSupported())
			return
		}
		info, err := a.conf.Verifier(r.Context(), token, r)
		switch {
		case errors.Is(err, auth.ErrInvalidToken):
			a.challenge(w, http.StatusUnauthorized, "invalid_token", strings.TrimPrefix(err.Error(), auth.ErrInvalidToken.Error()+": "), s.scopesSupported())
			return
		case err != nil || info == nil:
			s.logger.Warn("mcpserver: a bearer token could not be verified", "err", err)
			http.Error(w, "the token could not be verified now; try again later", http.StatusServiceUnavailable)
			return
		case info.Expiration.IsZero():
			a.challenge(w, http.StatusUnauthorized, "invalid_token", "the token has no expiry", s.scopesSupported())
			return
		case time.Now().After(info.Expiration.Add(a.conf.ClockSkew)):
			a.challenge(w, http.StatusUnauthorized, "invalid_token", "the token expired", s.scopesSupported())
			return
		}
		if missing := lacking(info.Scopes, a.conf.Scopes); len(missing) > 0 {
			a.challenge(w, http.StatusForbidden, "insufficient_scope", "the token lacks scope "+strings.Join(missing, " "), a.conf.Scopes)
			return
		}
		if r.Method == http.MethodPost {
			if tool, need := s.peekCall(r, info); len(need) > 0 {
				a.challenge(w, http.StatusForbidden, "insufficient_scope",
					"calling "+tool+" needs scope "+strings.Join(need, " "), union(a.conf.Scopes, need))
				return
			}
		}
		inner.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), verifiedKey{}, info)))
	})
}

// bearerToken reads the request's bearer token (RFC 6750 §2.1). status is
// 401 without why when the request has no bearer credentials, 400 with why
// when its Authorization header is malformed.
func bearerToken(r *http.Request) (token string, status int, why string) {
	hs := r.Header.Values("Authorization")
	if len(hs) == 0 {
		return "", http.StatusUnauthorized, ""
	}
	if len(hs) > 1 {
		return "", http.StatusBadRequest, "more than one Authorization header"
	}
	scheme, tok, _ := strings.Cut(hs[0], " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", http.StatusUnauthorized, "" // other credentials: not ours to read
	}
	tok = strings.TrimLeft(tok, " ")
	switch {
	case tok == "":
		return "", http.StatusBadRequest, "the Authorization header has no token"
	case len(tok) > maxBearerBytes:
		return "", http.StatusBadRequest, fmt.Sprintf("the token is over %d bytes", maxBearerBytes)
	case strings.IndexFunc(tok, notToken68) >= 0:
		return "", http.StatusBadRequest, "the token has characters a bearer token cannot have"
	}
	return tok, 0, ""
}

// maxBearerBytes bounds the token of a request.
const maxBearerBytes = 16 << 10

// notToken68 reports a rune outside RFC 6750's b64token.
func notToken68(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return false
	}
	return !strings.ContainsRune("-._~+/=", r)
}

// challenge answers with the WWW-Authenticate challenge of RFC 6750 §3 and
// RFC 9728 §5.1.
func (a *authz) challenge(w http.ResponseWriter, status int, code, why string, scopes []string) {
	var b strings.Builder
	b.WriteString("Bearer ")
	if code != "" {
		fmt.Fprintf(&b, "error=%s, ", quote(code))
		if why != "" {
			fmt.Fprintf(&b, "error_description=%s, ", quote(why))
		}
	}
	if len(scopes) > 0 {
		fmt.Fprintf(&b, "scope=%s, ", quote(strings.Join(scopes, " ")))
	}
	fmt.Fprintf(&b, "resource_metadata=%s", quote(a.metaURL))
	w.Header().Set("WWW-Authenticate", b.String())
	msg := why
	if msg == "" {
		msg = "a bearer token is needed; see " + a.metaURL
	}
	http.Error(w, msg, status)
}

// quote writes s as an RFC 9110 quoted-string, keeping its printable ASCII
// characters only.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c >= 0x20 && c < 0x7f:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// lacking returns the scopes of need that have does not hold.
func lacking(have, need []string) []string {
	var out []string
	for _, n := range need {
		if !slices.Contains(have, n) {
			out = append(out, n)
		}
	}
	return out
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// maxPeekBytes bounds the body the server reads before the SDK does, to
// see which tool a POST calls: the SDK's own limit. A larger body is left
// to the SDK, which refuses it.
const maxPeekBytes = mcp.DefaultMaxRequestBodyBytes

// peekCall reads the JSON-RPC message of a POST (and puts it back for the
// SDK) and, when it calls a tool whose scopes the token lacks, returns the
// tool and the scopes missing. This is what lets the server answer 403 and
// the client step up; the call itself is refused in the MCP layer as well
// (callable), whatever the body looks like.
func (s *Server) peekCall(r *http.Request, info *auth.TokenInfo) (string, []string) {
	if r.Body == nil {
		return "", nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxPeekBytes+1))
	if err != nil || len(body) > maxPeekBytes {
		r.Body = readCloser{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
		return "", nil
	}
	r.Body = readCloser{bytes.NewReader(body), r.Body}
	type message struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	var msgs []message
	if t := bytes.TrimLeft(body, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		json.Unmarshal(body, &msgs)
	} else {
		var m message
		if json.Unmarshal(body, &m) == nil {
			msgs = append(msgs, m)
		}
	}
	for _, m := range msgs {
		if m.Method != "tools/call" {
			continue
		}
		if need := lacking(info.Scopes, s.scopesOf(m.Params.Name)); len(need) > 0 {
			return m.Params.Name, need
		}
	}
	return "", nil
}

type readCloser struct {
	io.Reader
	io.Closer
}

// scopesOf returns the scopes a tools/call of name needs: those of the
// registry's tool by that name (or original name), of a built-in tool, or
// none for a name the server does not know (the call answers that).
func (s *Server) scopesOf(name string) []string {
	m := runtime.Meta{Name: name}
	if t, ok := s.reg.Get(name); ok {
		m = t.Meta
	} else if name != runtime.SearchToolsByKeywords && name != runtime.SearchToolsByRegex && name != runtime.UndoLastActions {
		return nil
	}
	return s.authz.scopes(&m)
}

// tokenOf returns the verified token of an MCP request when the server
// checks scopes on it: over HTTP with authorization.
func (s *Server) tokenOf(req mcp.Request) *auth.TokenInfo {
	if !s.authorizing() {
		return nil
	}
	if x := req.GetExtra(); x != nil {
		return x.TokenInfo
	}
	return nil
}

// listable leaves out of metas the tools whose scopes the request's token
// lacks.
func (s *Server) listable(req mcp.Request, metas []runtime.Meta) []runtime.Meta {
	ti := s.tokenOf(req)
	if ti == nil {
		return metas
	}
	out := metas[:0:0]
	for i := range metas {
		if len(lacking(ti.Scopes, s.authz.scopes(&metas[i]))) == 0 {
			out = append(out, metas[i])
		}
	}
	return out
}

// callable refuses a tools/call whose tool needs scopes the request's
// token lacks, as a call of a tool the client is not listed (-32602).
func (s *Server) callable(req *mcp.CallToolRequest) error {
	ti := s.tokenOf(req)
	if ti == nil {
		return nil
	}
	if need := lacking(ti.Scopes, s.scopesOf(req.Params.Name)); len(need) > 0 {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("tool %q needs scope %s, which the token does not hold", req.Params.Name, strings.Join(need, " "))}
	}
	return nil
}

// ResourceMetadataPaths returns the paths at which to mount
// ResourceMetadataHandler: the RFC 9728 address of the resource (the
// well-known prefix inserted before the resource's path, as the 401's
// resource_metadata says), and the root one, which clients try when the
// 401 names none. Nil without WithAuthorization.
func (s *Server) ResourceMetadataPaths() []string {
	if !s.authorizing() || s.authz.ready() != nil {
		return nil
	}
	if s.authz.path == wellKnownResource {
		return []string{wellKnownResource}
	}
	return []string{s.authz.path, wellKnownResource}
}

// ResourceMetadataHandler serves the server's OAuth protected resource
// metadata (RFC 9728): its resource URI, its authorization servers, the
// scopes its tools need (scopes_supported) and that tokens are sent in the
// Authorization header. GET and HEAD are answered, to any origin (CORS);
// OPTIONS is a preflight. Without WithAuthorization it answers 404.
func (s *Server) ResourceMetadataHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.authorizing() || s.authz.ready() != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Access-Control-Allow-Origin", "*")
		switch r.Method {
		case http.MethodGet, http.MethodHead:
		case http.MethodOptions:
			w.Header().Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
			w.Header().Set("Access-Control-Allow-Headers", "Content-Type, MCP-Protocol-Version")
			w.WriteHeader(http.StatusNoContent)
			return
		default:
			w.Header().Set("Allow", "GET, HEAD, OPTIONS")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		c := s.authz.conf
		b, err := json.Marshal(&oauthex.ProtectedResourceMetadata{
			Resource:               c.Resource,
			AuthorizationServers:   c.AuthorizationServers,
			ScopesSupported:        s.scopesSupported(),
			BearerMethodsSupported: []string{"header"},
			ResourceName:           c.ResourceName,
			ResourceDocumentation:  c.ResourceDocumentation,
		})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	})
}

// scopesSupported lists every scope the server asks for: those of every
// request, then those of its tools (the built-in ones too), sorted. It is
// kept until the tools change, so that a 401 costs no walk of the tools.
func (s *Server) scopesSupported() []string {
	if p := s.authz.supported.Load(); p != nil {
		return *p
	}
	out := s.listScopes()
	s.authz.supported.Store(&out)
	return out
}

// forgetScopes drops the scopes kept by scopesSupported: the registry's
// tools changed.
func (s *Server) forgetScopes() {
	if s.authz != nil {
		s.authz.supported.Store(nil)
	}
}

func (s *Server) listScopes() []string {
	var tools []string
	for _, name := range []string{runtime.SearchToolsByKeywords, runtime.SearchToolsByRegex, runtime.UndoLastActions} {
		tools = append(tools, s.scopesOf(name)...)
	}
	for _, t := range s.reg.List() {
		tools = append(tools, s.authz.scopes(&t.Meta)...)
	}
	slices.Sort(tools)
	return union(s.authz.conf.Scopes, slices.Compact(tools))
}
