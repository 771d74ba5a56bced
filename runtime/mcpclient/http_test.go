package mcpclient_test

import (
	"context"
	"io"
	"log/slog"
	"net"
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

func TestMountStreamableHTTPReconnects(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "clock", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "get_time",
		Description: "Returns the server's current time.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return nil, map[string]any{"time": "12:00"}, nil
	})
	serve := func(addr string) *http.Server {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		hs := &http.Server{Handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)}
		go hs.Serve(ln)
		return hs
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	hs := serve(addr)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	reg := runtime.New()
	url := "http://" + addr + "/"
	m, err := mcpclient.Mount(ctx, reg, mcpclient.URL(url, nil), mcpclient.WithBackoff(20*time.Millisecond, 50*time.Millisecond),
		mcpclient.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if res := reg.Call(ctx, "clock_get_time", []byte(`{}`), runtime.CallOptions{}); !res.Success {
		t.Fatalf("first call: %+v", res.Error)
	}
	hs.Close()
	var res runtime.Result
	waitFor(t, "a failed call", func() bool {
		res = reg.Call(ctx, "clock_get_time", []byte(`{}`), runtime.CallOptions{})
		return !res.Success
	})
	if res.Error.Code != runtime.CodeDependencyUnavailable {
		t.Fatalf("dead server: %+v", res.Error)
	}
	waitFor(t, "the disconnection", func() bool { return !m.Connected() })
	hs = serve(addr)
	defer hs.Close()
	waitFor(t, "the reconnection", m.Connected)
	if res := reg.Call(ctx, "clock_get_time", []byte(`{}`), runtime.CallOptions{}); !res.Success {
		t.Fatalf("after restart: %+v", res.Error)
	}
}
