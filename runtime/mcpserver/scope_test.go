package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/mcpserver"
)

// The revisions a default go-sdk client is tried at: the one it
// negotiates by itself (2026-07-28, stateless), and the stateful one.
var httpRevisions = []string{"", "2025-11-25"}

func revisionName(v string) string {
	if v == "" {
		return "default"
	}
	return v
}

// tokens are the bearer tokens the test's verifier knows, by the user
// they authenticate.
var tokens = map[string]string{"token-alice": "alice", "token-bob": "bob", "token-nobody": ""}

// verifyToken is the test's token verifier, for go-sdk's bearer-token
// middleware: a known token names its user.
func verifyToken(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	user, ok := tokens[token]
	if !ok {
		return nil, auth.ErrInvalidToken
	}
	return &auth.TokenInfo{UserID: user, Expiration: time.Now().Add(time.Hour)}, nil
}

// served serves srv over streamable HTTP on loopback, behind go-sdk's
// bearer-token middleware when authenticated, and returns its URL.
func served(t *testing.T, srv *mcpserver.Server, authenticated bool) string {
	t.Helper()
	var h http.Handler = srv.Handler()
	if authenticated {
		h = auth.RequireBearerToken(verifyToken, nil)(h)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	return hs.URL + "/mcp"
}

// plain is a client as a generic MCP host makes it: go-sdk's at its
// defaults, which sends no _meta.
type plain struct {
	t       *testing.T
	cs      *mcp.ClientSession
	changed chan struct{}
}

// connect connects a default go-sdk client to url, at revision version
// ("" for the one it negotiates), with a bearer token when token is set.
func connect(t *testing.T, url, version, token string) *plain {
	t.Helper()
	p := &plain{t: t, changed: make(chan struct{}, 16)}
	tr := &mcp.StreamableClientTransport{Endpoint: url}
	if token != "" {
		tr.HTTPClient = &http.Client{Transport: bearer(token)}
	}
	var opts *mcp.ClientSessionOptions
	if version != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cl := mcp.NewClient(&mcp.Implementation{Name: "generic-host", Version: "1"}, &mcp.ClientOptions{
		Logger: quiet(),
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case p.changed <- struct{}{}:
			default:
			}
		},
	})
	cs, err := cl.Connect(context.Background(), tr, opts)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	if version == "" && cs.InitializeResult().ProtocolVersion < "2026-07-28" {
		t.Fatalf("a default client negotiated %s; these tests are of its stateless requests", cs.InitializeResult().ProtocolVersion)
	}
	p.cs = cs
	return p
}

func (p *plain) list() []string {
	p.t.Helper()
	res, err := p.cs.ListTools(context.Background(), nil)
	if err != nil {
		p.t.Fatalf("tools/list: %v", err)
	}
	return names(res.Tools)
}

func (p *plain) call(name string, args any) string {
	p.t.Helper()
	res, err := p.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		p.t.Fatalf("tools/call %s: %v", name, err)
	}
	return text(p.t, res)
}

func (p *plain) waitChanged() {
	p.t.Helper()
	select {
	case <-p.changed:
	case <-time.After(5 * time.Second):
		p.t.Fatal("no notifications/tools/list_changed within 5s")
	}
}

// ledger is a revertible tool that counts what it did: add_entry adds its
// amount, its revert takes it off again.
type ledger struct {
	runs     atomic.Int32
	reverted atomic.Int32
}

