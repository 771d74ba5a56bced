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
	"net/netip"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The direct path: a tools/call POST that needs nothing of go-sdk's
// streamable transport is answered here, as one application/json
// response, instead of through a per-request session (stateless) or the
// session's stream bookkeeping (stateful). Every check go-sdk's handler
// makes of such a request is made first; a request that fails one, or
// that the direct path does not handle, goes to go-sdk as it came, which
// answers it (with its own error when it is wrong). See the package
// README, "The direct path".

// WithDirectCalls turns the direct path of tools/call over streamable
// HTTP on or off (default on). Off, every request goes through go-sdk's
// transport.
func WithDirectCalls(on bool) Option { return func(s *Server) { s.indirect = !on } }

// maxBodyBytes is the largest request body go-sdk's handler reads (its
// default limit, which the server keeps); a larger one is refused with 413.
const maxBodyBytes = mcp.DefaultMaxRequestBodyBytes

// Keys of a request's _meta that the direct path understands.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// direct answers r when it is a tools/call the direct path serves, and
// reports whether it did; when it did not, it has written nothing and r's
// body reads as it came. c is the request's stateful session (nil for a
// stateless request).
func (s *Server) direct(w http.ResponseWriter, r *http.Request, c *conn) bool {
	if s.indirect || r.Method != http.MethodPost || s.otel.tp != nil || s.otel.mp != nil {
		return false // traced requests take go-sdk's path, where the spans are made
	}
	if len(r.Header.Values("Last-Event-ID")) > 0 || !rebindingSafe(r) ||
		!jsonContent(r.Header.Get("Content-Type")) || !acceptsBoth(r.Header.Values("Accept")) {
		return false
	}
	version := r.Header.Get("Mcp-Protocol-Version")
	var ss *mcp.ServerSession
	if c == nil {
		if version != statelessVersion {
			return false
		}
	} else if ss = c.directSession(r, version); ss == nil {
		return false
	}
	body, ok := readBody(r)
	if !ok {
		return false
	}
	call, ok := parseCall(body, c == nil)
	if !ok {
		return false
	}
	if c == nil {
		// The headers SEP-2243 requires of a 2026-07-28 call: go-sdk
		// answers a mismatch with its error.
		if r.Header.Get("Mcp-Method") != "tools/call" || r.Header.Get("Mcp-Name") != call.params.Name {
			return false
		}
		c = s.statelessConn()
	}
	if c.known(call.params.Name) {
		// A tool with x-mcp-header parameters: go-sdk checks its headers.
		return false
	}
	if c.stateful {
		c.serveDirect(w, r, call, ss)
		return true
	}
	ss, release := s.peer(call)
	defer release()
	c.serveDirect(w, r, call, ss)
	return true
}

// directSession returns the MCP session of a stateful request the direct
// path may serve: an initialized session of this server, whose client
// declared neither elicitation nor sampling and set no log level (so that
// nothing a call may send the client needs the call's own stream), asked
// at the protocol version it negotiated, by the user who opened it.
func (c *conn) directSession(r *http.Request, version string) *mcp.ServerSession {
	ss := c.peer.Load()
	if ss == nil || c.talks.Load() || version == "" || version != c.version {
		return nil
	}
	if c.user != "" {
		if ti := auth.TokenInfoFromContext(r.Context()); ti == nil || ti.UserID != c.user {
			return nil // go-sdk answers 403
		}
	}
	return ss
}

// rebindingSafe reports whether r passes go-sdk's DNS rebinding
// protection: a request that reached a loopback address names a loopback
// host.
func rebindingSafe(r *http.Request) bool {
	a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return !ok || a == nil || !isLoopback(a.String()) || isLoopback(r.Host)
}

func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// jsonContent reports whether a Content-Type is JSON as the direct path
// reads it: exactly application/json, with at most a charset of utf-8
// (anything else goes to go-sdk, which parses it).
func jsonContent(ct string) bool {
	base, params, _ := strings.Cut(ct, ";")
	if !strings.EqualFold(strings.TrimSpace(base), "application/json") {
		return false
	}
	params = strings.TrimSpace(params)
	return params == "" || strings.EqualFold(strings.ReplaceAll(params, " ", ""), "charset=utf-8")
}

