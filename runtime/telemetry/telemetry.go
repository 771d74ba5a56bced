// Package telemetry records toolcat's tool calls with OpenTelemetry: a span
// per call, named and attributed as the OpenTelemetry semantic conventions
// for generative AI describe tool execution, and a histogram of call
// durations by tool and outcome. It is a runtime.CallHook:
//
//	hook := telemetry.NewHook(telemetry.HookTracerProvider(tp), telemetry.HookMeterProvider(mp))
//	reg := runtime.New(runtime.WithCallHook(hook))
//
// The conventions followed are those of semantic conventions v1.41.0
// (SchemaURL), the last release of the OpenTelemetry semantic conventions
// that holds the GenAI and MCP conventions (since v1.42.0 they live in a
// repository of their own, not yet released); they are still marked
// "development".
//
// A span is "execute_tool <tool>", of kind internal, a child of the span in
// the caller's context; the calls a tool's body makes (runtime.CallTool)
// are its children. The calls a session answers itself (its built-in
// tools, its refusals, code mode's execute_code through Session.Answer)
// have spans too, with the calls made inside them (an undo's reverts, a
// program's calls) as children; a revert (Registry.Revert) is marked
// toolcat.revert and left out of the histogram, which counts the calls
// runtime observers count. Arguments and results are not recorded unless
// HookRecordContent asks for them: they carry users' data and outside
// content. runtime/README.md, "Observability", lists every span,
// attribute, event and instrument.
//
// The runtime package itself does not depend on OpenTelemetry: only a
// binary that imports this package links it.
package telemetry

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolcat/toolcat/runtime"
)

// ScopeName is the instrumentation scope of the tracer and meter.
const ScopeName = "github.com/toolcat/toolcat/runtime/telemetry"

// SchemaURL is the schema of the semantic conventions followed.
const SchemaURL = semconv.SchemaURL

// Instrument names.
const (
	// CallDurationName is the histogram of call durations, in seconds, by
	// gen_ai.tool.name and error.type (absent for a success). Its count is
	// the count of calls by tool and outcome. The GenAI conventions have no
	// instrument for tool execution (gen_ai.client.operation.duration is
	// the duration of a model's operation, and requires its provider), so
	// it is toolcat's own.
	CallDurationName = "toolcat.tool.call.duration"
)

// Attributes toolcat adds to the conventions' (only when they hold: a
// call that is no retry has no toolcat.retry).
const (
	AttrDryRun         = attribute.Key("toolcat.dry_run")          // bool: a dry run
	AttrRevert         = attribute.Key("toolcat.revert")           // bool: a revert of an earlier call (Registry.Revert)
	AttrReplayed       = attribute.Key("toolcat.replayed")         // bool: an idempotent replay of a stored result
	AttrRetry          = attribute.Key("toolcat.retry")            // bool: the same tool failed earlier in the same step
	AttrRetryExhausted = attribute.Key("toolcat.retry_exhausted")  // bool: the retry guard shaped the answer
	AttrFallback       = attribute.Key("toolcat.fallback")         // string: the fallback tool that answered instead
	AttrStep           = attribute.Key("toolcat.step")             // string: the retry guard's step (CallOptions.StepID)
	AttrRisk           = attribute.Key("toolcat.risk")             // string: the tool's risk
	AttrSideEffects    = attribute.Key("toolcat.side_effects")     // bool: the tool has side effects
	AttrUntrusted      = attribute.Key("toolcat.untrusted.source") // string: where the outside content of the result came from
	AttrSLA            = attribute.Key("toolcat.sla_ms")           // int: the tool's SLA
	AttrDurationMS     = attribute.Key("toolcat.duration_ms")      // float: the registry's measure of the call
	AttrApprovalID     = attribute.Key("toolcat.approval.id")      // string: the pending call's id
	AttrApprovalStatus = attribute.Key("toolcat.approval.status")  // string: approved or denied
	AttrApprovalTaint  = attribute.Key("toolcat.approval.tainted") // bool: outside content in the conversation is why
	AttrApprovalReason = attribute.Key("toolcat.approval.reason")  // string: why approval was needed (with content only)
	AttrDenial         = attribute.Key("toolcat.approval.denial")  // string: the user's reason (with content only)
)

// Span events.
const (
	EventSLAMiss          = "toolcat.sla_miss"           // the call took longer than the tool's SLA, or timed out
	EventApprovalRequired = "toolcat.approval.requested" // the session kept the call for the user's approval
)

// ToolTypeFunction is gen_ai.tool.type of every toolcat tool: a function
// the model calls with arguments, which the host executes.
const ToolTypeFunction = "function"

// HookOption configures a Hook.
type HookOption func(*Hook)

