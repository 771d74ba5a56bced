package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/mcpserver"
)

// rawEndpoint is a server under test, reached with hand-made HTTP
// requests: its URL and, at 2025-11-25, the session opened on it.
type rawEndpoint struct {
	url, session string
}

// answer is what a server answered an HTTP request: its status, content
// type and JSON-RPC message (the data of the SSE message event, or the
// body).
type answer struct {
	status int
	ctype  string
	msg    string
}

func (a answer) String() string { return fmt.Sprintf("%d %s %s", a.status, a.ctype, a.msg) }

// send posts body to e with headers h (and, stateful, the session's).
func (e rawEndpoint) send(t testing.TB, body []byte, h http.Header) answer {
	t.Helper()
	a, err := e.try(body, h)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func (e rawEndpoint) try(body []byte, h http.Header) (answer, error) {
	req, err := http.NewRequest(http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return answer{}, err
	}
	for k, v := range h {
		req.Header[k] = v
	}
	if e.session != "" && h.Get("Mcp-Session-Id") == "" {
		req.Header.Set("Mcp-Session-Id", e.session)
	}
	if hh := h.Get("Host"); hh != "" {
		req.Host = hh
		req.Header.Del("Host")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, ctype: resp.Header.Get("Content-Type"), msg: strings.TrimSpace(string(b))}
	if strings.HasPrefix(a.ctype, "text/event-stream") {
		a.msg = ""
		for _, ev := range strings.Split(string(b), "\n\n") {
			if strings.Contains(ev, "event: message") {
				for _, line := range strings.Split(ev, "\n") {
					if d, ok := strings.CutPrefix(line, "data: "); ok {
						a.msg += d
					}
				}
			}
		}
	}
	return a, nil
}

// openRaw opens a stateful session on url with hand-made requests.
func openRaw(t testing.TB, url, version string) rawEndpoint {
	t.Helper()
	e := rawEndpoint{url: url}
	h := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	init := fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"raw","version":"1"}}}`, version)
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(init))
	req.Header = h.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if e.session = resp.Header.Get("Mcp-Session-Id"); e.session == "" {
		t.Fatalf("initialize: %s, no session id", resp.Status)
	}
	h.Set("Mcp-Protocol-Version", version)
	if a := e.send(t, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`), h); a.status != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %v", a)
	}
	return e
}

