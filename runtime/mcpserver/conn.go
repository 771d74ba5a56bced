package mcpserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/export"
)

// conn is one mcp.Server and what it serves: one stateful session, or
// every stateless request.
type conn struct {
	s        *Server
	srv      *mcp.Server
	stateful bool
	id       string // the toolcat session of a stateful conn

	once sync.Once
	sess *runtime.Session

	feats applied // what of the host's prompts and resources srv has

	mu         sync.Mutex
	registered map[string]bool               // tools the mcp.Server knows by name (headerTools)
	anchor     *mcp.Tool                     // the route, re-added to make the SDK send list_changed
	listed     []string                      // what the session listed last (stateful)
	inflight   map[string]context.CancelFunc // direct calls of the session, by JSON-RPC id (direct.go)

	// A stateful HTTP session, for the direct path (direct.go).
	peer    atomic.Pointer[mcp.ServerSession] // set once it answered initialize
	version string                            // the protocol version it negotiated
	user    string                            // the user who opened it, when authenticated
	talks   atomic.Bool                       // the client takes elicitation or sampling, or set a log level
	life    context.Context                   // ends with the session
	endLife context.CancelFunc
	timer   idleTimer
}

// opened makes a stateful HTTP session that answered initialize (at
// version) one whose calls may take the direct path: from then on go-sdk
// takes them too. Its end forgets it.
func (c *conn) opened(ss *mcp.ServerSession, version string) {
	if !c.timer.on() || c.id == "" || ss == nil || c.peer.Load() != nil {
		return // stdio, not the session's server, or opened already
	}
	c.version = version // published by peer below
	if ip := ss.InitializeParams(); ip != nil && ip.Capabilities != nil &&
		(ip.Capabilities.Elicitation != nil || ip.Capabilities.Sampling != nil) {
		c.talks.Store(true)
	}
	if !c.peer.CompareAndSwap(nil, ss) {
		return
	}
	c.s.mu.Lock()
	c.s.byID[c.id] = c
	c.s.mu.Unlock()
	go func() {
		ss.Wait()
		c.endLife()
		c.stopIdle()
		c.s.untrack(c)
	}()
}

// placeholder is the input schema of the tools registered with the SDK's
// server: it routes calls to handle and never lists them (tools/list is
// answered from the session), so no schema of its is ever sent.
var placeholder = json.RawMessage(`{"type":"object"}`)

func (s *Server) newConn(stateful bool) *conn {
	c := &conn{s: s, stateful: stateful, registered: map[string]bool{}}
	opts := &mcp.ServerOptions{
		Instructions: s.instructions,
		Logger:       s.logger,
		Capabilities: &mcp.ServerCapabilities{
			Tools:   &mcp.ToolCapabilities{ListChanged: true},
			Logging: &mcp.LoggingCapabilities{},
		},
		CompletionHandler:  s.complete,
		SubscribeHandler:   s.subscribe,
		UnsubscribeHandler: s.unsubscribe,
	}
	if stateful {
		// Called once, when the streamable handler starts the session:
		// the MCP session id is the toolcat session's.
		opts.GetSessionID = func() string {
			c.id = rand.Text()
			return c.id
		}
		opts.InitializedHandler = func(_ context.Context, req *mcp.InitializedRequest) {
			s.track(c)
			go func() {
				req.Session.Wait()
				s.untrack(c)
			}()
		}
	}
	if stateful {
		// ends with the session (opened)
		c.life, c.endLife = context.WithCancel(context.Background())
	}
	c.srv = mcp.NewServer(&s.impl, opts)
	c.srv.AddReceivingMiddleware(c.middleware)
	c.srv.AddReceivingMiddleware(s.traceMiddleware()...) // outermost: the span covers the checks too
	c.registerTools()
	c.syncFeatures()
	return c
}

// routeName is the tool the SDK's server routes to handle every call of
// a tool it does not know by name (see middleware). It is never listed:
// tools/list is answered from the session.
const routeName = "toolcat.route"

type routedKey struct{}

// registerTools registers with the SDK's server the route of every call,
// and the tools whose input schema has x-mcp-header parameters, by name
// and original (wire) name, with that schema: the SDK checks the headers a
// 2026-07-28 client sends for them against it. No other tool is
// registered, so that a new session costs the same for 10 tools or 1,000.
func (c *conn) registerTools() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.anchor == nil {
		c.anchor = &mcp.Tool{Name: routeName, InputSchema: placeholder}
		c.add(c.anchor)
	}
	for _, h := range c.s.headerTools() {
		if c.registered[h.Name] {
			continue
		}
		if err := c.add(h); err != nil {
			c.s.logger.Error("mcpserver: the SDK refuses the tool's input schema; its x-mcp-header parameters are not checked", "tool", h.Name, "err", err)
			continue
		}
		c.registered[h.Name] = true
	}
}

// known reports whether the SDK's server knows the tool name itself.
func (c *conn) known(name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.registered[name]
}