// HookTracerProvider sets where spans go (default otel.GetTracerProvider()).
func HookTracerProvider(tp trace.TracerProvider) HookOption {
	return func(h *Hook) { h.tp = tp }
}

// HookMeterProvider sets where the call histogram goes (default
// otel.GetMeterProvider()).
func HookMeterProvider(mp metric.MeterProvider) HookOption {
	return func(h *Hook) { h.mp = mp }
}

// HookRecordContent records the arguments (gen_ai.tool.call.arguments),
// the envelope the model reads (gen_ai.tool.call.result, errors included),
// error messages and approval reasons, each cut to maxBytes (never inside a
// character) and followed by "… (N bytes)" when cut. A result holding
// outside content keeps its untrusted wrapper, the opening and closing tags
// around the cut content. Off by default (maxBytes 0): they carry users'
// data and outside content.
func HookRecordContent(maxBytes int) HookOption {
	return func(h *Hook) { h.content = max(maxBytes, 0) }
}

// Hook is a runtime.CallHook and runtime.ApprovalHook that records calls
// as spans and in a histogram. It is safe for concurrent use, and may serve
// several registries.
type Hook struct {
	tp      trace.TracerProvider
	mp      metric.MeterProvider
	content int

	tracer    trace.Tracer
	duration  metric.Float64Histogram
	startOpts []trace.SpanStartOption

	tools   sync.Map // *runtime.Meta → *toolInfo
	metrics sync.Map // tool name → *outcomes
	unknown *outcomes
	// unknownInfo is the span information of calls of tools the
	// registry does not have.
	unknownInfo *toolInfo
}

var (
	_ runtime.CallHook     = (*Hook)(nil)
	_ runtime.ApprovalHook = (*Hook)(nil)
)

// durationBuckets are the histogram's bounds, in seconds: tool calls take
// from under a millisecond (a lookup in memory) to minutes.
var durationBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300}

// NewHook returns a Hook.
func NewHook(opts ...HookOption) *Hook {
	h := &Hook{}
	for _, o := range opts {
		o(h)
	}
	if h.tp == nil {
		h.tp = otel.GetTracerProvider()
	}
	if h.mp == nil {
		h.mp = otel.GetMeterProvider()
	}
	h.tracer = h.tp.Tracer(ScopeName, trace.WithSchemaURL(SchemaURL))
	meter := h.mp.Meter(ScopeName, metric.WithSchemaURL(SchemaURL))
	d, err := meter.Float64Histogram(CallDurationName, metric.WithUnit("s"),
		metric.WithDescription("Duration of toolcat tool calls, by tool and outcome."),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	if err != nil || d == nil {
		otel.Handle(err)
		d = noop.Float64Histogram{} // spans are still recorded
	}
	h.duration = d
	h.startOpts = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindInternal)}
	h.unknown = newOutcomes("")
	h.unknownInfo = newToolInfo(nil)
	return h
}

// toolInfo is what a Hook keeps of one tool for its spans, so that a call
// allocates neither its span name nor its attributes.
type toolInfo struct {
	spanName string
	attrs    []attribute.KeyValue // the span's attributes known before the call
}

func newToolInfo(m *runtime.Meta) *toolInfo {
	ti := &toolInfo{spanName: "execute_tool"}
	ti.attrs = []attribute.KeyValue{semconv.GenAIOperationNameExecuteTool, semconv.GenAIToolType(ToolTypeFunction)}
	if m == nil {
		return ti
	}
	ti.spanName += " " + m.Name
	ti.attrs = append(ti.attrs, semconv.GenAIToolName(m.Name))
	if m.Description != "" {
		ti.attrs = append(ti.attrs, semconv.GenAIToolDescription(m.Description))
	}
	risk := m.Risk
	if risk == "" {
		risk = runtime.RiskLow
	}
	ti.attrs = append(ti.attrs, AttrRisk.String(string(risk)), AttrSideEffects.Bool(m.HasSideEffects))
	if m.SLA > 0 {
		ti.attrs = append(ti.attrs, AttrSLA.Int64(m.SLA.Milliseconds()))
	}
	return ti
}

// info returns what the hook keeps of the tool m describes; nil m is a
// tool the registry does not have.
func (h *Hook) info(m *runtime.Meta) *toolInfo {
	if m == nil {
		return h.unknownInfo
	}
	if ti, ok := h.tools.Load(m); ok {
		return ti.(*toolInfo)
	}
	ti, _ := h.tools.LoadOrStore(m, newToolInfo(m))
	return ti.(*toolInfo)
}

// outcomes holds the histogram's attributes of one tool, by code, made
// once each: recording a call allocates nothing.
type outcomes struct {
	base  []attribute.KeyValue // without error.type
	codes atomic.Pointer[map[runtime.Code][]metric.RecordOption]
	mu    sync.Mutex // serialises additions to codes
}

