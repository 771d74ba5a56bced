package telemetry

import (
	"context"
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolcat/toolcat/runtime"
)

// clip cuts s to at most n bytes, never inside a character, and says how
// long it was.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

// resultText is the envelope the model reads, cut to n bytes. An envelope
// holding outside content is its untrusted block's opening tag, the content
// cut, and its closing tag, so that what is recorded stays marked as
// outside data however it is cut.
func resultText(res runtime.Result, n int) string {
	u := res.Untrusted
	if u == nil {
		return clip(string(res.JSON()), n)
	}
	var inner []byte
	if res.Success {
		if raw, ok := res.Data.(json.RawMessage); ok {
			inner = raw
		} else {
			inner, _ = json.Marshal(res.Data)
		}
	} else {
		inner, _ = json.Marshal(res.Error)
	}
	return u.Open() + clip(string(inner), n) + u.Close()
}

// ApprovalRequested adds a span for the call a session kept for the
// user's approval: the model's call, answered approval_required.
func (h *Hook) ApprovalRequested(ctx context.Context, pc runtime.PendingCall) {
	_, span := h.tracer.Start(ctx, "execute_tool "+pc.Tool, h.startOpts...)
	if span.IsRecording() {
		span.SetAttributes(semconv.GenAIOperationNameExecuteTool, semconv.GenAIToolType(ToolTypeFunction),
			semconv.GenAIToolName(pc.Tool), AttrApprovalID.String(pc.ID), AttrApprovalTaint.Bool(pc.Tainted),
			semconv.ErrorTypeKey.String(string(runtime.CodeApprovalRequired)))
		if id := runtime.CallIDFrom(ctx); id != "" {
			span.SetAttributes(semconv.GenAIToolCallID(id))
		}
		if h.content > 0 {
			span.SetAttributes(semconv.GenAIToolCallArgumentsKey.String(clip(string(pc.Args), h.content)),
				AttrApprovalReason.String(clip(pc.Reason, h.content)))
		}
		span.AddEvent(EventApprovalRequired, trace.WithAttributes(AttrApprovalID.String(pc.ID)))
		span.SetStatus(codes.Error, string(runtime.CodeApprovalRequired))
	}
	span.End()
}

// ApprovalResolved records the wait for the user's answer as a span of its
// own, "toolcat.approval <tool>", from the moment the call was kept to the
// answer, in the trace of the request that answered.
func (h *Hook) ApprovalResolved(ctx context.Context, pc runtime.PendingCall, at time.Time) {
	attrs := []attribute.KeyValue{semconv.GenAIToolName(pc.Tool), AttrApprovalID.String(pc.ID),
		AttrApprovalStatus.String(string(pc.Status)), AttrApprovalTaint.Bool(pc.Tainted)}
	if h.content > 0 && pc.Denial != "" {
		attrs = append(attrs, AttrDenial.String(clip(pc.Denial, h.content)))
	}
	_, span := h.tracer.Start(ctx, "toolcat.approval "+pc.Tool, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithTimestamp(pc.At), trace.WithAttributes(attrs...))
	span.End(trace.WithTimestamp(at))
}
