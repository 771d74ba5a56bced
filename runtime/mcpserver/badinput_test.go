package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/mcpserver"
)

// countingBody is a request body of n bytes that counts what was read of
// it: a JSON-RPC call whose one string argument fills it.
type countingBody struct {
	head, tail string
	n, off     int64
	read       atomic.Int64
}

func newCountingBody(n int64) *countingBody {
	return &countingBody{head: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_note","arguments":{"id":"`, tail: `"}}}`, n: n}
}

func (b *countingBody) Read(p []byte) (int, error) {
	if b.off >= b.n {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) && b.off < b.n {
		switch {
		case b.off < int64(len(b.head)):
			p[k] = b.head[b.off]
		case b.off >= b.n-int64(len(b.tail)):
			p[k] = b.tail[b.off-(b.n-int64(len(b.tail)))]
		default:
			p[k] = 'x'
		}
		k++
		b.off++
	}
	b.read.Add(int64(k))
	return k, nil
}

// postMCP sends body to url as an MCP request of version (and session).
func postMCP(t *testing.T, url, version, session string, body io.Reader) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, body)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", version)
	if version >= "2026-07-28" {
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "get_note")
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	return resp.StatusCode, string(b)
}

// TestHugeBody: a 50 MB request is refused with 413 after at most the
// 4 MiB the server reads of a body, at both revisions (in a session and
// stateless); the session goes on.
func TestHugeBody(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			reg, _ := newRegistry(t)
			srv := mcpserver.New(reg, mcpserver.WithLogger(quiet()))
			url := served(t, srv, false)
			c := connect(t, url, version, "")
			body := newCountingBody(50 << 20)
			status, msg := postMCP(t, url, version, c.cs.ID(), body)
			// The client may stop sending once the server answers and
			// closes the connection: either is the refusal.
			if status != http.StatusRequestEntityTooLarge && status != 0 {
				t.Errorf("50 MB body: %d %s, want 413", status, msg)
			}
			if n := body.read.Load(); n > 16<<20 {
				t.Errorf("the server took %d bytes of a 50 MB body before refusing it", n)
			}
			if got := c.list(); len(got) == 0 {
				t.Error("no tools listed after the huge body")
			}
		})
	}
}

// TestDeepNesting: arguments nested past go-sdk's limit (1,000 levels)
// are refused with 400 before any tool sees them; nested just within it
// they are the tool's invalid_args; neither crashes nor hangs the server.
func TestDeepNesting(t *testing.T) {
	nested := func(depth int) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_note","arguments":{"id":` +
			strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}}}`
	}
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			reg, _ := newRegistry(t)
			srv := mcpserver.New(reg, mcpserver.WithLogger(quiet()))
			url := served(t, srv, false)
			c := connect(t, url, version, "")
			status, msg := postMCP(t, url, version, c.cs.ID(), strings.NewReader(nested(100000)))
			if status != http.StatusBadRequest || !strings.Contains(msg, "nesting depth") {
				t.Errorf("100,000 levels: %d %.300s, want 400 naming the nesting depth", status, msg)
			}
			args := json.RawMessage(`{"id":` + strings.Repeat("[", 900) + strings.Repeat("]", 900) + `}`)
			if got := c.call("get_note", args); !strings.Contains(got, `"code":"invalid_args"`) {
				t.Errorf("900 levels: %.300s, want the tool's invalid_args", got)
			}
			if res := c.call("get_note", map[string]any{"id": 1}); !strings.Contains(res, "buy milk") {
				t.Errorf("after the deep requests: %s", res)
			}
		})
	}
}

// TestForgedSessions: a session id the server never made is 404; another
// principal's session is 403 (go-sdk keeps each session to its user); a
// conversation name that is not a string, or too long, is -32602.
func TestForgedSessions(t *testing.T) {
	reg, _ := newRegistry(t)
	srv := mcpserver.New(reg, mcpserver.WithLogger(quiet()))
	url := served(t, srv, true)
	alice := connect(t, url, "2025-11-25", "token-alice")

	for _, tc := range []struct {
		desc, token, session string
		want                 int
	}{
		{"a made-up session", "token-alice", "NOSUCHSESSION", http.StatusNotFound},
		{"alice's session with bob's token", "token-bob", alice.cs.ID(), http.StatusForbidden},
		{"alice's session without a token", "", alice.cs.ID(), http.StatusUnauthorized},
	} {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		req.Header.Set("Mcp-Session-Id", tc.session)
		if tc.token != "" {
			req.Header.Set("Authorization", "Bearer "+tc.token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: %d, want %d", tc.desc, resp.StatusCode, tc.want)
		}
	}

	bob := connect(t, url, "", "token-bob")
	for _, tc := range []struct {
		desc string
		name any
	}{
		{"a number", 42},
		{"an object", map[string]any{"id": "alice"}},
		{"201 bytes", strings.Repeat("c", 201)},
	} {
		_, err := bob.cs.CallTool(context.Background(), &mcp.CallToolParams{Meta: mcp.Meta{mcpserver.SessionMetaKey: tc.name},
			Name: "get_note", Arguments: map[string]any{"id": 1}})
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams || !strings.Contains(we.Message, mcpserver.SessionMetaKey) {
			t.Errorf("a conversation name of %s: %v, want -32602", tc.desc, err)
		}
	}
}

// TestCrossPrincipalApproval: the signed state of alice's approval,
// replayed by bob with an approving answer, is refused, and runs
// nothing; alice's own answer decides her call.
func TestCrossPrincipalApproval(t *testing.T) {
	reg, w := newRegistry(t)
	srv := mcpserver.New(reg, mcpserver.WithLogger(quiet()), supervised)
	url := served(t, srv, true)

	cl := mcp.NewClient(&mcp.Implementation{Name: "alice", Version: "1"}, &mcp.ClientOptions{Logger: quiet(),
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		}})
	seen := &stateTap{rt: bearer("token-alice")}
	cs, err := cl.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url,
		HTTPClient: &http.Client{Transport: seen}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	alice := &plain{t: t, cs: cs}
	alice.call(runtime.SearchToolsByKeywords, map[string]any{"query": "remove a note"})
	if got := alice.call("delete_note", map[string]any{"id": 5}); !strings.Contains(got, "the user declined it") {
		t.Fatalf("alice's declined call: %s", got)
	}
	seen.mu.Lock()
	signed := seen.state
	seen.mu.Unlock()
	if signed == "" {
		t.Fatal("alice's client sent no requestState")
	}

	bob := connect(t, url, "", "token-bob")
	bob.call(runtime.SearchToolsByKeywords, map[string]any{"query": "remove a note"})
	_, err = bob.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_note", Arguments: map[string]any{"id": 5},
		RequestState: signed, InputResponses: mcp.InputResponseMap{"toolcat_approval": &mcp.ElicitResult{Action: "accept"}}})
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams || !strings.Contains(we.Message, "another conversation") {
		t.Errorf("bob replaying alice's approval: %v, want -32602", err)
	}
	if w.deleted.Load() != 0 {
		t.Error("a replayed approval ran the tool")
	}
}

// stateTap keeps the requestState of the last tools/call its client sent
// with one.
type stateTap struct {
	rt    http.RoundTripper
	mu    sync.Mutex
	state string
}

func (s *stateTap) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		var msg struct {
			Params struct {
				RequestState string `json:"requestState"`
			} `json:"params"`
		}
		if json.Unmarshal(b, &msg) == nil && msg.Params.RequestState != "" {
			s.mu.Lock()
			s.state = msg.Params.RequestState
			s.mu.Unlock()
		}
	}
	return s.rt.RoundTrip(r)
}
