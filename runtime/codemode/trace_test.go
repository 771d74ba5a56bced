package codemode_test

import (
	"context"
	"encoding/json"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/codemode"
	"github.com/toolcat/toolcat/runtime/telemetry"
)

// TestSpansOfAProgram checks that execute_code and search_api get spans
// through the registry's hook, children of the host's span, and that the
// calls a program makes are children of its execute_code span, without
// the model's call id.
func TestSpansOfAProgram(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	d := newDesk()
	m := codemode.New(d.registry(t, runtime.WithCallHook(telemetry.NewHook(telemetry.HookTracerProvider(tp)))))
	s := m.Registry().Session("traced", runtime.SessionAutonomy(runtime.AutonomyFull))
	ctx, turn := tp.Tracer("host").Start(context.Background(), "turn")
	if res := m.Call(runtime.ContextWithCallID(ctx, "toolu_1"), s, codemode.SearchAPI, []byte(`{"query":"close a ticket"}`), runtime.CallOptions{}); !res.Success {
		t.Fatal(string(res.JSON()))
	}
	code := `const open = tools.list_tickets({status: "open"});
tools.close_ticket({id: open.data[0].id});
return tools.list_tickets({status: "lost"}).error.code;`
	res := m.Call(runtime.ContextWithCallID(ctx, "toolu_2"), s, codemode.ExecuteCode, []byte(`{"code":`+quote(code)+`}`), runtime.CallOptions{})
	if !res.Success {
		t.Fatal(string(res.JSON()))
	}
	if res := m.Call(ctx, s, codemode.ExecuteCode, []byte(`{"code":""}`), runtime.CallOptions{}); res.Success {
		t.Fatal("an empty program ran")
	}
	turn.End()

	type span struct{ name, parent, callID, errType string }
	ids := map[string]string{} // span id → name
	var got []span
	for _, sp := range rec.Ended() {
		ids[sp.SpanContext().SpanID().String()] = sp.Name()
	}
	for _, sp := range rec.Ended() {
		if sp.Name() == "turn" {
			continue
		}
		s := span{name: sp.Name(), parent: ids[sp.Parent().SpanID().String()]}
		if sp.SpanContext().TraceID() != turn.SpanContext().TraceID() {
			t.Errorf("%s is in another trace", sp.Name())
		}
		for _, kv := range sp.Attributes() {
			switch kv.Key {
			case "gen_ai.tool.call.id":
				s.callID = kv.Value.AsString()
			case "error.type":
				s.errType = kv.Value.AsString()
			}
		}
		got = append(got, s)
	}
	// Spans end children first.
	want := []span{
		{name: "execute_tool search_api", parent: "turn", callID: "toolu_1"},
		{name: "execute_tool list_tickets", parent: "execute_tool execute_code"},
		{name: "execute_tool close_ticket", parent: "execute_tool execute_code"},
		{name: "execute_tool list_tickets", parent: "execute_tool execute_code", errType: "invalid_args"},
		{name: "execute_tool execute_code", parent: "turn", callID: "toolu_2"},
		{name: "execute_tool execute_code", parent: "turn", errType: "invalid_args"},
	}
	if len(got) != len(want) {
		t.Fatalf("spans %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("span %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	// The three inner spans have the same execute_code span as parent.
	var parents []string
	for _, sp := range rec.Ended()[1:4] {
		parents = append(parents, sp.Parent().SpanID().String())
	}
	if exec := rec.Ended()[4].SpanContext().SpanID().String(); parents[0] != exec || parents[1] != exec || parents[2] != exec {
		t.Errorf("inner calls' parents %v, execute_code %s", parents, exec)
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
