package mcpclient

import (
	"context"
	"errors"
	"maps"
	"reflect"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

// Trace context: every request a Mounted server is sent carries the
// OpenTelemetry trace context of its caller in params._meta (traceparent,
// tracestate, baggage), as the MCP semantic conventions describe, so that
// the server's spans join the host's trace: under the execute_tool span of
// the mounted tool, when the registry records spans (runtime/telemetry).
// With WithTracerProvider each request is also a span of kind client, as
// the MCP semantic conventions of v1.41.0 describe, and the context sent is
// that span's.

// traceScope is the instrumentation scope of the client's spans.
const traceScope = "github.com/toolcat/toolcat/runtime/mcpclient"

// WithTracerProvider records every request sent to the server as a span of
// tp, of kind client, named "tools/call <tool>" (or the method alone), with
// mcp.method.name, gen_ai.tool.name, mcp.session.id and error.type
// (tool_error for an isError result, else the JSON-RPC code).
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) { c.tp = tp }
}

// WithPropagator sets how the trace context is written into a request's
// _meta (default W3C Trace Context and Baggage); a
// propagation.NewCompositeTextMapPropagator() with no member writes none.
func WithPropagator(p propagation.TextMapPropagator) Option {
	return func(c *config) { c.prop = p }
}

// propagator is the configured propagator, or the default.
func (c *config) propagator() propagation.TextMapPropagator {
	if c.prop != nil {
		return c.prop
	}
	return propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
}

// traceMiddleware writes the caller's trace context into the _meta of
// every request sent, within a client span of its own when a tracer
// provider was given.
func (c *config) traceMiddleware() mcp.Middleware {
	prop := c.propagator()
	var tracer trace.Tracer
	if c.tp != nil {
		tracer = c.tp.Tracer(traceScope, trace.WithSchemaURL(semconv.SchemaURL))
	}
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			var span trace.Span
			if tracer != nil {
				name, attrs := method, []attribute.KeyValue{semconv.McpMethodNameKey.String(method)}
				if p, ok := req.GetParams().(*mcp.CallToolParams); ok && p != nil {
					name += " " + p.Name
					attrs = append(attrs, semconv.GenAIToolName(p.Name), semconv.GenAIOperationNameExecuteTool)
				}
				if cs, ok := req.GetSession().(*mcp.ClientSession); ok && cs != nil && cs.ID() != "" {
					attrs = append(attrs, semconv.McpSessionID(cs.ID()))
				}
				ctx, span = tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
			}
			carrier := propagation.MapCarrier{}
			prop.Inject(ctx, carrier)
			if p := req.GetParams(); len(carrier) > 0 && p != nil && !isNil(p) {
				meta := maps.Clone(p.GetMeta())
				if meta == nil {
					meta = make(map[string]any, len(carrier))
				}
				for k, v := range carrier {
					meta[k] = v
				}
				p.SetMeta(meta)
			}
			res, err := next(ctx, method, req)
			if span != nil {
				endSpan(span, res, err)
			}
			return res, err
		}
	}
}

// endSpan sets the outcome of a request on its span and ends it.
func endSpan(span trace.Span, res mcp.Result, err error) {
	defer span.End()
	var je *jsonrpc.Error
	errType := ""
	switch {
	case errors.As(err, &je):
		errType = strconv.FormatInt(je.Code, 10)
		span.SetAttributes(semconv.RPCResponseStatusCode(errType))
	case err != nil:
		errType = semconv.ErrorTypeOther.Value.AsString()
	default:
		if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.IsError {
			errType = "tool_error"
		}
	}
	if errType != "" {
		span.SetAttributes(semconv.ErrorTypeKey.String(errType))
		span.SetStatus(codes.Error, errType)
	}
}

func isNil(p mcp.Params) bool {
	v := reflect.ValueOf(p)
	return v.Kind() == reflect.Pointer && v.IsNil()
}