func addLedger(t *testing.T, reg *runtime.Registry, risk runtime.Risk) *ledger {
	t.Helper()
	l := &ledger{}
	err := reg.Register(runtime.Tool{
		Meta: runtime.Meta{Name: "add_entry", Description: "Adds an entry to the ledger.", Risk: risk,
			HasSideEffects: true, SupportsDryRun: true, Revertible: true, IdempotencyKeyArg: true,
			ArgsSchema: schema(`{"type":"object","additionalProperties":false,"required":["amount"],"properties":{"amount":{"type":"integer"}}}`)},
		Execute: func(_ context.Context, args any) (any, error) {
			n := l.runs.Add(1)
			return map[string]any{"entry": n}, nil
		},
		DryRun: func(_ context.Context, args any) (any, error) {
			amount, _ := args.(map[string]any)["amount"].(float64)
			if amount == 0 {
				return nil, runtime.InvalidArgs("an entry of 0 changes nothing").WithDetail("field", "/amount")
			}
			return &runtime.Preview{Summary: "would add an entry"}, nil
		},
		Revert: func(context.Context, any, json.RawMessage) (any, error) {
			l.reverted.Add(1)
			return map[string]any{"reverted": true}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

var withUndo = mcpserver.WithSessionOptions(func(string) []runtime.SessionOption {
	return []runtime.SessionOption{runtime.SessionUndoTool(true)}
})

// TestDefaultClient: a generic host's client, which sends no _meta, keeps
// every promise of a conversation at both revisions: its key replays and
// conflicts (naming the key it sent), a search's promotion is listed
// after list_changed and callable, and undo finds its calls.
func TestDefaultClient(t *testing.T) {
	for _, v := range httpRevisions {
		t.Run(revisionName(v), func(t *testing.T) {
			reg, w := newRegistry(t)
			l := addLedger(t, reg, runtime.RiskLow)
			srv := mcpserver.New(reg, mcpserver.WithLogger(quiet()), withUndo)
			c := connect(t, served(t, srv, false), v, "")

			before := c.list()
			if got := c.call(runtime.SearchToolsByKeywords, map[string]any{"query": "remove a note"}); !strings.Contains(got, `"delete_note"`) {
				t.Fatalf("search: %s", got)
			}
			c.waitChanged()
			if got := c.list(); !slices.Equal(got, append(before, "delete_note")) {
				t.Fatalf("tools/list after list_changed = %v, want %v and delete_note", got, before)
			}
			if got := c.call("delete_note", map[string]any{"id": 3}); !strings.Contains(got, `"success":true`) {
				t.Fatalf("the promoted tool: %s", got)
			}

			for range 3 {
				c.call("add_entry", map[string]any{"amount": 5, "idempotency_key": "pay-rent"})
			}
			if n := l.runs.Load(); n != 1 {
				t.Errorf("add_entry with one key ran %d times, want 1", n)
			}
			got := c.call("add_entry", map[string]any{"amount": 6, "idempotency_key": "pay-rent"})
			var env struct {
				Error struct {
					Code    string         `json:"code"`
					Message string         `json:"message"`
					Details map[string]any `json:"details"`
				} `json:"error"`
			}
			json.Unmarshal([]byte(got), &env)
			if env.Error.Code != "idempotency_conflict" || env.Error.Details["idempotency_key"] != "pay-rent" ||
				!strings.Contains(env.Error.Message, "idempotency key pay-rent ") {
				t.Errorf("other arguments under the same key: %s, want idempotency_conflict naming pay-rent", got)
			}

			got = c.call(runtime.UndoLastActions, map[string]any{"count": 1})
			if !strings.Contains(got, `"tool":"add_entry"`) || l.reverted.Load() != 1 {
				t.Errorf("undo: %s, reverted %d", got, l.reverted.Load())
			}
			if w.deleted.Load() != 1 {
				t.Errorf("delete_note ran %d times", w.deleted.Load())
			}
		})
	}
}

// TestPrincipals: two users behind authentication, each with a default
// client, never see each other's keys, promotions or journal; a token
// that names no user is in the anonymous conversation.
func TestPrincipals(t *testing.T) {
	for _, v := range httpRevisions {
		t.Run(revisionName(v), func(t *testing.T) {
			reg, _ := newRegistry(t)
			l := addLedger(t, reg, runtime.RiskLow)
			reg.MustRegister(runtime.Tool{Meta: runtime.Meta{Name: "get_user", Description: "Names the user.", Risk: runtime.RiskLow,
				ArgsSchema: schema(`{"type":"object"}`)},
				Execute: func(ctx context.Context, _ any) (any, error) {
					user := ""
					if ti := mcpserver.Principal(ctx); ti != nil {
						user = ti.UserID
					}
					return map[string]any{"user": user}, nil
				}})
			srv := mcpserver.New(reg, mcpserver.WithLogger(quiet()), withUndo)
			url := served(t, srv, true)
			alice, bob := connect(t, url, v, "token-alice"), connect(t, url, v, "token-bob")
			if got := bob.call("get_user", map[string]any{}); !strings.Contains(got, `"user":"bob"`) {
				t.Errorf("Principal in bob's call: %s", got)
			}

			alice.call(runtime.SearchToolsByKeywords, map[string]any{"query": "remove a note"})
			alice.waitChanged()
			if !slices.Contains(alice.list(), "delete_note") {
				t.Fatal("alice's promotion is not listed to her")
			}
			if slices.Contains(bob.list(), "delete_note") {
				t.Error("alice's promotion is listed to bob")
			}

			alice.call("add_entry", map[string]any{"amount": 5, "idempotency_key": "k"})
			got := bob.call("add_entry", map[string]any{"amount": 5, "idempotency_key": "k"})
			if strings.Contains(got, `"replayed":true`) || l.runs.Load() != 2 {
				t.Errorf("bob's call with alice's key: %s, %d runs; want a run of his own", got, l.runs.Load())
			}
			if got := bob.call("add_entry", map[string]any{"amount": 7, "idempotency_key": "k2"}); !strings.Contains(got, `"success":true`) {
				t.Fatalf("bob: %s", got)
			}
			if v == "" {
				// Another conversation of alice's, named in _meta: her key
				// is new there too.
				res, err := alice.cs.CallTool(context.Background(), &mcp.CallToolParams{Meta: mcp.Meta{mcpserver.SessionMetaKey: "second-chat"},
					Name: "add_entry", Arguments: map[string]any{"amount": 5, "idempotency_key": "k"}})
				if err != nil || strings.Contains(text(t, res), `"replayed":true`) || l.runs.Load() != 4 {
					t.Errorf("alice's key in her second conversation: %v, %d runs; want a run of its own", err, l.runs.Load())
				}
				if js, _ := srv.Session(mcpserver.ConversationID("alice", "second-chat")).Journal(context.Background()); len(js) != 1 {
					t.Errorf("alice's second conversation journals %d calls, want 1", len(js))
				}
			}
			// Undo reverts fewer calls than asked when the journal holds
			// fewer: alice's holds her one call, not bob's two.
			got = alice.call(runtime.UndoLastActions, map[string]any{"count": 5})
			var out struct {
				Data struct {
					Undone []struct{ CallID, Tool string } `json:"undone"`
				} `json:"data"`
			}
			if json.Unmarshal([]byte(got), &out); len(out.Data.Undone) != 1 {
				t.Errorf("alice's undo of 5: %s, want her one call", got)
			}
			bobs := mcpserver.ConversationID("bob", "")
			if v != "" {
				bobs = bob.cs.ID() // a stateful session is its own conversation
			}
			js, err := srv.Session(bobs).Journal(context.Background())
			if err != nil || len(js) != 2 || l.reverted.Load() != 1 {
				t.Errorf("bob's journal after alice's undo: %v, %v, %d reverted; want his 2 calls", js, err, l.reverted.Load())
			}

			nobody := connect(t, url, v, "token-nobody")
			if slices.Contains(nobody.list(), "delete_note") {
				t.Error("a token without a user sees alice's promotion")
			}
			// A token that names no user cannot call at 2026-07-28 (its
			// conversation would be every such token's); in a session it
			// can, the session being its conversation.
			_, err = nobody.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "add_entry",
				Arguments: map[string]any{"amount": 1, "idempotency_key": "k"}})
			var we *jsonrpc.Error
			if stateless := v == ""; stateless != (errors.As(err, &we) && we.Code == jsonrpc.CodeInvalidParams && strings.Contains(we.Message, "UserID")) {
				t.Errorf("a call with a token that names no user: %v", err)
			}
		})
	}
}

// TestAnonymousRefused: with AnonymousRefused, a stateless call that
// names no conversation, from no principal, is refused and runs nothing;
// one that names its conversation runs.
func TestAnonymousRefused(t *testing.T) {
	reg, _ := newRegistry(t)
	l := addLedger(t, reg, runtime.RiskLow)
	srv := mcpserver.New(reg, mcpserver.WithLogger(quiet()), mcpserver.WithAnonymous(mcpserver.AnonymousRefused))
	c := connect(t, served(t, srv, false), "", "")
	if got := c.list(); !slices.Contains(got, "add_entry") {
		t.Fatalf("tools/list = %v", got)
	}
	_, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "add_entry", Arguments: map[string]any{"amount": 1}})
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams || !strings.Contains(we.Message, mcpserver.SessionMetaKey) {
		t.Errorf("an unplaced call: %v, want -32602 naming %s", err, mcpserver.SessionMetaKey)
	}
	res, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Meta: mcp.Meta{mcpserver.SessionMetaKey: "c1"},
		Name: "add_entry", Arguments: map[string]any{"amount": 1}})
	if err != nil || res.IsError {
		t.Fatalf("a call naming its conversation: %v", err)
	}
	if l.runs.Load() != 1 {
		t.Errorf("add_entry ran %d times, want 1", l.runs.Load())
	}
}