// headerTools returns the registry's tools with x-mcp-header parameters,
// by name and by original name, with their input schemas: found once per
// set of tools.
func (s *Server) headerTools() []*mcp.Tool {
	if p := s.hdrs.Load(); p != nil {
		return *p
	}
	var out []*mcp.Tool
	for _, n := range s.reg.Names() {
		tool, ok := s.reg.Get(n)
		if !ok || !bytes.Contains(tool.Meta.ArgsSchema, []byte("x-mcp-header")) {
			continue
		}
		d, err := s.definition(&tool.Meta)
		if err != nil {
			continue
		}
		out = append(out, &mcp.Tool{Name: n, InputSchema: d.InputSchema})
		if o := tool.Meta.OriginalName; o != "" && o != n {
			out = append(out, &mcp.Tool{Name: o, InputSchema: d.InputSchema}) // the name clients call it by
		}
	}
	s.hdrs.Store(&out)
	return out
}

// add registers t with the SDK's server, which panics on a schema it
// refuses.
func (c *conn) add(t *mcp.Tool) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	c.srv.AddTool(t, c.handle)
	return nil
}

// notify makes the SDK send notifications/tools/list_changed to the
// conn's sessions (after a short delay that merges changes): re-adding a
// tool counts as a change.
func (c *conn) notify() {
	c.mu.Lock()
	a := c.anchor
	c.mu.Unlock()
	if a != nil {
		c.add(a)
	}
}

// session returns the runtime.Session of a request: its stateful
// session's, or the conversation of a stateless one (ConversationID). A
// stateless tools/call that no conversation can be found for is refused
// under AnonymousRefused.
func (c *conn) session(req mcp.Request) (*runtime.Session, error) {
	if c.stateful {
		c.once.Do(func() {
			if c.id == "" {
				c.id = rand.Text()
			}
			c.sess = c.s.Session(c.id)
		})
		return c.sess, nil
	}
	id, refusal, err := c.s.statelessScope(req)
	if err != nil {
		return nil, err
	}
	if _, call := req.(*mcp.CallToolRequest); call && refusal != nil {
		return nil, refusal
	}
	return c.s.Session(id), nil
}

func (c *conn) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		c.syncFeatures()
		if !c.s.offers(method) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
				Message: "method not found: this server offers no " + method}
		}
		switch method {
		case "initialize":
			res, err := next(ctx, method, req)
			if ir, ok := res.(*mcp.InitializeResult); ok && err == nil {
				c.opened(req.GetSession().(*mcp.ServerSession), ir.ProtocolVersion)
			}
			return res, err
		case "logging/setLevel":
			c.talks.Store(true) // log messages go on the call's stream: go-sdk's path
		case "tools/list":
			if r, ok := req.(*mcp.ListToolsRequest); ok {
				return c.list(ctx, r)
			}
		case "tools/call":
			if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil {
				if err := c.s.callable(r); err != nil {
					return nil, err
				}
				if err := c.check(ctx, r); err != nil {
					return nil, err
				}
				if name := r.Params.Name; !c.known(name) {
					// The SDK's server routes it to handle, which calls
					// the tool by the name kept in ctx.
					ctx = context.WithValue(ctx, routedKey{}, name)
					r.Params.Name = routeName
				}
			}
		}
		return next(ctx, method, req)
	}
}

// list answers tools/list: the session's tools, in its order.
func (c *conn) list(ctx context.Context, req *mcp.ListToolsRequest) (*mcp.ListToolsResult, error) {
	if req.Params != nil && req.Params.Cursor != "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid cursor: this server lists every tool in one page"}
	}
	sess, err := c.session(req)
	if err != nil {
		return nil, err
	}
	metas, err := sess.Tools(ctx)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the session's state is unavailable: " + err.Error()}
	}
	metas = c.s.listable(req, metas) // the tools the token's scopes allow
	res := &mcp.ListToolsResult{Tools: make([]*mcp.Tool, 0, len(metas))}
	res.CacheScope = "private" // the list is the session's, and changes with it
	names := make([]string, 0, len(metas))
	for i := range metas {
		t, err := c.s.definition(&metas[i])
		if err != nil {
			c.s.logger.Error("mcpserver: tool left out of tools/list", "tool", metas[i].Name, "err", err)
			continue
		}
		res.Tools = append(res.Tools, t)
		names = append(names, t.Name)
	}
	if c.stateful {
		c.mu.Lock()
		c.listed = names
		c.mu.Unlock()
	}
	return res, nil
}

