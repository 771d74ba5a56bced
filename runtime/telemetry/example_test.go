package telemetry_test

import (
	"context"
	"encoding/json"
	"fmt"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/telemetry"
)

// A registry with the Hook records each call as an execute_tool span, a
// child of the host's span, with the model's call id.
func ExampleNewHook() {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reg := runtime.New(runtime.WithCallHook(telemetry.NewHook(telemetry.HookTracerProvider(tp))))
	reg.MustRegister(runtime.Tool{
		Meta:    runtime.Meta{Name: "get_weather", Description: "Gets the weather of a city.", ArgsSchema: json.RawMessage(`{"type":"object"}`)},
		Execute: func(context.Context, any) (any, error) { return map[string]string{"sky": "clear"}, nil },
	})

	ctx, turn := tp.Tracer("host").Start(context.Background(), "turn")
	reg.Call(runtime.ContextWithCallID(ctx, "call_1"), "get_weather", []byte(`{}`), runtime.CallOptions{})
	turn.End()

	for _, s := range spans.Ended() {
		if s.Parent().SpanID() == turn.SpanContext().SpanID() {
			fmt.Println(s.Name(), "under", "turn")
			for _, kv := range s.Attributes() {
				switch kv.Key {
				case "gen_ai.operation.name", "gen_ai.tool.name", "gen_ai.tool.call.id":
					fmt.Printf("  %s=%s\n", kv.Key, kv.Value.Emit())
				}
			}
		}
	}
	// Output:
	// execute_tool get_weather under turn
	//   gen_ai.operation.name=execute_tool
	//   gen_ai.tool.name=get_weather
	//   gen_ai.tool.call.id=call_1
}