func TestConversationID(t *testing.T) {
	for _, tc := range []struct{ desc, principal, name, want string }{
		{"anonymous", "", "", "anonymous"},
		{"named", "", "conv-42", "meta/conv-42"},
		{"user", "alice", "", "user/alice"},
		{"user's conversation", "alice", "conv-42", "user/alice/conv-42"},
		{"a slash in the principal is escaped", "a/b", "c", "user/a%2Fb/c"},
		{"so it differs from", "a", "b/c", "user/a/b/c"},
	} {
		if got := mcpserver.ConversationID(tc.principal, tc.name); got != tc.want {
			t.Errorf("%s: ConversationID(%q, %q) = %q, want %q", tc.desc, tc.principal, tc.name, got, tc.want)
		}
	}
}

// TestDefaultClientApproval: a call of a default client (no _meta, no
// elicitation) that needs approval waits in the client's conversation,
// where the host finds it by the documented id and approves it.
func TestDefaultClientApproval(t *testing.T) {
	for _, v := range httpRevisions {
		t.Run(revisionName(v), func(t *testing.T) {
			reg, _ := newRegistry(t)
			l := addLedger(t, reg, runtime.RiskMedium)
			srv := mcpserver.New(reg, mcpserver.WithLogger(quiet()), supervised)
			c := connect(t, served(t, srv, false), v, "")
			var env struct {
				Error struct {
					Code    string `json:"code"`
					Details struct {
						CallID string `json:"call_id"`
					} `json:"details"`
				} `json:"error"`
			}
			got := c.call("add_entry", map[string]any{"amount": 3})
			if json.Unmarshal([]byte(got), &env); env.Error.Code != "approval_required" || l.runs.Load() != 0 {
				t.Fatalf("a supervised call: %s", got)
			}
			id := mcpserver.AnonymousSessionID
			if v != "" {
				id = c.cs.ID()
			}
			res, err := srv.Session(id).Approve(context.Background(), env.Error.Details.CallID)
			if err != nil || !res.Success || l.runs.Load() != 1 {
				t.Fatalf("the host's approval in %s: %v %s, %d runs", id, err, res.JSON(), l.runs.Load())
			}
		})
	}
}
