package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/export"
)

// SessionMetaKey is the _meta member by which a stateless (2026-07-28)
// request names its conversation, so that what a session keeps (hidden
// tools promoted by a search, taint, calls waiting for approval, the undo
// journal) carries over from one request to the next. A request without it
// is a conversation of its own.
const SessionMetaKey = "toolcat/session"

// maxSessionName bounds the conversation a stateless request names; a
// longer name is read as none.
const maxSessionName = 200

// StatelessSessionID is the id of the runtime.Session of the stateless
// requests that name the conversation name in their _meta (SessionMetaKey):
// "meta/" + name. The prefix keeps them apart from stateful sessions, whose
// ids are their Mcp-Session-Id, so that a request cannot name its way into
// another client's session.
func StatelessSessionID(name string) string { return "meta/" + name }

// conn is one mcp.Server and what it serves: one stateful session, or
// every stateless request.
type conn struct {
	s        *Server
	srv      *mcp.Server
	stateful bool
	id       string // the toolcat session of a stateful conn

	once sync.Once
	sess *runtime.Session

	mu         sync.Mutex
	registered map[string]bool // names the mcp.Server routes to handle
	anchor     *mcp.Tool       // re-added to make the SDK send list_changed
	listed     []string        // what the session listed last (stateful)
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
	c.srv = mcp.NewServer(&s.impl, opts)
	c.srv.AddReceivingMiddleware(c.middleware)
	c.registerTools()
	return c
}

// registerTools routes every name the registry and the session's built-in
// tools may answer to handle, a tool's original (wire) name too. A registry tool is registered with its
// input schema, so that the SDK checks the x-mcp-header parameters a
// 2026-07-28 client sends against it.
func (c *conn) registerTools() {
	names := append(slices.Clone(c.s.reg.Names()), runtime.SearchToolsByKeywords, runtime.SearchToolsByRegex, runtime.UndoLastActions)
	for _, n := range c.s.reg.Names() {
		if tool, ok := c.s.reg.Get(n); ok && tool.Meta.OriginalName != "" {
			names = append(names, tool.Meta.OriginalName) // the name clients call it by
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range names {
		if c.registered[n] {
			continue
		}
		t := &mcp.Tool{Name: n, InputSchema: placeholder}
		if tool, ok := c.s.reg.Get(n); ok {
			if d, err := c.s.definition(&tool.Meta); err == nil {
				t.InputSchema = d.InputSchema
			}
		}
		if err := c.add(t); err != nil {
			c.s.logger.Error("mcpserver: the SDK refuses the tool's input schema; its x-mcp-header parameters are not checked", "tool", n, "err", err)
			t = &mcp.Tool{Name: n, InputSchema: placeholder}
			c.add(t)
		}
		c.registered[n] = true
		if c.anchor == nil {
			c.anchor = t
		}
	}
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

// session returns the runtime.Session of a request.
func (c *conn) session(req mcp.Request) *runtime.Session {
	if c.stateful {
		c.once.Do(func() {
			if c.id == "" {
				c.id = rand.Text()
			}
			c.sess = c.s.Session(c.id)
		})
		return c.sess
	}
	var meta map[string]any
	switch r := req.(type) {
	case *mcp.ListToolsRequest:
		if r.Params != nil {
			meta = r.Params.GetMeta()
		}
	case *mcp.CallToolRequest:
		if r.Params != nil {
			meta = r.Params.GetMeta()
		}
	}
	name, _ := meta[SessionMetaKey].(string)
	if name == "" || len(name) > maxSessionName {
		name = "anonymous-" + rand.Text()
	}
	return c.s.Session(StatelessSessionID(name))
}

func (c *conn) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if offersNot(method) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
				Message: "method not found: this server offers tools only, not " + method}
		}
		switch method {
		case "tools/list":
			if r, ok := req.(*mcp.ListToolsRequest); ok {
				return c.list(ctx, r)
			}
		case "tools/call":
			if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil {
				if err := c.check(ctx, r); err != nil {
					return nil, err
				}
			}
		}
		return next(ctx, method, req)
	}
}

// offersNot reports whether method belongs to a feature the server does
// not declare (resources, prompts, completion), which the SDK would
// otherwise answer with empty lists.
func offersNot(method string) bool {
	return strings.HasPrefix(method, "resources/") || strings.HasPrefix(method, "prompts/") || method == "completion/complete"
}

// list answers tools/list: the session's tools, in its order.
func (c *conn) list(ctx context.Context, req *mcp.ListToolsRequest) (*mcp.ListToolsResult, error) {
	if req.Params != nil && req.Params.Cursor != "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid cursor: this server lists every tool in one page"}
	}
	metas, err := c.session(req).Tools(ctx)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the session's state is unavailable: " + err.Error()}
	}
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
	metas, err := c.session(req).Tools(ctx)
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
