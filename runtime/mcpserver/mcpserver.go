// Package mcpserver serves a runtime.Registry over the Model Context
// Protocol, on github.com/modelcontextprotocol/go-sdk: stdio (RunStdio) and
// streamable HTTP (Handler), for protocol revision 2025-11-25 (stateful
// sessions) and 2026-07-28 (stateless requests).
//
// Each MCP session is one runtime.Session: tools/list is what the session
// lists now (core tools, the built-in search tools, the hidden tools a
// search promoted), and tools/call runs through Session.Call, the full
// dispatcher.
//
// A stateless request has no MCP session, so its conversation is found
// from what the server can trust: the authenticated principal (the UserID
// of the auth.TokenInfo that go-sdk's bearer-token middleware puts on the
// request) and the conversation name in its _meta (SessionMetaKey), if
// any; see ConversationID. A generic client that sends no _meta is thus in
// its principal's conversation, and its idempotency keys, discovered
// tools and undo journal carry over from one request to the next as over
// stdio; two principals never share one. Requests with neither principal
// nor name share one conversation per server, or are refused (WithAnonymous).
//
// Beside the catalog's tools, a host adds go-sdk prompts, resources,
// resource templates and completions (AddPrompt, AddResource,
// AddResourceTemplate, WithCompletionHandler); stateful streams keep what
// they sent in an event store, so that a client resumes a lost one
// (WithEventStore).
//
// Over streamable HTTP, a plain tools/call (one JSON-RPC request on a
// session or at 2026-07-28, nothing in it that needs a stream: no progress
// token, no log level, a client that takes no elicitation) is answered by
// the server itself as one application/json response, after the checks
// go-sdk's handler makes; every other request goes through go-sdk's
// transport (WithDirectCalls).
//
// The package is the only one of toolcat that links the MCP SDK; runtime
// itself does not import it.
package mcpserver

import (
	"context"
	"crypto/rand"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcat/toolcat/runtime"
)

// Server serves one registry over MCP. Make it with New; it is safe for
// concurrent use, and one Server may run stdio and HTTP at once.
type Server struct {
	reg          *runtime.Registry
	impl         mcp.Implementation
	instructions string
	sessionOpts  func(mcpSessionID string) []runtime.SessionOption
	logger       *slog.Logger
	stateKey     []byte
	idle         time.Duration
	runID        string
	anonymous    AnonymousPolicy
	complete     func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error)
	subscribe    func(context.Context, *mcp.SubscribeRequest) error
	unsubscribe  func(context.Context, *mcp.UnsubscribeRequest) error

	feats     features       // prompts, resources and templates beside the tools
	events    mcp.EventStore // what stateful streams sent, for clients that resume one
	eventsSet bool

	defs sync.Map                    // tool name -> *mcp.Tool, rendered once
	hdrs atomic.Pointer[[]*mcp.Tool] // the tools with x-mcp-header parameters (headerTools)

	handler     http.Handler
	handlerOnce sync.Once

	mu        sync.Mutex
	conns     map[*conn]struct{} // live stateful sessions
	byID      map[string]*conn   // the stateful HTTP sessions that answered initialize, by Mcp-Session-Id
	stateless *conn              // the server of every stateless request
	base      *mcp.Server        // answers the version check of requests in a session

	indirect bool                          // WithDirectCalls(false)
	peersMu  sync.Mutex                    // guards peers, peerSrv
	peers    map[string]*mcp.ServerSession // what stateless direct calls see as their session (direct.go)
	peerSrv  *mcp.Server

	unwatch func() // stops following the registry's tool changes

	authz *authz        // WithAuthorization, WithToolScopes (auth.go)
	otel  serverTracing // spans and metrics of requests (trace.go)
}

// Option configures a Server.
type Option func(*Server)

// WithImplementation sets the name and version the server gives clients
// (default "toolcat", "dev").
func WithImplementation(name, version string) Option {
	return func(s *Server) { s.impl = mcp.Implementation{Name: name, Version: version} }
}

// WithInstructions sets the instructions the server gives clients, which
// they may add to the model's prompt.
func WithInstructions(text string) Option { return func(s *Server) { s.instructions = text } }

// WithSessionOptions gives the options of the runtime.Session of each MCP
// session (autonomy, trust rules, sender, undo tool...), from its id: the
// Mcp-Session-Id of a stateful session, the ConversationID of a stateless
// request (its principal and the name in its _meta), or the run's
// (stdio, WithRunSessionID).
func WithSessionOptions(fn func(mcpSessionID string) []runtime.SessionOption) Option {
	return func(s *Server) { s.sessionOpts = fn }
}

// WithLogger sets where the server logs (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(s *Server) { s.logger = l } }

// WithRequestStateKey sets the key that signs the state an approval asked
// through elicitation carries between a 2026-07-28 client's requests
// (default: a random key per Server). Replicas behind one address need the
// same key, at least 32 bytes.
func WithRequestStateKey(key []byte) Option {
	return func(s *Server) { s.stateKey = append([]byte(nil), key...) }
}