// acceptsBoth reports whether the Accept headers take both
// application/json and text/event-stream, as go-sdk requires of a POST.
func acceptsBoth(values []string) bool {
	var jsonOK, streamOK bool
	for _, v := range values {
		for _, raw := range strings.Split(v, ",") {
			base, _, _ := strings.Cut(strings.TrimSpace(raw), ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	return jsonOK && streamOK
}

// readBody reads r's body up to go-sdk's limit and leaves r's body
// reading as it came, for go-sdk if the direct path does not answer. A
// body it cannot read whole, or a larger one, is not returned (go-sdk
// refuses it).
func readBody(r *http.Request) ([]byte, bool) {
	if r.Body == nil {
		return nil, false
	}
	if rc, ok := r.Body.(readCloser); ok {
		if br, ok := rc.Reader.(*bytes.Reader); ok && br.Size() <= maxBodyBytes {
			// Read already by the authorization's peek.
			b := make([]byte, br.Len())
			br.Read(b)
			r.Body = readCloser{bytes.NewReader(b), rc.Closer}
			return b, true
		}
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
	if err != nil || len(b) > maxBodyBytes {
		r.Body = readCloser{io.MultiReader(bytes.NewReader(b), r.Body), r.Body}
		return nil, false
	}
	r.Body = readCloser{bytes.NewReader(b), r.Body}
	return b, true
}

// directCall is a tools/call the direct path serves.
type directCall struct {
	id     jsonrpc.ID
	rawID  string // id as JSON, as go-sdk writes it
	params *mcp.CallToolParamsRaw
	// Of a stateless request's _meta, as sent and as read.
	clientInfo, capabilities json.RawMessage
	info                     *mcp.Implementation
	caps                     *mcp.ClientCapabilities
}

// parseCall reads a tools/call request the direct path serves: one
// JSON-RPC request (not a batch, not a notification) of tools/call whose
// params hold only name, arguments and a _meta with nothing that calls for
// go-sdk (a progress token, a log level, trace context, a task...). A
// stateless request's _meta has the protocol version, capabilities and
// (optionally) client info of 2026-07-28.
func parseCall(body []byte, stateless bool) (directCall, bool) {
	var dc directCall
	if t := bytes.TrimLeft(body, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return dc, false
	}
	req, ok := decodeRequest(body)
	if !ok || !req.IsCall() || req.Method != "tools/call" || len(req.Params) == 0 {
		return dc, false
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(req.Params, &fields) != nil || fields == nil {
		return dc, false
	}
	p := &mcp.CallToolParamsRaw{}
	for k, v := range fields {
		switch k {
		case "name":
			if json.Unmarshal(v, &p.Name) != nil || p.Name == "" {
				return dc, false
			}
		case "arguments":
			p.Arguments = v
		case "_meta":
		default:
			return dc, false // requestState, inputResponses, task, or a member go-sdk reads otherwise
		}
	}
	if p.Name == "" {
		return dc, false
	}
	if raw, ok := fields["_meta"]; ok && string(raw) != "null" {
		var meta map[string]json.RawMessage
		if json.Unmarshal(raw, &meta) != nil {
			return dc, false
		}
		for k, v := range meta {
			switch k {
			case SessionMetaKey:
			case metaProtocolVersion:
				var v28 string
				if !stateless || json.Unmarshal(v, &v28) != nil || v28 != statelessVersion {
					return dc, false
				}
			case metaClientInfo:
				dc.clientInfo = v
			case metaClientCapabilities:
				dc.capabilities = v
			default:
				return dc, false
			}
		}
		if json.Unmarshal(raw, &p.Meta) != nil {
			return dc, false
		}
	}
	if stateless {
		// go-sdk reads a 2026-07-28 call's arguments as values to check
		// the headers against them, and refuses those it cannot (a number
		// beyond float64).
		var args any
		if len(p.Arguments) > 0 && json.Unmarshal(p.Arguments, &args) != nil {
			return dc, false
		}
		// go-sdk refuses a 2026-07-28 call without these; it says why.
		if _, ok := p.Meta[metaProtocolVersion]; !ok || !isObject(dc.capabilities) ||
			(dc.clientInfo != nil && !isObject(dc.clientInfo)) {
			return dc, false
		}
		var caps struct {
			mcp.ClientCapabilities
			Roots *mcp.RootCapabilities `json:"roots,omitempty"` // as go-sdk reads it
		}
		if json.Unmarshal(dc.capabilities, &caps) != nil {
			return dc, false
		}
		dc.caps = &caps.ClientCapabilities
		if dc.caps.RootsV2 = caps.Roots; caps.Roots != nil {
			dc.caps.Roots = *caps.Roots
		}
		if dc.clientInfo != nil && json.Unmarshal(dc.clientInfo, &dc.info) != nil {
			return dc, false
		}
	} else if dc.clientInfo != nil || dc.capabilities != nil {
		return dc, false
	}
	id, _ := marshal(req.ID.Raw())
	dc.id, dc.rawID, dc.params = req.ID, string(id), p
	return dc, true
}

// decodeRequest reads a JSON-RPC request as go-sdk's jsonrpc.DecodeMessage
// does, or stricter (then go-sdk reads it): members matched by their exact
// names, "jsonrpc" of "2.0", an id that is a number, a string or absent,
// at most maxDepth levels of nesting, and nothing after the object. (It
// does not use DecodeMessage, whose stream decoder allocates a buffer of
// tens of kilobytes for each message.)
func decodeRequest(body []byte) (*jsonrpc.Request, bool) {
	if tooDeep(body) {
		return nil, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return nil, false
	}
	var version, method string
	if json.Unmarshal(m["jsonrpc"], &version) != nil || version != "2.0" ||
		m["method"] == nil || json.Unmarshal(m["method"], &method) != nil {
		return nil, false
	}
	var raw any
	if v, ok := m["id"]; ok && json.Unmarshal(v, &raw) != nil {
		return nil, false
	}
	id, err := jsonrpc.MakeID(raw)
	if err != nil {
		return nil, false
	}
	params := m["params"]
	if string(params) == "null" {
		params = nil
	}
	return &jsonrpc.Request{ID: id, Method: method, Params: params}, true
}

// maxDepth is the deepest nesting of objects and arrays go-sdk reads in a
// message.
const maxDepth = 1000

// tooDeep reports whether objects and arrays in data nest deeper than
// maxDepth.
func tooDeep(data []byte) bool {
	depth, inString := 0, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			switch c {
			case '\\':
				i++ // the escaped byte
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			if depth++; depth > maxDepth {
				return true
			}
		case '}', ']':
			depth--
		}
	}
	return false
}

func isObject(raw json.RawMessage) bool {
	t := bytes.TrimLeft(raw, " \t\r\n")
	return len(t) > 0 && t[0] == '{'
}

// serveDirect runs the call as go-sdk's server would (toolcat's
// middleware, handle, then what go-sdk does with a tool's result) and
// writes the JSON-RPC response as application/json.
func (c *conn) serveDirect(w http.ResponseWriter, r *http.Request, dc directCall, ss *mcp.ServerSession) {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	if c.stateful {
		defer context.AfterFunc(c.life, cancel)() // the session ended: so does the call
		if !c.begin(dc.rawID, cancel) {
			writeError(w, http.StatusBadRequest, dc.id, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
				Message: fmt.Sprintf("duplicate in-flight request ID %v", dc.id.Raw())})
			return
		}
		defer c.end(dc.rawID)
	}
	req := &mcp.CallToolRequest{Session: ss, Params: dc.params,
		Extra: &mcp.RequestExtra{TokenInfo: auth.TokenInfoFromContext(r.Context()), Header: r.Header}}
	res, err := c.callDirect(ctx, req)
	var data []byte
	if err == nil {
		data, err = c.encodeResult(res)
	}
	status := http.StatusOK
	if err != nil {
		data, _ = jsonrpc.EncodeMessage(&jsonrpc.Response{ID: dc.id, Error: err})
		if !c.stateful {
			status = errorStatus(err)
		}
	} else {
		// What jsonrpc.EncodeMessage writes of a result, without encoding
		// the result again.
		data = append(append(append(append(make([]byte, 0, len(data)+len(dc.rawID)+32),
			`{"jsonrpc":"2.0","id":`...), dc.rawID...), `,"result":`...), data...)
		data = append(data, '}')
	}
	h := w.Header()
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(data)
}

// callDirect is what go-sdk's server does with a tools/call: the
// receiving middleware (toolcat's checks), the tool's handler, and the
// multi round-trip handling of a result that asks the client for input.
func (c *conn) callDirect(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	c.syncFeatures()
	if err := c.s.callable(req); err != nil {
		return nil, err
	}
	if err := c.check(ctx, req); err != nil {
		return nil, err
	}
	res, err := c.handle(ctx, req)
	if err != nil || res == nil {
		return res, err
	}
	if res.InputRequests != nil && (len(res.Content) > 0 || res.StructuredContent != nil) {
		c.s.logger.Warn("handler returned both content and inputRequests")
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "server bug: result has both content and inputRequests"}
	}
	if c.stateful && res.InputRequests != nil {
		// A client older than 2026-07-28 is asked for the input by the
		// server, and the call runs again with the answers.
		if len(res.InputRequests) == 0 {
			return nil, errors.New("the server is busy, retry later")
		}
		responses, err := fulfil(ctx, req.Session, res.InputRequests)
		if err != nil {
			return nil, err
		}
		p := *req.Params
		p.InputResponses, p.RequestState = responses, res.RequestState
		retry := *req
		retry.Params = &p
		if res, err = c.handle(ctx, &retry); err != nil || res == nil {
			return res, err
		}
	}
	if res.Content == nil && (c.stateful || res.InputRequests == nil) {
		r2 := *res
		r2.Content = []mcp.Content{} // go-sdk sends [] for none
		res = &r2
	}
	return res, nil
}

// fulfil asks the client for each input a result requests, as go-sdk does
// for a client older than 2026-07-28.
func fulfil(ctx context.Context, ss *mcp.ServerSession, requests mcp.InputRequestMap) (mcp.InputResponseMap, error) {
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs []error
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := make(mcp.InputResponseMap, len(requests))
	for id, ir := range requests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var resp mcp.InputResponse
			var err error
			switch p := ir.(type) {
			case *mcp.ElicitParams:
				resp, err = ss.Elicit(ctx, p)
			case *mcp.CreateMessageParams:
				resp, err = ss.CreateMessage(ctx, p)
			case *mcp.CreateMessageWithToolsParams:
				resp, err = ss.CreateMessageWithTools(ctx, p)
			case *mcp.ListRootsParams:
				resp, err = ss.ListRoots(ctx, p)
			default:
				err = fmt.Errorf("unknown input request type: %T", ir)
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, fmt.Errorf("fulfilling input request %q: %w", id, err))
				cancel()
				return
			}
			out[id] = resp
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		return nil, fmt.Errorf("multi-round-trip: %w", errs[0])
	}
	return out, nil
}