// newOutcomes returns the outcomes of tool name; "" is every tool the
// registry does not have, whose names are not recorded (the model may send
// any).
func newOutcomes(name string) *outcomes {
	o := &outcomes{base: []attribute.KeyValue{semconv.GenAIOperationNameExecuteTool}}
	if name != "" {
		o.base = append(o.base, semconv.GenAIToolName(name))
	}
	empty := map[runtime.Code][]metric.RecordOption{}
	o.codes.Store(&empty)
	return o
}

func (h *Hook) outcomes(ev *runtime.CallEvent) *outcomes {
	if ev.Unknown {
		return h.unknown
	}
	if o, ok := h.metrics.Load(ev.Tool); ok {
		return o.(*outcomes)
	}
	o, _ := h.metrics.LoadOrStore(ev.Tool, newOutcomes(ev.Tool))
	return o.(*outcomes)
}

// options returns the histogram's attributes for code.
func (o *outcomes) options(code runtime.Code) []metric.RecordOption {
	if opts, ok := (*o.codes.Load())[code]; ok {
		return opts
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	old := *o.codes.Load()
	if opts, ok := old[code]; ok {
		return opts
	}
	attrs := append([]attribute.KeyValue(nil), o.base...)
	if code != "" {
		attrs = append(attrs, semconv.ErrorTypeKey.String(string(code)))
	}
	opts := []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(attrs...))}
	next := make(map[runtime.Code][]metric.RecordOption, len(old)+1)
	for k, v := range old {
		next[k] = v
	}
	next[code] = opts
	o.codes.Store(&next)
	return opts
}

// BeforeCall starts the call's span.
func (h *Hook) BeforeCall(ctx context.Context, c runtime.CallStart) context.Context {
	ti := h.info(c.Meta)
	name := ti.spanName
	if c.Meta == nil {
		name = "execute_tool " + c.Tool
	}
	ctx, span := h.tracer.Start(ctx, name, h.startOpts...)
	if !span.IsRecording() {
		return ctx
	}
	span.SetAttributes(ti.attrs...)
	if c.Meta == nil {
		span.SetAttributes(semconv.GenAIToolName(c.Tool))
	}
	if c.CallID != "" {
		span.SetAttributes(semconv.GenAIToolCallID(c.CallID))
	}
	if c.Options.DryRun {
		span.SetAttributes(AttrDryRun.Bool(true))
	}
	if c.Revert {
		span.SetAttributes(AttrRevert.Bool(true))
	}
	if c.Retry {
		span.SetAttributes(AttrRetry.Bool(true))
	}
	if c.Options.StepID != "" {
		span.SetAttributes(AttrStep.String(c.Options.StepID))
	}
	if h.content > 0 {
		span.SetAttributes(semconv.GenAIToolCallArgumentsKey.String(clip(string(c.Args), h.content)))
	}
	return ctx
}

// AfterCall ends the call's span and records its duration, unless it is a
// revert: the histogram counts the calls observers are told of.
func (h *Hook) AfterCall(ctx context.Context, ev runtime.CallEvent, res runtime.Result) {
	code := ev.Code
	if code != "" && !code.Valid() {
		code = runtime.CodeInternal // as runtime/admin counts it
	}
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		h.finish(span, ev, code, res)
		span.End()
	}
	if ev.Revert {
		return
	}
	h.duration.Record(ctx, ev.Duration.Seconds(), h.outcomes(&ev).options(code)...)
}

// finish sets what the call's outcome says on its recording span.
func (h *Hook) finish(span trace.Span, ev runtime.CallEvent, code runtime.Code, res runtime.Result) {
	span.SetAttributes(AttrDurationMS.Float64(float64(ev.Duration) / float64(time.Millisecond)))
	if ev.Replayed {
		span.SetAttributes(AttrReplayed.Bool(true))
	}
	if ev.RetryExhausted {
		span.SetAttributes(AttrRetryExhausted.Bool(true))
	}
	if ev.Fallback != "" {
		span.SetAttributes(AttrFallback.String(ev.Fallback))
	}
	if res.Untrusted != nil {
		span.SetAttributes(AttrUntrusted.String(res.Untrusted.Source))
	}
	if ev.SLAMiss {
		span.AddEvent(EventSLAMiss)
	}
	if h.content > 0 {
		span.SetAttributes(semconv.GenAIToolCallResultKey.String(resultText(res, h.content)))
	}
	if code == "" {
		return
	}
	span.SetAttributes(semconv.ErrorTypeKey.String(string(code)))
	desc := string(code)
	if h.content > 0 && res.Error != nil {
		desc = clip(res.Error.Message, h.content)
	}
	span.SetStatus(codes.Error, desc)
}