// DefaultSessionTimeout is how long a stateful HTTP session may stay idle
// before the server closes it, unless WithSessionTimeout says otherwise.
// A client whose session was closed gets 404 and starts a new one; the
// runtime.Session's state stays in the registry's SessionStore for its own
// TTL.
const DefaultSessionTimeout = time.Hour

// WithSessionTimeout sets how long a stateful HTTP session may stay idle
// (default DefaultSessionTimeout; 0 or less: never closed, which lets
// clients that never end their sessions hold memory without bound).
func WithSessionTimeout(d time.Duration) Option { return func(s *Server) { s.idle = d } }

// WithEventStore sets where the server keeps what it sent on the SSE
// streams of stateful HTTP sessions (2025-11-25 and older), so that a
// client whose stream broke resumes it (GET with Last-Event-ID, SEP-1699)
// and gets the responses and notifications it missed. The default is an
// mcp.MemoryEventStore of this process (10 MiB at most, oldest events
// dropped first); replicas that share sessions need a store they share.
// nil keeps no events: a lost stream loses what it carried. Stateless
// requests (2026-07-28) have no resumable streams.
func WithEventStore(es mcp.EventStore) Option {
	return func(s *Server) { s.events, s.eventsSet = es, true }
}

// WithRunSessionID sets the id of the runtime.Session that RunStdio and
// Run serve (default: a random one for each run), so that the host can
// find it with Session. Give each process its own when replicas share a
// SessionStore.
func WithRunSessionID(id string) Option { return func(s *Server) { s.runID = id } }

// New returns a server of reg's tools.
func New(reg *runtime.Registry, opts ...Option) *Server {
	s := &Server{
		reg:   reg,
		idle:  DefaultSessionTimeout,
		impl:  mcp.Implementation{Name: "toolcat", Version: "dev"},
		conns: map[*conn]struct{}{},
		byID:  map[string]*conn{},
	}
	for _, o := range opts {
		o(s)
	}
	if s.logger == nil {
		s.logger = slog.Default()
	}
	if !s.eventsSet {
		s.events = mcp.NewMemoryEventStore(nil)
	}
	if len(s.stateKey) < 32 {
		s.stateKey = make([]byte, 32)
		rand.Read(s.stateKey)
	}
	s.base = mcp.NewServer(&s.impl, &mcp.ServerOptions{Logger: s.logger})
	// A tool registered, enabled or disabled (here or, with a shared tool
	// state store, on another replica): clients list again.
	s.unwatch = reg.OnToolsChanged(s.ToolsChanged)
	return s
}

// Close stops the server following the registry's tool changes. Serving
// goes on until its contexts end; a server made for the life of the
// process needs no Close.
func (s *Server) Close() { s.unwatch() }

// RunStdio serves one MCP session on the process's standard input and
// output until the client closes it or ctx ends.
func (s *Server) RunStdio(ctx context.Context) error {
	return s.Run(ctx, &mcp.StdioTransport{})
}

// Run serves one stateful MCP session over t (stdio, pipes, an in-memory
// transport) until the client closes it or ctx ends.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	c := s.newConn(true)
	c.id = s.runID
	if c.id == "" {
		c.id = rand.Text()
	}
	s.track(c)
	defer s.untrack(c)
	return c.srv.Run(ctx, t)
}

// Handler returns the streamable HTTP endpoint (mount it at /mcp). A
// request of protocol revision 2026-07-28 or later (its MCP-Protocol-Version
// header) is served stateless; older ones in stateful sessions, so that the
// server can ask the client for input (elicitation) during a call. Every
// call returns the same handler, which keeps the stateful sessions.
func (s *Server) Handler() http.Handler {
	s.handlerOnce.Do(func() { s.handler = s.protect(s.newHandler()) })
	return s.handler
}

func (s *Server) newHandler() http.Handler {
	// The server closes idle sessions itself (conn.busy, conn.idle), so
	// that the calls it answers on the direct path keep them open too.
	stateful := mcp.NewStreamableHTTPHandler(s.statefulServer, &mcp.StreamableHTTPOptions{Logger: s.logger, EventStore: s.events})
	stateless := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.statelessConn().srv },
		&mcp.StreamableHTTPOptions{Stateless: true, Logger: s.logger, PropagateRequestCancellation: true})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := r.Header.Get("Mcp-Protocol-Version"); v >= statelessVersion {
			if !s.direct(w, r, nil) {
				stateless.ServeHTTP(w, r)
			}
			return
		}
		if c := s.sessionConn(r); c != nil {
			c.busy()
			defer c.idle()
			if s.direct(w, r, c) {
				return
			}
			c.cancelled(r)
		}
		sl := new(slot)
		stateful.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), slotKey{}, sl)))
		if sl.c != nil && sl.c.peer.Load() == nil && !sl.c.open() {
			sl.c.stopIdle() // its initialize failed: go-sdk closed the session
		}
	})
}

