package mcpserver_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcat/toolcat/runtime/mcpserver"
)

// FuzzCallArguments sends arbitrary JSON as the arguments (and tool name)
// of a call: every call is answered, as a result or a JSON-RPC error, and
// the session still lists its tools afterwards.
func FuzzCallArguments(f *testing.F) {
	for _, s := range []string{`{"id":1}`, `{"id":"x"}`, `[]`, `null`, `"s"`, `{"id":1,"idempotency_key":""}`,
		`{"query":"remove a note","limit":99}`, `{"pattern":"(("}`, `{"id":1e400}`} {
		f.Add("get_note", s)
		f.Add("search_tools_by_regex", s)
	}
	reg, _ := newRegistry(f)
	srv := mcpserver.New(reg, mcpserver.WithLogger(quiet()))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	go srv.Run(ctx, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fuzz", Version: "1"}, &mcp.ClientOptions{Logger: quiet()}).
		Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		f.Fatal(err)
	}
	defer cs.Close()
	f.Fuzz(func(t *testing.T, name, args string) {
		if !json.Valid([]byte(args)) || name == "wait_for_cancel" {
			return
		}
		cctx, ccancel := context.WithTimeout(ctx, 10*time.Second)
		defer ccancel()
		res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
		if err == nil && res == nil {
			t.Fatal("no result and no error")
		}
		if cctx.Err() != nil {
			t.Fatalf("tools/call %q %s hung", name, args)
		}
		if _, err := cs.ListTools(cctx, nil); err != nil {
			t.Fatalf("tools/list after tools/call %q %s: %v", name, args, err)
		}
	})
}