// check answers a call of a tool the session does not list with the
// protocol error the spec names for an unknown tool (-32602), with what the
// registry says about the name.
func (c *conn) check(ctx context.Context, req *mcp.CallToolRequest) error {
	name := req.Params.Name
	if c.stateful {
		c.mu.Lock()
		ok := slices.Contains(c.listed, name)
		c.mu.Unlock()
		if ok {
			return nil
		}
	}
	sess, err := c.session(req)
	if err != nil {
		return err
	}
	metas, err := sess.Tools(ctx)
	if err != nil {
		return nil // the call answers dependency_unavailable itself
	}
	for i := range metas {
		if metas[i].Name == name || metas[i].WireName() == name {
			return nil
		}
	}
	if st, ok := c.s.reg.ToolStatus(name); ok && st.State != runtime.ToolEnabled {
		return nil // switched off by an operator: the call answers permission_denied with the reason
	}
	msg := fmt.Sprintf("unknown tool %q", name)
	if _, ok := c.s.reg.Get(name); ok {
		msg += ": it is not listed in this session; a hidden tool is listed once " +
			runtime.SearchToolsByKeywords + " or " + runtime.SearchToolsByRegex + " finds it"
	} else if res := c.s.reg.Call(ctx, name, nil, runtime.CallOptions{}); res.Error != nil {
		msg += ": " + res.Error.Message
		if res.Error.Suggestion != "" {
			msg += ". " + res.Error.Suggestion
		}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
}

// changed lists the session's tools again after a call that may have
// promoted hidden ones, and tells the client when the list changed.
func (c *conn) changed(ctx context.Context, sess *runtime.Session) {
	metas, err := sess.Tools(ctx)
	if err != nil {
		return
	}
	names := make([]string, len(metas))
	for i := range metas {
		names[i] = metas[i].Name
	}
	if c.stateful {
		c.mu.Lock()
		same := slices.Equal(names, c.listed)
		c.listed = names
		c.mu.Unlock()
		if same {
			return
		}
	}
	c.notify()
}

// definition renders a tool as tools/list lists it, with runtime/export's
// MCP exporter (the model's idempotency_key argument included).
func (s *Server) definition(m *runtime.Meta) (*mcp.Tool, error) {
	if t, ok := s.defs.Load(m.Name); ok {
		return t.(*mcp.Tool), nil
	}
	b, err := export.MCP([]runtime.Meta{*m}, export.IncludeHidden())
	if err != nil {
		return nil, err
	}
	var out struct {
		Tools []struct {
			Name         string          `json:"name"`
			Description  string          `json:"description"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	if len(out.Tools) != 1 {
		return nil, fmt.Errorf("the MCP exporter rendered %d tools for %s", len(out.Tools), m.Name)
	}
	d := out.Tools[0]
	a := export.AnnotationsOf(m)
	t := &mcp.Tool{
		Name:        d.Name,
		Description: d.Description,
		InputSchema: d.InputSchema,
		Annotations: &mcp.ToolAnnotations{
			ReadOnlyHint:    a.ReadOnlyHint,
			DestructiveHint: &a.DestructiveHint,
			IdempotentHint:  a.IdempotentHint,
			OpenWorldHint:   &a.OpenWorldHint,
		},
	}
	// Untrusted output is sent as its wrapped envelope only, never as
	// structuredContent (which a client may hand the model unwrapped), so
	// such a tool declares no outputSchema.
	if len(d.OutputSchema) > 0 && !m.ReturnsUntrusted {
		t.OutputSchema = d.OutputSchema
	}
	s.defs.Store(m.Name, t)
	return t, nil
}

// idleTimer closes a stateful HTTP session that no POST has been running
// in for its timeout (WithSessionTimeout), as go-sdk's handler would, but
// counting the calls the direct path answers too.
type idleTimer struct {
	mu   sync.Mutex
	d    time.Duration
	refs int
	t    *time.Timer
	set  bool // an HTTP session's, even without a timeout
}

// startIdle starts the session's timer: d of no POST closes it (d <= 0:
// never).
func (c *conn) startIdle(d time.Duration) {
	it := &c.timer
	it.mu.Lock()
	defer it.mu.Unlock()
	it.set, it.d = true, d
	if d > 0 {
		it.t = time.AfterFunc(d, c.close)
	}
}

// on reports whether the conn serves an HTTP session.
func (it *idleTimer) on() bool {
	it.mu.Lock()
	defer it.mu.Unlock()
	return it.set
}

// busy and idle bracket a POST of the session.
func (c *conn) busy() {
	it := &c.timer
	it.mu.Lock()
	defer it.mu.Unlock()
	if it.t == nil {
		return
	}
	if it.refs == 0 {
		it.t.Stop()
	}
	it.refs++
}

func (c *conn) idle() {
	it := &c.timer
	it.mu.Lock()
	defer it.mu.Unlock()
	if it.t == nil {
		return
	}
	if it.refs--; it.refs == 0 {
		it.t.Reset(it.d)
	}
}

// stopIdle stops the timer for good: the session ended.
func (c *conn) stopIdle() {
	it := &c.timer
	it.mu.Lock()
	defer it.mu.Unlock()
	if it.t != nil {
		it.t.Stop()
		it.t = nil
	}
}

// open reports whether the conn's server has a session.
func (c *conn) open() bool {
	for range c.srv.Sessions() {
		return true
	}
	return false
}

// close closes the conn's session (idle for too long).
func (c *conn) close() {
	for ss := range c.srv.Sessions() {
		ss.Close()
	}
}