// encodeResult encodes a tools/call result as go-sdk does: a 2026-07-28
// result names the server in its _meta and has a resultType.
func (c *conn) encodeResult(res *mcp.CallToolResult) ([]byte, error) {
	if res == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the call has no result"}
	}
	if c.stateful {
		return marshal(res)
	}
	if res.Meta == nil {
		res.Meta = mcp.Meta{}
	}
	if _, ok := res.Meta[metaServerInfo]; !ok {
		res.Meta[metaServerInfo] = &c.s.impl
	}
	kind := `"complete"`
	if res.InputRequests != nil {
		kind = `"input_required"`
	}
	// CallToolResult writes resultType, which only go-sdk sets, after its
	// own members and before inputRequests.
	r2 := *res
	r2.InputRequests = nil
	b, err := marshal(&r2)
	if err != nil {
		return nil, err
	}
	b = b[:len(b)-1] // the closing brace
	if len(b) > 1 {
		b = append(b, ',')
	}
	b = append(b, `"resultType":`...)
	b = append(b, kind...)
	if res.InputRequests != nil {
		ir, err := json.Marshal(res.InputRequests)
		if err != nil {
			return nil, err
		}
		b = append(append(b, `,"inputRequests":`...), ir...)
	}
	return append(b, '}'), nil
}

