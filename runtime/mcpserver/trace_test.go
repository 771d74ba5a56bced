package mcpserver_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/mcpserver"
)

// TestTraceStdio checks a stateful session over a pipe (as stdio is): the
// initialize request and the tools/call are server spans, the call's with
// mcp.session.id, mcp.protocol.version 2025-11-25 and network.transport
// pipe, continuing the trace a generic client put in _meta by hand.
func TestTraceStdio(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	discard := slog.New(slog.DiscardHandler)
	reg := runtime.New(runtime.WithLogger(discard))
	reg.MustRegister(runtime.Tool{
		Meta:    runtime.Meta{Name: "read_memo", Description: "Reads a memo.", ArgsSchema: json.RawMessage(`{"type":"object"}`)},
		Execute: func(context.Context, any) (any, error) { return map[string]string{"text": "hi"}, nil },
	})
	srv := mcpserver.New(reg, mcpserver.WithLogger(discard), mcpserver.WithTracerProvider(tp))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	go srv.Run(ctx, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{Logger: discard}).
		Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	cctx, client := tp.Tracer("client").Start(ctx, "agent turn")
	meta := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(cctx, meta)
	params := &mcp.CallToolParams{Name: "read_memo", Arguments: map[string]any{}}
	params.SetMeta(map[string]any{"traceparent": meta["traceparent"]})
	if _, err := cs.CallTool(ctx, params); err != nil {
		t.Fatal(err)
	}
	client.End()

	var call, init sdktrace.ReadOnlySpan
	for _, s := range spans.Ended() {
		switch s.Name() {
		case "tools/call read_memo":
			call = s
		case "initialize":
			init = s
		}
	}
	if call == nil || init == nil {
		t.Fatalf("spans: %v", spans.Ended())
	}
	if call.SpanKind() != trace.SpanKindServer || call.Parent().SpanID() != client.SpanContext().SpanID() || !call.Parent().IsRemote() {
		t.Errorf("tools/call: kind %v, parent %v (want the client's %v)", call.SpanKind(), call.Parent().SpanID(), client.SpanContext().SpanID())
	}
	want := map[string]string{"mcp.method.name": "tools/call", "mcp.protocol.version": "2025-11-25", "network.transport": "pipe",
		"gen_ai.tool.name": "read_memo", "mcp.session.id": cs.ID()}
	got := map[string]string{}
	for _, kv := range call.Attributes() {
		got[string(kv.Key)] = kv.Value.Emit()
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("tools/call %s=%q, want %q", k, got[k], v)
		}
	}
	if init.Parent().IsValid() {
		t.Error("initialize, sent without trace context, has a parent")
	}
}