// callBody is a tools/call request of the revision, with params' members
// (JSON, without braces) and, at 2026-07-28, the _meta go-sdk's client
// sends plus metaExtra.
func callBody(version string, id any, params, metaExtra string) []byte {
	meta := ""
	if version >= "2026-07-28" {
		meta = `"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"`
	}
	if metaExtra != "" {
		if meta != "" {
			meta += ","
		}
		meta += metaExtra
	}
	if meta != "" {
		meta = `"_meta":{` + meta + `}`
		if params != "" {
			meta += ","
		}
	}
	idJSON, _ := json.Marshal(id)
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{%s%s}}`, idJSON, meta, params))
}

// callHeaders are the headers go-sdk's client sends with a tools/call of
// tool.
func callHeaders(version, tool string) http.Header {
	h := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
		"Mcp-Protocol-Version": {version}}
	if version >= "2026-07-28" {
		h.Set("Mcp-Method", "tools/call")
		h.Set("Mcp-Name", tool)
	}
	return h
}

// echoTool returns its text, so that a test can send what JSON escapes.
var echoTool = runtime.Tool{
	Meta: runtime.Meta{Name: "echo", Description: "Says the text again.", Risk: runtime.RiskLow,
		ArgsSchema: schema(`{"type":"object","properties":{"text":{"type":"string"}}}`)},
	Execute: func(_ context.Context, args any) (any, error) {
		var a struct {
			Text string `json:"text"`
		}
		b, _ := json.Marshal(args)
		json.Unmarshal(b, &a)
		return map[string]any{"text": a.Text}, nil
	},
}

// TestDirectPath sends the same hand-made requests to a server with the
// direct path and to one without (every request through go-sdk's
// transport), each on its own registry, and compares the answers: the
// HTTP status and the JSON-RPC message, byte for byte. The direct path
// answers application/json where go-sdk streams, which is how the test
// knows which path answered; each case says which should.
func TestDirectPath(t *testing.T) {
	big := `"arguments":{"text":"` + strings.Repeat("x", 5<<20) + `"}`
	deep := `"arguments":{"text":` + strings.Repeat("[", 1100) + strings.Repeat("]", 1100) + `}`
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		stateless := version >= "2026-07-28"
		t.Run(version, func(t *testing.T) {
			ends := map[bool]rawEndpoint{}
			for _, direct := range []bool{true, false} {
				reg, _ := newRegistry(t)
				reg.MustRegister(echoTool)
				srv := mcpserver.New(reg, mcpserver.WithLogger(quiet()), mcpserver.WithDirectCalls(direct))
				hs := httptest.NewServer(srv.Handler())
				t.Cleanup(hs.Close)
				ends[direct] = rawEndpoint{url: hs.URL}
				if !stateless {
					ends[direct] = openRaw(t, hs.URL, version)
				}
			}
			type tc struct {
				desc    string
				body    []byte
				hdr     func(http.Header)
				direct  bool // the direct path answers it
				only    string
				session string // a made-up session id
			}
			call := func(params string) []byte { return callBody(version, 7, params, "") }
			cases := []tc{
				{desc: "a call", body: call(`"name":"get_note","arguments":{"id":7}`), direct: true},
				{desc: "a string id", body: callBody(version, "call-1", `"name":"get_note","arguments":{"id":7}`, ""), direct: true},
				{desc: "an id with HTML", body: callBody(version, "<a&b>\u2028", `"name":"get_note","arguments":{"id":7}`, ""), direct: true},
				{desc: "a large id", body: []byte(strings.Replace(string(call(`"name":"get_note","arguments":{"id":7}`)), `"id":7,`, `"id":1e3,`, 1)), direct: true},
				{desc: "a fractional id", body: []byte(strings.Replace(string(call(`"name":"get_note","arguments":{"id":7}`)), `"id":7,`, `"id":1.5,`, 1)), direct: true},
				{desc: "a tool's not_found", body: call(`"name":"get_note","arguments":{"id":404}`), direct: true},
				{desc: "invalid arguments", body: call(`"name":"get_note","arguments":{"id":"seven"}`), direct: true},
				{desc: "no arguments", body: call(`"name":"get_note"`), direct: true},
				{desc: "null arguments", body: call(`"name":"get_note","arguments":null`), direct: true},
				{desc: "arguments not an object", body: call(`"name":"get_note","arguments":[1]`), direct: true},
				{desc: "an unknown tool", body: call(`"name":"no_such_tool","arguments":{}`), direct: true},
				{desc: "a number beyond float64", body: call(`"name":"get_note","arguments":{"id":1e400}`), direct: true, only: "2025-11-25"},
				{desc: "a number beyond float64", body: call(`"name":"get_note","arguments":{"id":1e400}`), only: "2026-07-28"}, // go-sdk cannot read it for the headers' check
				{desc: "a hidden tool not found yet", body: call(`"name":"delete_note","arguments":{"id":1}`), direct: true},
				{desc: "HTML in the result", body: call(`"name":"echo","arguments":{"text":"<b>&amp;</b> \u2028"}`), direct: true},
				{desc: "untrusted output", body: call(`"name":"fetch_page","arguments":{}`), direct: true},
				{desc: "content blocks", body: call(`"name":"draw_dot","arguments":{}`), direct: true},
				{desc: "a broken result", body: call(`"name":"draw_broken","arguments":{}`), direct: true},
				{desc: "a protocol error", body: call(`"name":"summarize_with_model","arguments":{}`), direct: true},
				{desc: "a tool that asks for input", body: call(`"name":"greet_user","arguments":{}`), direct: true},
				{desc: "a conversation name", body: callBody(version, 7, `"name":"get_note","arguments":{"id":7}`, `"toolcat/session":"conv-1"`), direct: true},
				{desc: "a conversation name that is no string", body: callBody(version, 7, `"name":"get_note","arguments":{"id":7}`, `"toolcat/session":5`), direct: true, only: "2026-07-28"},
				{desc: "a progress token", body: callBody(version, 7, `"name":"count_slowly","arguments":{}`, `"progressToken":"p1"`)},
				{desc: "trace context", body: callBody(version, 7, `"name":"get_note","arguments":{"id":7}`, `"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"`)},
				{desc: "a log level", body: callBody(version, 7, `"name":"get_note","arguments":{"id":7}`, `"io.modelcontextprotocol/logLevel":"debug"`), only: "2026-07-28"},
				{desc: "a requestState", body: call(`"name":"greet_user","arguments":{},"requestState":"asked","inputResponses":{"name":{"action":"accept","content":{"name":"Ada"}}}`)},
				{desc: "a name twice", body: call(`"name":"echo","name":"get_note","arguments":{"id":7}`), direct: true},
				{desc: "a name not UTF-8", body: call("\"name\":\"get_\xffnote\",\"arguments\":{}"), direct: true},
				{desc: "no name", body: call(`"arguments":{}`)},
				{desc: "a name that is no string", body: call(`"name":5`)},
				{desc: "a name in capitals", body: call(`"Name":"get_note"`)},
				{desc: "a notification", body: []byte(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"get_note","arguments":{"id":7}}}`)},
				{desc: "a batch", body: []byte(`[` + string(call(`"name":"get_note","arguments":{"id":7}`)) + `]`)},
				{desc: "not JSON", body: []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":`)},
				{desc: "no jsonrpc member", body: []byte(`{"id":7,"method":"tools/call","params":{"name":"get_note"}}`)},
				{desc: "no params", body: []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call"}`)},
				{desc: "too deep", body: call(`"name":"echo",` + deep)},
				{desc: "1,000 levels", body: call(`"name":"echo","arguments":{"text":` + strings.Repeat("[", 997) + strings.Repeat("]", 997) + `}`), direct: true},
				{desc: "1,001 levels", body: call(`"name":"echo","arguments":{"text":` + strings.Repeat("[", 998) + strings.Repeat("]", 998) + `}`)},
				{desc: "brackets in strings", body: call(`"name":"echo","arguments":{"text":"` + strings.Repeat(`[{\"`, 1200) + `"}`), direct: true},
				{desc: "JSONRPC in capitals", body: []byte(strings.Replace(string(call(`"name":"get_note","arguments":{"id":7}`)), `"jsonrpc"`, `"JSONRPC"`, 1))},
				{desc: "another jsonrpc version", body: []byte(strings.Replace(string(call(`"name":"get_note","arguments":{"id":7}`)), `"2.0"`, `"1.0"`, 1))},
				{desc: "a method twice", body: []byte(strings.Replace(string(call(`"name":"get_note","arguments":{"id":7}`)), `"method":"tools/call"`, `"method":"tools/list","method":"tools/call"`, 1)), direct: true},
				{desc: "a method in capitals", body: []byte(strings.Replace(string(call(`"name":"get_note","arguments":{"id":7}`)), `"method"`, `"Method"`, 1))},
				{desc: "an id that is true", body: []byte(strings.Replace(string(call(`"name":"get_note","arguments":{"id":7}`)), `"id":7,`, `"id":true,`, 1))},
				{desc: "an id that is null", body: []byte(strings.Replace(string(call(`"name":"get_note","arguments":{"id":7}`)), `"id":7,`, `"id":null,`, 1))},
				{desc: "another member", body: []byte(strings.Replace(string(call(`"name":"get_note","arguments":{"id":7}`)), `"id":7,`, `"id":7,"extra":{"a":[1]},`, 1)), direct: true},
				{desc: "something after the request", body: append(call(`"name":"get_note","arguments":{"id":7}`), []byte(` {"x":1}`)...)},
				{desc: "params that are null", body: []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":null}`)},
				{desc: "a body over 4 MiB", body: call(`"name":"echo",` + big)},
				{desc: "an empty body", body: []byte{}},
				{desc: "another method", body: []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}}`)},
				{desc: "text/plain", body: call(`"name":"get_note","arguments":{"id":7}`), hdr: func(h http.Header) { h.Set("Content-Type", "text/plain") }},
				{desc: "JSON with a charset", body: call(`"name":"get_note","arguments":{"id":7}`), hdr: func(h http.Header) { h.Set("Content-Type", "application/json; charset=utf-8") }, direct: true},
				{desc: "JSON with another charset", body: call(`"name":"get_note","arguments":{"id":7}`), hdr: func(h http.Header) { h.Set("Content-Type", "application/json; charset=latin1") }},
				{desc: "no Content-Type", body: call(`"name":"get_note","arguments":{"id":7}`), hdr: func(h http.Header) { h.Del("Content-Type") }},
				{desc: "accepts JSON only", body: call(`"name":"get_note","arguments":{"id":7}`), hdr: func(h http.Header) { h.Set("Accept", "application/json") }},
				{desc: "accepts anything", body: call(`"name":"get_note","arguments":{"id":7}`), hdr: func(h http.Header) { h.Set("Accept", "*/*") }, direct: true},
				{desc: "no Accept", body: call(`"name":"get_note","arguments":{"id":7}`), hdr: func(h http.Header) { h.Del("Accept") }},
				{desc: "a Last-Event-ID", body: call(`"name":"get_note","arguments":{"id":7}`), hdr: func(h http.Header) { h.Set("Last-Event-ID", "x_1") }},
				{desc: "a host that is not loopback", body: call(`"name":"get_note","arguments":{"id":7}`), hdr: func(h http.Header) { h.Set("Host", "evil.example") }},
				{desc: "an unsupported protocol version", body: call(`"name":"get_note","arguments":{"id":7}`), hdr: func(h http.Header) { h.Set("Mcp-Protocol-Version", "2024-01-01") }},
				{desc: "no protocol version header", body: call(`"name":"get_note","arguments":{"id":7}`), hdr: func(h http.Header) { h.Del("Mcp-Protocol-Version") }},
				{desc: "GET", body: nil, hdr: func(h http.Header) { h.Set("X-Method", "GET") }},
			}
			if stateless {
				cases = append(cases,
					tc{desc: "no Mcp-Method", body: call(`"name":"get_note","arguments":{"id":7}`), hdr: func(h http.Header) { h.Del("Mcp-Method") }},
					tc{desc: "another Mcp-Name", body: call(`"name":"get_note","arguments":{"id":7}`), hdr: func(h http.Header) { h.Set("Mcp-Name", "echo") }},
					tc{desc: "a later protocol version", body: call(`"name":"get_note","arguments":{"id":7}`), hdr: func(h http.Header) { h.Set("Mcp-Protocol-Version", "2027-01-01") }},
					tc{desc: "_meta of another version", body: []byte(strings.Replace(string(call(`"name":"get_note","arguments":{"id":7}`)), `protocolVersion":"2026-07-28"`, `protocolVersion":"2025-11-25"`, 1))},
					tc{desc: "no capabilities in _meta", body: []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"get_note","arguments":{"id":7}}}`)},
					tc{desc: "capabilities that are no object", body: []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]},"name":"get_note","arguments":{"id":7}}}`)},
					tc{desc: "no _meta", body: []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_note","arguments":{"id":7}}}`)},
					tc{desc: "a client that takes elicitation", body: []byte(strings.Replace(string(call(`"name":"greet_user","arguments":{}`)), `{"roots":{"listChanged":true}}`, `{"elicitation":{"form":{}}}`, 1)), direct: true},
				)
			} else {
				cases = append(cases,
					tc{desc: "a made-up session", body: call(`"name":"get_note","arguments":{"id":7}`), session: "MADEUP"},
					tc{desc: "no session", body: call(`"name":"get_note","arguments":{"id":7}`), session: "-"},
					tc{desc: "another version than the session's", body: call(`"name":"get_note","arguments":{"id":7}`), hdr: func(h http.Header) { h.Set("Mcp-Protocol-Version", "2025-06-18") }},
					tc{desc: "a 2026-07-28 _meta in a session", body: callBody("2026-07-28", 7, `"name":"get_note","arguments":{"id":7}`, "")},
				)
			}
			for _, c := range cases {
				if c.only != "" && c.only != version {
					continue
				}
				t.Run(c.desc, func(t *testing.T) {
					got := map[bool]answer{}
					for _, direct := range []bool{true, false} {
						h := callHeaders(version, "get_note")
						if name := nameOf(c.body); name != "" && stateless {
							h.Set("Mcp-Name", name)
						}
						if c.hdr != nil {
							c.hdr(h)
						}
						e := ends[direct]
						switch c.session {
						case "":
						case "-":
							e.session = ""
						default:
							h.Set("Mcp-Session-Id", c.session)
						}
						if h.Get("X-Method") == "GET" {
							got[direct] = e.get(t, h)
							continue
						}
						got[direct] = e.send(t, c.body, h)
					}
					fast, slow := got[true], got[false]
					fast.msg, slow.msg = unmarked(fast.msg), unmarked(slow.msg)
					if fast.status != slow.status || fast.msg != slow.msg {
						t.Errorf("the direct path answered\n  %v\ngo-sdk's\n  %v", fast, slow)
					}
					if took := fast.ctype == "application/json" && slow.ctype != "application/json"; took != c.direct && fast.status == http.StatusOK {
						t.Errorf("direct path taken: %v, want %v (%s; go-sdk %s)", took, c.direct, fast.ctype, slow.ctype)
					}
					if !c.direct && fast.ctype != slow.ctype {
						t.Errorf("content type %q, go-sdk's %q", fast.ctype, slow.ctype)
					}
				})
			}
		})
	}
}