// marshal encodes v as go-sdk's JSON-RPC layer does: without escaping
// HTML.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// errorStatus is the HTTP status of a 2026-07-28 JSON-RPC error (SEP-2575):
// 404 for a method not found, 400 for invalid params and the protocol's
// own refusals, else 200.
func errorStatus(err error) int {
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		return http.StatusOK
	}
	switch je.Code {
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case jsonrpc.CodeInvalidParams, mcp.CodeUnsupportedProtocolVersion, mcp.CodeMissingRequiredClientCapabilities:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

func writeError(w http.ResponseWriter, status int, id jsonrpc.ID, je *jsonrpc.Error) {
	data, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: je})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(data)
}

// begin records a direct call of the session in flight, so that the
// client may cancel it; false when one with that id is in flight already.
func (c *conn) begin(id string, cancel context.CancelFunc) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, dup := c.inflight[id]; dup {
		return false
	}
	if c.inflight == nil {
		c.inflight = map[string]context.CancelFunc{}
	}
	c.inflight[id] = cancel
	return true
}

func (c *conn) end(id string) {
	c.mu.Lock()
	delete(c.inflight, id)
	c.mu.Unlock()
}

// cancelled cancels the direct call a notifications/cancelled POST of the
// session names, if one is in flight; go-sdk gets the notification too.
func (c *conn) cancelled(r *http.Request) {
	c.mu.Lock()
	n := len(c.inflight)
	c.mu.Unlock()
	if n == 0 || r.Method != http.MethodPost {
		return
	}
	body, ok := readBody(r)
	if !ok {
		return
	}
	var msg struct {
		Method string `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.Method != "notifications/cancelled" {
		return
	}
	var id any
	if json.Unmarshal(msg.Params.RequestID, &id) != nil {
		return
	}
	key, _ := marshal(id)
	c.mu.Lock()
	cancel := c.inflight[string(key)]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// peer returns the MCP session a stateless direct call's tool sees
// (Peer(ctx), Request(ctx).Session), as go-sdk would make it for the
// request: the client's protocol version, capabilities and info from the
// _meta, no log level. It sends nothing: a 2026-07-28 server may not make
// requests of the client, and a notification (log, progress) would need a
// stream, which the direct path never takes a call with a log level or a
// progress token to. Sessions are kept per distinct client, a few.
func (s *Server) peer(dc directCall) (*mcp.ServerSession, func()) {
	key := string(dc.capabilities) + "\x00" + string(dc.clientInfo)
	s.peersMu.Lock()
	ss := s.peers[key]
	s.peersMu.Unlock()
	if ss != nil {
		return ss, func() {}
	}
	ip := &mcp.InitializeParams{ProtocolVersion: statelessVersion, Capabilities: dc.caps, ClientInfo: dc.info}
	ss, err := s.peerServer().Connect(context.Background(), mute{}, &mcp.ServerSessionOptions{
		State: &mcp.ServerSessionState{InitializeParams: ip, InitializedParams: &mcp.InitializedParams{}}})
	if err != nil {
		return nil, func() {}
	}
	s.peersMu.Lock()
	defer s.peersMu.Unlock()
	if old := s.peers[key]; old != nil {
		ss.Close()
		return old, func() {}
	}
	if len(s.peers) >= maxPeers {
		return ss, func() { ss.Close() }
	}
	if s.peers == nil {
		s.peers = map[string]*mcp.ServerSession{}
	}
	s.peers[key] = ss
	return ss, func() {}
}

// maxPeers bounds the sessions peer keeps.
const maxPeers = 64

func (s *Server) peerServer() *mcp.Server {
	s.peersMu.Lock()
	defer s.peersMu.Unlock()
	if s.peerSrv == nil {
		s.peerSrv = mcp.NewServer(&s.impl, &mcp.ServerOptions{Logger: s.logger})
	}
	return s.peerSrv
}

// mute is the transport of peer's sessions: nothing comes in, and nothing
// goes out.
type mute struct{}

func (mute) Connect(context.Context) (mcp.Connection, error) {
	return &muteConn{done: make(chan struct{})}, nil
}

type muteConn struct {
	once sync.Once
	done chan struct{}
}

func (m *muteConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-m.done:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (m *muteConn) Write(context.Context, jsonrpc.Message) error {
	return errors.New("a stateless request has no stream to the client")
}

func (m *muteConn) Close() error {
	m.once.Do(func() { close(m.done) })
	return nil
}

func (m *muteConn) SessionID() string { return "" }
