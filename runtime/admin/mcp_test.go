package admin_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcat/toolcat/runtime/mcpserver"
)

// TestMCPListChanged switches a tool off and on through the admin API
// while an MCP client (go-sdk, streamable HTTP, 2025-11-25) is connected
// to the registry's MCP server: the client is sent
// notifications/tools/list_changed, the next tools/list leaves the tool
// out, and a call of it answers permission_denied with the reason.
func TestMCPListChanged(t *testing.T) {
	reg := registry(t)
	ms := mcpserver.New(reg, mcpserver.WithLogger(quiet()))
	_, hs := server(t, reg)
	mux := http.NewServeMux()
	mux.Handle("/mcp", ms.Handler())
	mcpHTTP := httptest.NewServer(mux)
	t.Cleanup(mcpHTTP.Close)

	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	changed := make(chan struct{}, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "admin-test", Version: "1"}, &mcp.ClientOptions{
		Logger: quiet(),
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: mcpHTTP.URL + "/mcp"},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	list := func() []string {
		t.Helper()
		res, err := cs.ListTools(ctx, &mcp.ListToolsParams{})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		return names
	}
	wait := func() {
		t.Helper()
		select {
		case <-changed:
		case <-time.After(5 * time.Second):
			t.Fatal("no notifications/tools/list_changed within 5s")
		}
	}
	if !slices.Contains(list(), "get_order") {
		t.Fatal("get_order not listed at first")
	}

	if a := do(t, hs, "PUT", "/api/tools/get_order/state", token, "application/json", `{"enabled": false, "reason": "orders DB migration"}`); a.status != 200 {
		t.Fatalf("PUT: %d %s", a.status, a.body)
	}
	wait()
	if names := list(); slices.Contains(names, "get_order") {
		t.Errorf("tools/list after disabling: %v", names)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_order", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("tools/call of the disabled tool: %v", err)
	}
	var text string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	if !res.IsError || !strings.Contains(text, "permission_denied") || !strings.Contains(text, "orders DB migration") {
		t.Errorf("tools/call of the disabled tool: isError %v, %s", res.IsError, text)
	}

	if a := do(t, hs, "PUT", "/api/tools/get_order/state", token, "application/json", `{"enabled": true}`); a.status != 200 {
		t.Fatalf("PUT: %d %s", a.status, a.body)
	}
	wait()
	if names := list(); !slices.Contains(names, "get_order") {
		t.Errorf("tools/list after enabling: %v", names)
	}
}
