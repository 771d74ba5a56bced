package mcpclient_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/mcpclient"
)

func TestMountStreamableHTTP(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "clock", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "get_time",
		Description: "Returns the server's current time.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return nil, map[string]any{"time": "12:00"}, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	var unauthorized atomic.Int32
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			unauthorized.Add(1)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer hs.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	reg := runtime.New()
	if _, err := mcpclient.Mount(ctx, reg, mcpclient.URL(hs.URL, nil)); err == nil {
		t.Fatal("mount without the header succeeded")
	}
	m, err := mcpclient.Mount(ctx, reg, mcpclient.URL(hs.URL, http.Header{"Authorization": {"Bearer s3cret"}}),
		mcpclient.WithBackoff(20*time.Millisecond, 50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	res := reg.Call(ctx, "clock_get_time", []byte(`{}`), runtime.CallOptions{})
	if !res.Success || dataJSON(res) != `{"time":"12:00"}` || res.Untrusted == nil {
		t.Fatalf("call over HTTP: %+v", res)
	}
	if unauthorized.Load() == 0 {
		t.Error("the server never refused the mount without a header")
	}
	hs.CloseClientConnections()
	hs.Close()
	waitFor(t, "a failed call", func() bool {
		res = reg.Call(ctx, "clock_get_time", []byte(`{}`), runtime.CallOptions{})
		return !res.Success
	})
	if res.Error.Code != runtime.CodeDependencyUnavailable {
		t.Fatalf("dead HTTP server: want dependency_unavailable, got %+v", res.Error)
	}
}