// get sends a GET with headers h.
func (e rawEndpoint) get(t *testing.T, h http.Header) answer {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.url, nil)
	for k, v := range h {
		if k != "X-Method" {
			req.Header[k] = v
		}
	}
	if e.session != "" {
		req.Header.Set("Mcp-Session-Id", e.session)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return answer{status: resp.StatusCode, ctype: resp.Header.Get("Content-Type")}
}

// unmarked replaces the random marker and the time of an untrusted block
// in msg with fixed ones.
func unmarked(msg string) string {
	msg = regexp.MustCompile(`untrusted-[0-9]+`).ReplaceAllString(msg, "untrusted-N")
	return regexp.MustCompile(`retrieved_at=[^ ]*Z`).ReplaceAllString(msg, "retrieved_at=T")
}

// nameOf returns the tool a tools/call body names, "" for none.
func nameOf(body []byte) string {
	var m struct {
		Params struct {
			Name any `json:"name"`
		} `json:"params"`
	}
	json.Unmarshal(body, &m)
	s, _ := m.Params.Name.(string)
	return s
}

// TestDirectPathClient runs go-sdk's client at its defaults against a
// server with the direct path and checks that its calls took it: a
// stateful session's calls are answered application/json, and the
// client reads them.
func TestDirectPathClient(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			reg, _ := newRegistry(t)
			h := mcpserver.New(reg, mcpserver.WithLogger(quiet())).Handler()
			var direct, streamed int // answers to tools/call
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var body []byte
				if r.Body != nil {
					body, _ = io.ReadAll(r.Body)
					r.Body = io.NopCloser(bytes.NewReader(body))
				}
				h.ServeHTTP(w, r)
				if bytes.Contains(body, []byte(`"method":"tools/call"`)) {
					switch w.Header().Get("Content-Type") {
					case "application/json":
						direct++
					case "text/event-stream":
						streamed++
					}
				}
			}))
			defer hs.Close()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "default", Version: "1"}, nil).
				Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL}, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			before := direct
			for i := range 3 {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_note", Arguments: map[string]any{"id": i + 1}})
				if err != nil || res.IsError || !strings.Contains(text(t, res), fmt.Sprintf(`"id":%d`, i+1)) {
					t.Fatalf("call %d: %v %+v", i, err, res)
				}
			}
			if direct-before != 3 {
				t.Errorf("%d of 3 calls took the direct path", direct-before)
			}
			if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "no_such_tool"}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
				t.Errorf("an unknown tool: %v", err)
			}
		})
	}
}

