package mcpclient_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/mcpclient"
	"github.com/toolcat/toolcat/runtime/mcpserver"
	"github.com/toolcat/toolcat/runtime/telemetry"
)

func spanAttr(s sdktrace.ReadOnlySpan, key attribute.Key) string {
	for _, kv := range s.Attributes() {
		if kv.Key == key {
			return kv.Value.Emit()
		}
	}
	return ""
}

// TestTraceAcrossMount checks that one trace runs from a host through a
// mounted MCP server and back: the host's execute_tool span of the mounted
// tool; under it the client's tools/call span; under that, in the server,
// the tools/call span of kind server, which
// continued the trace from the request's _meta, with the MCP conventions'
// attributes; under that, the server's own execute_tool span. A tool that
// fails is a tool_error, a tool the server lacks a JSON-RPC error, and the
// server's histogram counts both.
func TestTraceAcrossMount(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	quiet := runtime.WithLogger(slog.New(slog.DiscardHandler))
	hook := runtime.WithCallHook(telemetry.NewHook(telemetry.HookTracerProvider(tp)))

	served := runtime.New(hook, quiet)
	obj := json.RawMessage(`{"type":"object"}`)
	for _, tool := range []runtime.Tool{
		{Meta: runtime.Meta{Name: "get_note", Description: "Reads a note.", ArgsSchema: obj},
			Execute: func(context.Context, any) (any, error) { return map[string]string{"text": "hi"}, nil }},
		{Meta: runtime.Meta{Name: "get_broken_note", Description: "Reads a broken note.", ArgsSchema: obj},
			Execute: func(context.Context, any) (any, error) { return nil, runtime.NotFound("no such note") }},
	} {
		if err := served.Register(tool); err != nil {
			t.Fatal(err)
		}
	}
	srv := mcpserver.New(served, mcpserver.WithImplementation("notes", "1"), mcpserver.WithTracerProvider(tp),
		mcpserver.WithMeterProvider(mp), mcpserver.WithLogger(slog.New(slog.DiscardHandler)))
	defer srv.Close()
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()

	host := runtime.New(hook, quiet)
	ctx := context.Background()
	m, err := mcpclient.Mount(ctx, host, mcpclient.URL(hs.URL, nil), mcpclient.WithLogger(slog.New(slog.DiscardHandler)),
		mcpclient.WithTracerProvider(tp))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx, turn := tp.Tracer("host").Start(ctx, "turn")
	if res := host.Call(ctx, "notes_get_note", []byte(`{}`), runtime.CallOptions{}); !res.Success {
		t.Fatal(string(res.JSON()))
	}
	if res := host.Call(ctx, "notes_get_broken_note", []byte(`{}`), runtime.CallOptions{}); res.Success {
		t.Fatal("the broken note was read")
	}
	turn.End()
	spans.Reset() // the trace is checked below; the mount's own requests (initialize, tools/list) had no caller span

	ctx, turn = tp.Tracer("host").Start(context.Background(), "turn")
	host.Call(ctx, "notes_get_note", []byte(`{}`), runtime.CallOptions{})
	host.Call(ctx, "notes_get_broken_note", []byte(`{}`), runtime.CallOptions{})
	turn.End()
	// A generic client, calling a tool the server does not have.
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "plain", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: hs.URL, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "no_such_tool"}); err == nil {
		t.Error("no_such_tool answered")
	}
	cs.Close()

	byName := map[string]sdktrace.ReadOnlySpan{} // the first of each name and kind
	for _, s := range spans.Ended() {
		name := s.Name()
		if s.SpanKind() == trace.SpanKindClient {
			name = "client " + name
		}
		if _, dup := byName[name]; !dup {
			byName[name] = s
		}
	}
	get := func(name string) sdktrace.ReadOnlySpan {
		s, ok := byName[name]
		if !ok {
			names := []string{}
			for n := range byName {
				names = append(names, n)
			}
			t.Fatalf("no span %q among %v", name, names)
		}
		return s
	}
	root := get("turn")
	local := get("execute_tool notes_get_note")
	client := get("client tools/call get_note")
	server := get("tools/call get_note")
	inner := get("execute_tool get_note")
	parent := func(child, of sdktrace.ReadOnlySpan) {
		t.Helper()
		if child.Parent().SpanID() != of.SpanContext().SpanID() || child.SpanContext().TraceID() != root.SpanContext().TraceID() {
			t.Errorf("%s is not a child of %s in the host's trace", child.Name(), of.Name())
		}
	}
	parent(local, root)
	parent(client, local)
	parent(server, client)
	parent(inner, server)
	if got := spanAttr(client, "gen_ai.tool.name"); got != "get_note" || spanAttr(client, "mcp.method.name") != "tools/call" {
		t.Errorf("client span: gen_ai.tool.name %q, mcp.method.name %q", got, spanAttr(client, "mcp.method.name"))
	}
	if got := spanAttr(get("client tools/call get_broken_note"), "error.type"); got != "tool_error" {
		t.Errorf("client span of the failed tool: error.type %q", got)
	}
	if !server.Parent().IsRemote() || server.SpanKind() != trace.SpanKindServer {
		t.Errorf("server span: parent remote %v, kind %v", server.Parent().IsRemote(), server.SpanKind())
	}
	for k, want := range map[attribute.Key]string{
		"mcp.method.name": "tools/call", "gen_ai.tool.name": "get_note", "gen_ai.operation.name": "execute_tool",
		"network.transport": "tcp", "network.protocol.name": "http",
	} {
		if got := spanAttr(server, k); got != want {
			t.Errorf("server span %s=%q, want %q", k, got, want)
		}
	}
	if spanAttr(server, "mcp.protocol.version") == "" {
		t.Error("server span without mcp.protocol.version")
	}
	if got := spanAttr(get("tools/call get_broken_note"), "error.type"); got != mcpserver.ToolErrorType {
		t.Errorf("failed tool: error.type %q", got)
	}
	unknown := get("tools/call no_such_tool")
	if got := spanAttr(unknown, "error.type"); got != "-32602" || spanAttr(unknown, "rpc.response.status_code") != "-32602" {
		t.Errorf("unknown tool: error.type %q", got)
	}
	if unknown.Parent().IsValid() {
		t.Error("a request without trace context has a parent")
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	calls := map[string]uint64{}
	for _, sm := range rm.ScopeMetrics {
		for _, mt := range sm.Metrics {
			if mt.Name != mcpserver.ServerOperationDurationName {
				continue
			}
			for _, p := range mt.Data.(metricdata.Histogram[float64]).DataPoints {
				method, _ := p.Attributes.Value("mcp.method.name")
				tool, _ := p.Attributes.Value("gen_ai.tool.name")
				et, _ := p.Attributes.Value("error.type")
				calls[method.AsString()+" "+tool.AsString()+" "+et.AsString()] += p.Count
			}
		}
	}
	if calls["tools/call get_note "] != 2 || calls["tools/call get_broken_note tool_error"] != 2 || calls["tools/call  -32602"] != 1 {
		t.Errorf("mcp.server.operation.duration counts: %v", calls)
	}
}
