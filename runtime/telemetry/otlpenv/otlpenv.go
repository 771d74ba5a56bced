// Package otlpenv exports a host's traces over OTLP/HTTP when the standard
// OpenTelemetry environment asks for it, as the example agent host and
// articles-serve do:
//
//	tp, err := otlpenv.TracerProvider(ctx, "my-agent")
//	if err != nil { ... }
//	if tp != nil { // OTEL_EXPORTER_OTLP_ENDPOINT is set
//		defer tp.Shutdown(context.Background())
//		hook := telemetry.NewHook(telemetry.HookTracerProvider(tp))
//		...
//	}
//
// It is apart from runtime/telemetry so that a host recording spans
// another way links no exporter.
package otlpenv

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// The environment variables read here; the exporter reads the other
// OTEL_EXPORTER_OTLP_* variables (headers, timeout, compression,
// certificates) itself.
const (
	EndpointEnv       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	TracesEndpointEnv = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	ProtocolEnv       = "OTEL_EXPORTER_OTLP_PROTOCOL"
	TracesProtocolEnv = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	SDKDisabledEnv    = "OTEL_SDK_DISABLED"
)

// Enabled reports whether the environment asks for traces to be exported:
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set,
// and OTEL_SDK_DISABLED is not "true".
func Enabled(getenv func(string) string) bool {
	if getenv(SDKDisabledEnv) == "true" {
		return false
	}
	return getenv(EndpointEnv) != "" || getenv(TracesEndpointEnv) != ""
}

// TracerProvider returns a tracer provider that batches spans to the
// OTLP/HTTP endpoint of the environment, or nil (and no error) when getenv
// asks for no export (Enabled). The exporter reads the endpoint and the
// other OTEL_EXPORTER_OTLP_* variables from the process's environment. Its resource is service.name
// service, overridden by OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES.
// A protocol other than http/protobuf is an error: only that one is
// linked. opts are added to the provider's (another exporter, a sampler).
// Shutdown flushes the spans not yet sent.
func TracerProvider(ctx context.Context, service string, getenv func(string) string, opts ...sdktrace.TracerProviderOption) (*sdktrace.TracerProvider, error) {
	if !Enabled(getenv) {
		return nil, nil
	}
	proto := getenv(TracesProtocolEnv)
	if proto == "" {
		proto = getenv(ProtocolEnv)
	}
	if proto != "" && proto != "http/protobuf" {
		return nil, fmt.Errorf("%s=%s: only http/protobuf is supported", ProtocolEnv, proto)
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("the OTLP trace exporter: %w", err)
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", service)),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv(),
	)
	if err != nil {
		return nil, fmt.Errorf("the resource of the traces: %w", err)
	}
	opts = append([]sdktrace.TracerProviderOption{sdktrace.WithBatcher(exp), sdktrace.WithResource(res)}, opts...)
	return sdktrace.NewTracerProvider(opts...), nil
}
