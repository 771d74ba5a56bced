// Package otlpenv exports a host's traces and metrics over OTLP/HTTP when
// the standard OpenTelemetry environment asks for it, as the example agent
// host and articles-serve do:
//
//	tp, err := otlpenv.TracerProvider(ctx, "my-agent", os.Getenv)
//	if err != nil { ... }
//	mp, err := otlpenv.MeterProvider(ctx, "my-agent", os.Getenv)
//	if err != nil { ... }
//	var opts []telemetry.HookOption
//	if tp != nil { // OTEL_EXPORTER_OTLP_ENDPOINT is set
//		defer tp.Shutdown(context.Background())
//		opts = append(opts, telemetry.HookTracerProvider(tp))
//	}
//	if mp != nil {
//		defer mp.Shutdown(context.Background())
//		opts = append(opts, telemetry.HookMeterProvider(mp))
//	}
//	hook := telemetry.NewHook(opts...)
//
// It is apart from runtime/telemetry so that a host recording spans and
// metrics another way links no exporter.
package otlpenv

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// The environment variables read here; the exporter reads the other
// OTEL_EXPORTER_OTLP_* variables (headers, timeout, compression,
// certificates) itself.
const (
	EndpointEnv        = "OTEL_EXPORTER_OTLP_ENDPOINT"
	TracesEndpointEnv  = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	MetricsEndpointEnv = "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"
	ProtocolEnv        = "OTEL_EXPORTER_OTLP_PROTOCOL"
	TracesProtocolEnv  = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	MetricsProtocolEnv = "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"
	SDKDisabledEnv     = "OTEL_SDK_DISABLED"
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

// MetricsEnabled reports whether the environment asks for metrics to be
// exported: OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_METRICS_ENDPOINT is set, and OTEL_SDK_DISABLED is not
// "true".
func MetricsEnabled(getenv func(string) string) bool {
	if getenv(SDKDisabledEnv) == "true" {
		return false
	}
	return getenv(EndpointEnv) != "" || getenv(MetricsEndpointEnv) != ""
}

// TracerProvider returns a tracer provider that batches spans to the
// OTLP/HTTP endpoint of the environment, or nil (and no error) when getenv
// asks for no export (Enabled). The exporter reads the endpoint and the
// other OTEL_EXPORTER_OTLP_* variables from the process's environment. Its
// resource is service.name service, overridden by OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES. A protocol other than http/protobuf is an
// error: only that one is linked. opts are added to the provider's
// (another exporter, a sampler). Shutdown flushes the spans not yet sent.
func TracerProvider(ctx context.Context, service string, getenv func(string) string, opts ...sdktrace.TracerProviderOption) (*sdktrace.TracerProvider, error) {
	if !Enabled(getenv) {
		return nil, nil
	}
	if err := checkProtocol(getenv, TracesProtocolEnv); err != nil {
		return nil, err
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("the OTLP trace exporter: %w", err)
	}
	res, err := serviceResource(ctx, service)
	if err != nil {
		return nil, fmt.Errorf("the resource of the traces: %w", err)
	}
	opts = append([]sdktrace.TracerProviderOption{sdktrace.WithBatcher(exp), sdktrace.WithResource(res)}, opts...)
	return sdktrace.NewTracerProvider(opts...), nil
}

// MeterProvider returns a meter provider that exports its metrics to the
// OTLP/HTTP endpoint of the environment every minute (the SDK reads
// OTEL_METRIC_EXPORT_INTERVAL and OTEL_METRIC_EXPORT_TIMEOUT), or nil (and
// no error) when getenv asks for no export (MetricsEnabled). The exporter
// reads the endpoint and the other OTEL_EXPORTER_OTLP_* variables from the
// process's environment (OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE
// among them; cumulative by default). Its resource and protocol are as
// TracerProvider's. opts are added to the provider's (a view, another
// reader). Shutdown exports what was not sent yet.
func MeterProvider(ctx context.Context, service string, getenv func(string) string, opts ...sdkmetric.Option) (*sdkmetric.MeterProvider, error) {
	if !MetricsEnabled(getenv) {
		return nil, nil
	}
	if err := checkProtocol(getenv, MetricsProtocolEnv); err != nil {
		return nil, err
	}
	exp, err := otlpmetrichttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("the OTLP metric exporter: %w", err)
	}
	res, err := serviceResource(ctx, service)
	if err != nil {
		return nil, fmt.Errorf("the resource of the metrics: %w", err)
	}
	opts = append([]sdkmetric.Option{sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)), sdkmetric.WithResource(res)}, opts...)
	return sdkmetric.NewMeterProvider(opts...), nil
}

// checkProtocol refuses a protocol other than http/protobuf, from signal's
// variable or else the general one.
func checkProtocol(getenv func(string) string, signal string) error {
	name, proto := signal, getenv(signal)
	if proto == "" {
		name, proto = ProtocolEnv, getenv(ProtocolEnv)
	}
	if proto != "" && proto != "http/protobuf" {
		return fmt.Errorf("%s=%s: only http/protobuf is supported", name, proto)
	}
	return nil
}

// serviceResource is the resource of service, as the environment amends
// it.
func serviceResource(ctx context.Context, service string) (*resource.Resource, error) {
	return resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", service)),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv(),
	)
}
