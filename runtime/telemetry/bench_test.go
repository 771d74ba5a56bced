package telemetry_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/telemetry"
)

// BenchmarkCall measures what the Hook adds to a call: the cheapest call
// there is (a validator that decodes nothing, a tool that returns a small
// map) with no hook, with the Hook on a tracer whose sampler is off
// (NeverSample, as a host that samples none of these calls), the same with
// the SDK's histogram, and with every span recorded (AlwaysSample, no
// exporter).
func BenchmarkCall(b *testing.B) {
	ctx := context.Background()
	type result struct {
		Hits int `json:"hits"`
	}
	tool := runtime.Tool{
		Meta:      runtime.Meta{Name: "search_docs", Description: "Searches the documentation.", ArgsSchema: json.RawMessage(`{"type":"object"}`)},
		Validator: runtime.ValidatorFunc(func(raw []byte) (any, *runtime.ToolError) { return nil, nil }),
		Execute:   func(context.Context, any) (any, error) { return &result{Hits: 1}, nil },
	}
	never := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample()))
	always := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()))
	meters := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	cases := []struct {
		name string
		hook runtime.CallHook
	}{
		{"no_hook", nil},
		{"sampler_off", telemetry.NewHook(telemetry.HookTracerProvider(never))},
		{"sampler_off_histogram", telemetry.NewHook(telemetry.HookTracerProvider(never), telemetry.HookMeterProvider(meters))},
		{"recorded_histogram", telemetry.NewHook(telemetry.HookTracerProvider(always), telemetry.HookMeterProvider(meters))},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			opts := []runtime.Option{runtime.WithLogger(slog.New(slog.DiscardHandler))}
			if c.hook != nil {
				opts = append(opts, runtime.WithCallHook(c.hook))
			}
			r := runtime.New(opts...)
			if err := r.Register(tool); err != nil {
				b.Fatal(err)
			}
			args := []byte(`{}`)
			r.Call(ctx, "search_docs", args, runtime.CallOptions{}) // the hook's per-tool values are made once
			b.ReportAllocs()
			for b.Loop() {
				if res := r.Call(ctx, "search_docs", args, runtime.CallOptions{}); !res.Success {
					b.Fatal(string(res.JSON()))
				}
			}
		})
	}
}

// BenchmarkSessionAnswer measures the same for a call a session answers
// itself (Session.Answer, as code mode answers execute_code), with an
// answer that does nothing: no hook, and the Hook with the sampler off.
func BenchmarkSessionAnswer(b *testing.B) {
	ctx := context.Background()
	never := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample()))
	meta := &runtime.Meta{Name: "run_program", Description: "Runs a program."}
	answer := func(context.Context) runtime.Result { return runtime.Result{Success: true, Tool: "run_program"} }
	for _, c := range []struct {
		name string
		hook runtime.CallHook
	}{
		{"no_hook", nil},
		{"sampler_off", telemetry.NewHook(telemetry.HookTracerProvider(never))},
	} {
		b.Run(c.name, func(b *testing.B) {
			opts := []runtime.Option{runtime.WithLogger(slog.New(slog.DiscardHandler))}
			if c.hook != nil {
				opts = append(opts, runtime.WithCallHook(c.hook))
			}
			s := runtime.New(opts...).Session("bench")
			args := []byte(`{}`)
			s.Answer(ctx, meta, args, runtime.CallOptions{}, answer)
			b.ReportAllocs()
			for b.Loop() {
				if res := s.Answer(ctx, meta, args, runtime.CallOptions{}, answer); !res.Success {
					b.Fatal(string(res.JSON()))
				}
			}
		})
	}
}