// TestDirectPathSessionTimeout: a session whose call runs on the direct
// path longer than the session timeout is not closed under it; once no
// request runs, the idle session is closed (404).
func TestDirectPathSessionTimeout(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	reg := runtime.New()
	reg.MustRegister(runtime.Tool{
		Meta: runtime.Meta{Name: "hold", Description: "Holds until released.", Risk: runtime.RiskLow, ArgsSchema: schema(`{"type":"object"}`)},
		Execute: func(ctx context.Context, _ any) (any, error) {
			select {
			case started <- struct{}{}:
			default:
			}
			select {
			case <-release:
				return map[string]any{"held": true}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
	})
	srv := mcpserver.New(reg, mcpserver.WithLogger(quiet()), mcpserver.WithSessionTimeout(50*time.Millisecond))
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	e := openRaw(t, hs.URL, "2025-11-25")
	got := make(chan answer, 1)
	go func() {
		a, err := e.try(callBody("2025-11-25", 1, `"name":"hold"`, ""), callHeaders("2025-11-25", "hold"))
		if err != nil {
			a.msg = err.Error()
		}
		got <- a
	}()
	<-started
	time.Sleep(300 * time.Millisecond) // six timeouts
	close(release)
	if a := <-got; a.status != http.StatusOK || a.ctype != "application/json" || !strings.Contains(a.msg, `\"held\":true`) {
		t.Fatalf("the held call: %v", a)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		a := e.send(t, callBody("2025-11-25", 2, `"name":"hold","arguments":{}`, ""), callHeaders("2025-11-25", "hold"))
		if a.status == http.StatusNotFound {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the idle session was never closed: %v", a)
		}
		time.Sleep(100 * time.Millisecond) // longer than the timeout
	}
}

// TestDirectPathFallsBack: a stateful session whose client set a log
// level, or declared elicitation, has its calls answered on go-sdk's path
// (a stream), where what the call sends the client goes with its answer.
func TestDirectPathFallsBack(t *testing.T) {
	reg, _ := newRegistry(t)
	hs := httptest.NewServer(mcpserver.New(reg, mcpserver.WithLogger(quiet())).Handler())
	defer hs.Close()
	const v = "2025-11-25"
	call := callBody(v, 1, `"name":"get_note","arguments":{"id":7}`, "")
	e := openRaw(t, hs.URL, v)
	if a := e.send(t, call, callHeaders(v, "get_note")); a.ctype != "application/json" {
		t.Fatalf("before the log level: %v, want the direct path", a)
	}
	if a := e.send(t, []byte(`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"debug"}}`), callHeaders(v, "")); a.status != http.StatusOK {
		t.Fatalf("logging/setLevel: %v", a)
	}
	if a := e.send(t, call, callHeaders(v, "get_note")); a.ctype != "text/event-stream" || !strings.Contains(a.msg, "buy milk") {
		t.Errorf("after the log level: %v, want go-sdk's stream", a)
	}

	// A client that takes elicitation, from its initialize.
	h := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	resp, err := http.DefaultClient.Do(func() *http.Request {
		r, _ := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"raw","version":"1"}}}`))
		r.Header = h
		return r
	}())
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	e = rawEndpoint{url: hs.URL, session: resp.Header.Get("Mcp-Session-Id")}
	e.send(t, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`), callHeaders(v, ""))
	if a := e.send(t, call, callHeaders(v, "get_note")); a.ctype != "text/event-stream" || !strings.Contains(a.msg, "buy milk") {
		t.Errorf("a client that takes elicitation: %v, want go-sdk's stream", a)
	}
}