// sessionConn returns the initialized stateful session a POST names, nil
// for none (go-sdk answers the request).
func (s *Server) sessionConn(r *http.Request) *conn {
	id := r.Header.Get("Mcp-Session-Id")
	if id == "" || r.Method != http.MethodPost {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byID[id]
}

// statelessVersion is the first protocol revision without sessions.
const statelessVersion = "2026-07-28"

type slotKey struct{}

// slot keeps the server made for a request that starts a session: the
// handler asks for it twice.
type slot struct{ c *conn }

// statefulServer gives the streamable handler the server of a request: a
// new one (one per session) for a request that starts a session, else a
// bare one, which the handler only asks for the protocol versions it
// supports before it finds the request's session.
func (s *Server) statefulServer(r *http.Request) *mcp.Server {
	sl, _ := r.Context().Value(slotKey{}).(*slot)
	if r.Header.Get("Mcp-Session-Id") != "" || r.Method != http.MethodPost || sl == nil {
		return s.base
	}
	if sl.c == nil {
		sl.c = s.newConn(true)
		if ti := auth.TokenInfoFromContext(r.Context()); ti != nil {
			sl.c.user = ti.UserID // go-sdk binds the session to this user too
		}
		sl.c.startIdle(s.idle)
	}
	return sl.c.srv
}

func (s *Server) statelessConn() *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stateless == nil {
		s.stateless = s.newConn(false)
	}
	return s.stateless
}

func (s *Server) track(c *conn) {
	s.mu.Lock()
	s.conns[c] = struct{}{}
	s.mu.Unlock()
}

func (s *Server) untrack(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	if s.byID[c.id] == c {
		delete(s.byID, c.id)
	}
	s.mu.Unlock()
}

// Session returns the runtime.Session of id (an Mcp-Session-Id, or a
// StatelessSessionID), with the
// options WithSessionOptions gives it: a host approves or denies there the
// calls a client without elicitation could not ask the user about
// (Session.Approve with the envelope's details.call_id), or reads the
// session's journal.
func (s *Server) Session(mcpSessionID string) *runtime.Session {
	var opts []runtime.SessionOption
	if s.sessionOpts != nil {
		opts = s.sessionOpts(mcpSessionID)
	}
	return s.reg.Session(mcpSessionID, opts...)
}

// ToolsChanged tells every client that the tool list may have changed
// (notifications/tools/list_changed, or its 2026-07-28 subscription form),
// so that clients list them again; tools registered since New become
// callable. The server calls it itself when the registry's tools change
// (Registry.OnToolsChanged): registered, enabled or disabled.
func (s *Server) ToolsChanged() {
	s.defs.Clear()
	s.forgetScopes()
	s.hdrs.Store(nil)
	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns)+1)
	for c := range s.conns {
		conns = append(conns, c)
	}
	if s.stateless != nil {
		conns = append(conns, s.stateless)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.registerTools()
		c.notify()
	}
}

// Content is implemented by a tool result that the client should get as
// MCP content blocks (an image, audio, an embedded resource, several
// blocks) rather than as JSON: a successful call whose Result.Data
// implements it is answered with the blocks MCPContent returns, and no
// structuredContent. A replayed result has lost its Go type and is sent as
// JSON.
type Content interface {
	MCPContent() []mcp.Content
}

// ToolResult is implemented by a tool result that is sent as the
// tools/call result it returns, as it is: content blocks, structuredContent,
// isError, or the inputRequests and requestState of a 2026-07-28
// input_required result (the client retries the call with its answers,
// which the tool reads from Request(ctx).Params.InputResponses). It takes
// precedence over Content; a nil result falls back to the envelope. A
// replayed result has lost its Go type and is sent as JSON.
type ToolResult interface {
	MCPResult() *mcp.CallToolResult
}

// ProtocolError is implemented by a tool result that answers the call
// with a JSON-RPC error instead of a result, such as -32021 (a client
// capability the call needs and the client did not declare): a successful
// call whose Result.Data implements it, and whose MCPError is not nil, is
// answered with that error (a *jsonrpc.Error keeps its code and data).
// Tool failures the model should read are envelopes, not protocol errors.
type ProtocolError interface {
	MCPError() error
}

type peerKey struct{}

type requestKey struct{}

// Request returns the tools/call request running in ctx (its _meta, its
// progress token, and on a retried call its inputResponses and
// requestState), nil outside an MCP call.
func Request(ctx context.Context) *mcp.CallToolRequest {
	r, _ := ctx.Value(requestKey{}).(*mcp.CallToolRequest)
	return r
}

// Peer returns the MCP session of the tool call running in ctx, for a tool
// that logs to the client (Log), asks it for a completion (CreateMessage)
// or for input (Elicit); nil outside an MCP call.
func Peer(ctx context.Context) *mcp.ServerSession {
	ss, _ := ctx.Value(peerKey{}).(*mcp.ServerSession)
	return ss
}
