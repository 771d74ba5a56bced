package mcpserver

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolcat/toolcat/runtime"
)

// Tracing: every request the server receives is a span of kind server, as
// the MCP semantic conventions of v1.41.0 describe, continuing the trace
// whose context the client put in the request's params._meta
// (traceparent, tracestate and baggage, as W3C Trace Context writes them).
// The registry's tool calls, recorded by runtime/telemetry's hook, nest
// under it.

// traceScope is the instrumentation scope of the server's spans and
// metrics.
const traceScope = "github.com/toolcat/toolcat/runtime/mcpserver"

// ServerOperationDurationName is the MCP conventions' histogram of the
// server's requests, in seconds.
const ServerOperationDurationName = "mcp.server.operation.duration"

// ToolErrorType is error.type of a tools/call whose result is an error
// (isError), as the MCP conventions name it.
const ToolErrorType = "tool_error"

// serverTracing is the server's OpenTelemetry set-up; the zero value
// records nothing.
type serverTracing struct {
	once  sync.Once
	tp    trace.TracerProvider
	mp    metric.MeterProvider
	prop  propagation.TextMapPropagator
	dur   metric.Float64Histogram
	trace trace.Tracer
}

// WithTracerProvider makes the server record every request it receives as
// a span of tp, a child of the client's span when the request's _meta
// carries its trace context; see the package README, "Traces".
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(s *Server) { s.otel.tp = tp }
}

// WithMeterProvider makes the server record the duration of every request
// in mp's mcp.server.operation.duration histogram.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(s *Server) { s.otel.mp = mp }
}

// WithPropagator sets how the trace context is read from a request's
// _meta (default W3C Trace Context and Baggage).
func WithPropagator(p propagation.TextMapPropagator) Option {
	return func(s *Server) { s.otel.prop = p }
}

// traceMiddleware returns the receiving middleware that records requests,
// none when neither a tracer nor a meter provider was given.
func (s *Server) traceMiddleware() []mcp.Middleware {
	t := &s.otel
	if t.tp == nil && t.mp == nil {
		return nil
	}
	t.once.Do(func() {
		if t.prop == nil {
			t.prop = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
		}
		if t.tp != nil {
			t.trace = t.tp.Tracer(traceScope, trace.WithSchemaURL(semconv.SchemaURL))
		}
		if t.mp != nil {
			d, err := t.mp.Meter(traceScope, metric.WithSchemaURL(semconv.SchemaURL)).Float64Histogram(ServerOperationDurationName,
				metric.WithUnit("s"), metric.WithDescription("MCP request or notification duration as observed on the receiver."),
				metric.WithExplicitBucketBoundaries(0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300))
			if err != nil {
				s.logger.Warn("mcpserver: no request histogram", "err", err)
			} else {
				t.dur = d
			}
		}
	})
	return []mcp.Middleware{s.traced}
}

// metaCarrier reads and writes the trace context in a request's _meta.
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string {
	v, _ := m[key].(string)
	return v
}

func (m metaCarrier) Set(key, value string) { m[key] = value }

func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// requestMeta is the _meta of req's params, or nil.
func requestMeta(req mcp.Request) map[string]any {
	p := req.GetParams()
	if p == nil {
		return nil
	}
	if v := reflect.ValueOf(p); v.Kind() == reflect.Pointer && v.IsNil() {
		return nil
	}
	return p.GetMeta()
}

// traced records one request.
func (s *Server) traced(next mcp.MethodHandler) mcp.MethodHandler {
	t := &s.otel
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		start := time.Now()
		ctx = t.prop.Extract(ctx, metaCarrier(requestMeta(req)))
		attrs := []attribute.KeyValue{semconv.McpMethodNameKey.String(method)}
		name := method
		var tool string
		if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil {
			tool = r.Params.Name
			name += " " + tool
			attrs = append(attrs, semconv.GenAIToolName(tool), semconv.GenAIOperationNameExecuteTool)
		}
		if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil && ss.ID() != "" {
			attrs = append(attrs, semconv.McpSessionID(ss.ID()))
		}
		if v := protocolVersion(req); v != "" {
			attrs = append(attrs, semconv.McpProtocolVersion(v))
		}
		if ex := req.GetExtra(); ex != nil && ex.Header != nil {
			attrs = append(attrs, semconv.NetworkTransportTCP, semconv.NetworkProtocolName("http"))
		} else {
			attrs = append(attrs, semconv.NetworkTransportPipe)
		}
		var span trace.Span
		if t.trace != nil {
			ctx, span = t.trace.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
		}
		res, err := next(ctx, method, req)
		var outcome []attribute.KeyValue
		var je *jsonrpc.Error
		switch {
		case errors.As(err, &je):
			code := strconv.FormatInt(je.Code, 10)
			outcome = append(outcome, semconv.ErrorTypeKey.String(code), semconv.RPCResponseStatusCode(code))
		case err != nil:
			outcome = append(outcome, semconv.ErrorTypeOther)
		default:
			if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.IsError {
				outcome = append(outcome, semconv.ErrorTypeKey.String(ToolErrorType))
			}
		}
		if span != nil {
			if len(outcome) > 0 {
				span.SetAttributes(outcome...)
				span.SetStatus(codes.Error, outcome[0].Value.AsString())
			}
			span.End()
		}
		if t.dur != nil {
			if tool != "" && !s.known(tool) {
				attrs = dropToolName(attrs) // the client may send any name
			}
			t.dur.Record(ctx, time.Since(start).Seconds(), metric.WithAttributes(append(attrs, outcome...)...))
		}
		return res, err
	}
}

// protocolVersion is the MCP revision of req: its _meta's (2026-07-28 and
// later) or its session's.
func protocolVersion(req mcp.Request) string {
	if v, ok := requestMeta(req)[mcp.MetaKeyProtocolVersion].(string); ok {
		return v
	}
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
		if p := ss.InitializeParams(); p != nil {
			return p.ProtocolVersion
		}
	}
	return ""
}

// known reports whether the server answers tool name: a tool of the
// registry or of the sessions.
func (s *Server) known(name string) bool {
	if _, ok := s.reg.Get(name); ok {
		return true
	}
	return name == runtime.SearchToolsByKeywords || name == runtime.SearchToolsByRegex || name == runtime.UndoLastActions
}

func dropToolName(attrs []attribute.KeyValue) []attribute.KeyValue {
	out := attrs[:0:0]
	for _, kv := range attrs {
		if kv.Key != semconv.GenAIToolNameKey {
			out = append(out, kv)
		}
	}
	return out
}
