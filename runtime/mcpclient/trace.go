package mcpclient

import (
	"context"
	"maps"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/propagation"
)

// Trace context: every request a Mounted server is sent carries the
// OpenTelemetry trace context of its caller in params._meta (traceparent,
// tracestate, baggage), as the MCP semantic conventions describe, so that
// the server's spans join the host's trace: under the execute_tool span of
// the mounted tool, when the registry records spans (runtime/telemetry).

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
// every request sent.
func (c *config) traceMiddleware() mcp.Middleware {
	prop := c.propagator()
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
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
			return next(ctx, method, req)
		}
	}
}

func isNil(p mcp.Params) bool {
	v := reflect.ValueOf(p)
	return v.Kind() == reflect.Pointer && v.IsNil()
}