// FuzzDirectPath sends tools/call requests of arbitrary tool names,
// arguments and _meta members, at both revisions, to a server with the direct path and to
// one without, and compares the answers as TestDirectPath does.
func FuzzDirectPath(f *testing.F) {
	for _, s := range []string{`{"id":1}`, `{"id":"x"}`, `[]`, `null`, `"s"`, `{"text":"<&>\u2028"}`, `{"id":1e400}`, `{"id":-0}`,
		`{"text":"\ud800"}`, `{}`, `{"id":1,"id":2}`, `[[[[]]]]`, `{"text":{"a":[1,{"b":null}]}}`} {
		f.Add("get_note", s, "")
		f.Add("echo", s, "")
		f.Add("no_such_tool", s, "")
	}
	for _, m := range []string{`"toolcat/session":"c"`, `"toolcat/session":1`, `"toolcat/session":null`, `"progressToken":"p"`,
		`"io.modelcontextprotocol/clientInfo":{"name":1}`, `"io.modelcontextprotocol/clientInfo":null`, `"x":1e400`, `"a":{"b":[]}`} {
		f.Add("get_note", `{"id":2}`, m)
	}
	f.Add("", `{}`, "")
	f.Add("get_note\u0000", `{}`, "")
	type pair struct{ fast, slow rawEndpoint }
	ends := map[string]pair{}
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		var p pair
		for _, direct := range []bool{true, false} {
			reg := runtime.New()
			reg.MustRegister(echoTool)
			reg.MustRegister(runtime.Tool{Meta: runtime.Meta{Name: "get_note", Description: "Reads a note by id.", Risk: runtime.RiskLow, Idempotent: true,
				ArgsSchema: schema(`{"type":"object","additionalProperties":false,"required":["id"],"properties":{"id":{"type":"integer","minimum":1}}}`)},
				Execute: func(_ context.Context, args any) (any, error) { return args, nil }})
			hs := httptest.NewServer(mcpserver.New(reg, mcpserver.WithLogger(quiet()), mcpserver.WithDirectCalls(direct)).Handler())
			f.Cleanup(hs.Close)
			e := rawEndpoint{url: hs.URL}
			if version < "2026-07-28" {
				e = openRaw(f, hs.URL, version)
			}
			if direct {
				p.fast = e
			} else {
				p.slow = e
			}
		}
		ends[version] = p
	}
	f.Fuzz(func(t *testing.T, name, args, meta string) {
		quoted, _ := json.Marshal(name)
		for version, p := range ends {
			body := callBody(version, 1, `"name":`+string(quoted)+`,"arguments":`+args, meta)
			h := callHeaders(version, name)
			fast, err1 := p.fast.try(body, h)
			slow, err2 := p.slow.try(body, h)
			if err1 != nil || err2 != nil {
				if (err1 == nil) != (err2 == nil) {
					t.Fatalf("%s: the direct path's request: %v; go-sdk's: %v", version, err1, err2)
				}
				continue // a name no header can carry: the client refuses it
			}
			if fast.status != slow.status || unmarked(fast.msg) != unmarked(slow.msg) {
				t.Fatalf("%s %s: the direct path answered\n  %v\ngo-sdk's\n  %v", version, body, fast, slow)
			}
		}
	})
}
