package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/telemetry"
	"github.com/toolcat/toolcat/runtime/telemetry/otlpenv"
)

// tracing is the host's OpenTelemetry set-up: the conversation is one span,
// invoke_agent, and every tool call one span under it (runtime/telemetry).
// Spans and the call histogram go over OTLP/HTTP when
// OTEL_EXPORTER_OTLP_ENDPOINT is set, and the spans are printed as a tree
// after the conversation with --trace. With neither, the registry has no
// hook.
type tracing struct {
	tp   *sdktrace.TracerProvider
	mp   *sdkmetric.MeterProvider
	tree *treeExporter
	out  io.Writer
}

// startTracing sets tracing up as the flags and the environment ask; the
// tree goes to out.
func startTracing(ctx context.Context, print bool, getenv func(string) string, out io.Writer) (*tracing, error) {
	t := &tracing{out: out}
	var opts []sdktrace.TracerProviderOption
	if print {
		t.tree = &treeExporter{}
		opts = append(opts, sdktrace.WithSyncer(t.tree))
	}
	tp, err := otlpenv.TracerProvider(ctx, "agent-host", getenv, opts...)
	if err != nil {
		return nil, err
	}
	if tp == nil && print {
		tp = sdktrace.NewTracerProvider(opts...)
	}
	t.tp = tp
	if t.mp, err = otlpenv.MeterProvider(ctx, "agent-host", getenv); err != nil {
		return nil, err
	}
	return t, nil
}

// options are the registry's: the call hook, when tracing or metrics are
// on.
func (t *tracing) options() []runtime.Option {
	var opts []telemetry.HookOption
	if t.tp != nil {
		opts = append(opts, telemetry.HookTracerProvider(t.tp))
	}
	if t.mp != nil {
		opts = append(opts, telemetry.HookMeterProvider(t.mp))
	}
	if opts == nil {
		return nil
	}
	return []runtime.Option{runtime.WithCallHook(telemetry.NewHook(opts...))}
}

// conversation starts the conversation's span; end ends it.
func (t *tracing) conversation(ctx context.Context, id string) (_ context.Context, end func(err error)) {
	if t.tp == nil {
		return ctx, func(error) {}
	}
	ctx, span := t.tp.Tracer("github.com/toolcat/toolcat/examples/agent-host").Start(ctx, "invoke_agent agent-host",
		trace.WithAttributes(attribute.String("gen_ai.operation.name", "invoke_agent"),
			attribute.String("gen_ai.agent.name", "agent-host"), attribute.String("gen_ai.conversation.id", id)))
	return ctx, func(err error) {
		if err != nil {
			span.SetStatus(codes.Error, err.Error())
		}
		span.End()
	}
}

// shutdown flushes the spans and the metrics, and prints the tree.
func (t *tracing) shutdown(ctx context.Context) error {
	var err error
	if t.mp != nil {
		err = t.mp.Shutdown(ctx)
	}
	if t.tp == nil {
		return err
	}
	err = errors.Join(err, t.tp.Shutdown(ctx))
	if t.tree != nil {
		fmt.Fprintln(t.out, "\n== spans (--trace)")
		t.tree.print(t.out)
	}
	return err
}

// treeExporter keeps the spans that end, to print them as a tree.
type treeExporter struct {
	mu    sync.Mutex
	spans []sdktrace.ReadOnlySpan
}

func (e *treeExporter) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.mu.Lock()
	e.spans = append(e.spans, spans...)
	e.mu.Unlock()
	return nil
}

func (e *treeExporter) Shutdown(context.Context) error { return nil }

// shown are the attributes printed after a span's name, in this order.
var shown = []attribute.Key{"gen_ai.tool.call.id", "error.type", "toolcat.dry_run", "toolcat.replayed",
	"toolcat.retry", "toolcat.retry_exhausted", "toolcat.fallback", "toolcat.untrusted.source",
	"toolcat.approval.id", "toolcat.approval.status", "gen_ai.conversation.id"}

// print writes the spans as a tree, each with its duration, the
// attributes of shown it has, and its events, in brackets.
func (e *treeExporter) print(w io.Writer) {
	e.mu.Lock()
	defer e.mu.Unlock()
	kids := map[trace.SpanID][]sdktrace.ReadOnlySpan{}
	ids := map[trace.SpanID]bool{}
	for _, s := range e.spans {
		ids[s.SpanContext().SpanID()] = true
	}
	var roots []sdktrace.ReadOnlySpan
	for _, s := range e.spans {
		if p := s.Parent().SpanID(); p.IsValid() && ids[p] {
			kids[p] = append(kids[p], s)
		} else {
			roots = append(roots, s)
		}
	}
	// Siblings in the order they ended: an approval's wait starts when the
	// call is kept, before the span of the call kept ends.
	byEnd := func(a, b sdktrace.ReadOnlySpan) int { return a.EndTime().Compare(b.EndTime()) }
	var walk func(s sdktrace.ReadOnlySpan, depth int)
	walk = func(s sdktrace.ReadOnlySpan, depth int) {
		var b strings.Builder
		fmt.Fprintf(&b, "%s%s (%s)", strings.Repeat("  ", depth), s.Name(), s.EndTime().Sub(s.StartTime()).Round(time.Microsecond))
		attrs := map[attribute.Key]string{}
		for _, kv := range s.Attributes() {
			attrs[kv.Key] = kv.Value.Emit()
		}
		for _, k := range shown {
			if v, ok := attrs[k]; ok {
				fmt.Fprintf(&b, " %s=%s", k, v)
			}
		}
		for _, ev := range s.Events() {
			fmt.Fprintf(&b, " [%s]", ev.Name)
		}
		fmt.Fprintln(w, b.String())
		ks := kids[s.SpanContext().SpanID()]
		slices.SortStableFunc(ks, byEnd)
		for _, k := range ks {
			walk(k, depth+1)
		}
	}
	slices.SortStableFunc(roots, byEnd)
	for _, r := range roots {
		walk(r, 0)
	}
}
