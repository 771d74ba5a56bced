package otlpenv_test

import (
	"bytes"
	"context"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"testing"

	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/internal/sessionflow"
	"github.com/toolcat/toolcat/runtime/telemetry"
	"github.com/toolcat/toolcat/runtime/telemetry/otlpenv"
	"github.com/toolcat/toolcat/runtime/telemetry/otlpenv/otlptest"
)

func attr(s *tracepb.Span, key string) (string, bool) {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return kv.Value.GetStringValue(), true
		}
	}
	return "", false
}

// TestOTLPExport sends the spans of a composite call and a failed one to a
// real OTLP/HTTP receiver, named by OTEL_EXPORTER_OTLP_ENDPOINT as a host's
// environment would, and reads them back from the protobuf.
func TestOTLPExport(t *testing.T) {
	rc := otlptest.NewReceiver(t)
	t.Setenv(otlpenv.EndpointEnv, rc.URL)
	t.Setenv("OTEL_SERVICE_NAME", "")
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment.name=test")
	ctx := context.Background()
	tp, err := otlpenv.TracerProvider(ctx, "toolcat-test", func(k string) string {
		if k == otlpenv.EndpointEnv {
			return rc.URL
		}
		return ""
	})
	if err != nil || tp == nil {
		t.Fatalf("TracerProvider: %v, %v", tp, err)
	}
	w := sessionflow.NewWorld()
	reg := runtime.New(runtime.WithCallHook(telemetry.NewHook(telemetry.HookTracerProvider(tp))),
		runtime.WithLogger(slog.New(slog.DiscardHandler)))
	for _, tool := range w.Tools() {
		if err := reg.Register(tool); err != nil {
			t.Fatal(err)
		}
	}
	cctx := runtime.ContextWithCallID(ctx, "call_7")
	if res := reg.Call(cctx, "digest_and_post", []byte(`{}`), runtime.CallOptions{}); !res.Success {
		t.Fatal(string(res.JSON()))
	}
	reg.Call(ctx, "flaky_lookup", []byte(`{}`), runtime.CallOptions{})
	if err := tp.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}

	requests, refused := rc.Requests()
	if len(refused) > 0 {
		t.Fatalf("the receiver refused: %v", refused)
	}
	spans := map[string]*tracepb.Span{}
	var names []string
	for _, req := range requests {
		for _, rs := range req.ResourceSpans {
			res := map[string]string{}
			for _, kv := range rs.Resource.GetAttributes() {
				res[kv.Key] = kv.Value.GetStringValue()
			}
			if res["service.name"] != "toolcat-test" || res["deployment.environment.name"] != "test" || res["telemetry.sdk.language"] != "go" {
				t.Errorf("resource: %v", res)
			}
			for _, ss := range rs.ScopeSpans {
				if ss.Scope.GetName() != telemetry.ScopeName || ss.SchemaUrl != telemetry.SchemaURL {
					t.Errorf("scope %q, schema %q", ss.Scope.GetName(), ss.SchemaUrl)
				}
				for _, s := range ss.Spans {
					spans[s.Name] = s
					names = append(names, s.Name)
				}
			}
		}
	}
	slices.Sort(names)
	want := []string{"execute_tool digest_and_post", "execute_tool fetch_page", "execute_tool flaky_lookup", "execute_tool publish_post"}
	if !slices.Equal(names, want) {
		t.Fatalf("spans received: %v, want %v", names, want)
	}
	outer := spans["execute_tool digest_and_post"]
	for _, inner := range []string{"execute_tool fetch_page", "execute_tool publish_post"} {
		s := spans[inner]
		if !bytes.Equal(s.ParentSpanId, outer.SpanId) || !bytes.Equal(s.TraceId, outer.TraceId) {
			t.Errorf("%s is not a child of the composite's span", inner)
		}
	}
	if len(outer.ParentSpanId) != 0 {
		t.Errorf("the composite's span has a parent")
	}
	for name, s := range spans {
		if s.Kind != tracepb.Span_SPAN_KIND_INTERNAL {
			t.Errorf("%s: kind %v", name, s.Kind)
		}
		if op, _ := attr(s, "gen_ai.operation.name"); op != "execute_tool" {
			t.Errorf("%s: gen_ai.operation.name %q", name, op)
		}
		if tool, _ := attr(s, "gen_ai.tool.name"); "execute_tool "+tool != name {
			t.Errorf("%s: gen_ai.tool.name %q", name, tool)
		}
		if s.EndTimeUnixNano < s.StartTimeUnixNano || s.StartTimeUnixNano == 0 {
			t.Errorf("%s: from %d to %d", name, s.StartTimeUnixNano, s.EndTimeUnixNano)
		}
	}
	if id, _ := attr(outer, "gen_ai.tool.call.id"); id != "call_7" {
		t.Errorf("call id %q", id)
	}
	if src, _ := attr(spans["execute_tool fetch_page"], "toolcat.untrusted.source"); src != "web" {
		t.Errorf("untrusted source %q", src)
	}
	failed := spans["execute_tool flaky_lookup"]
	if et, _ := attr(failed, "error.type"); et != "external_error" || failed.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("failed call: error.type %q, status %v", et, failed.Status)
	}
}

// TestOTLPDisabled checks that nothing is set up without an endpoint, or
// with the SDK disabled, and that an unsupported protocol is refused.
func TestOTLPDisabled(t *testing.T) {
	ctx := context.Background()
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	for _, e := range []map[string]string{
		{},
		{otlpenv.EndpointEnv: "http://127.0.0.1:4318", otlpenv.SDKDisabledEnv: "true"},
	} {
		if tp, err := otlpenv.TracerProvider(ctx, "x", env(e)); tp != nil || err != nil {
			t.Errorf("%v: got %v, %v; want nothing", e, tp, err)
		}
		if mp, err := otlpenv.MeterProvider(ctx, "x", env(e)); mp != nil || err != nil {
			t.Errorf("%v: got %v, %v; want no meter provider", e, mp, err)
		}
	}
	if mp, err := otlpenv.MeterProvider(ctx, "x", env(map[string]string{otlpenv.TracesEndpointEnv: "http://127.0.0.1:4318/v1/traces"})); mp != nil || err != nil {
		t.Errorf("a traces endpoint set up metrics: %v, %v", mp, err)
	}
	_, err := otlpenv.TracerProvider(ctx, "x", env(map[string]string{otlpenv.TracesEndpointEnv: "http://127.0.0.1:4317", otlpenv.ProtocolEnv: "grpc"}))
	if err == nil {
		t.Error("grpc accepted")
	}
	_, err = otlpenv.MeterProvider(ctx, "x", env(map[string]string{otlpenv.EndpointEnv: "http://127.0.0.1:4317", otlpenv.MetricsProtocolEnv: "grpc"}))
	if err == nil || !strings.Contains(err.Error(), otlpenv.MetricsProtocolEnv) {
		t.Errorf("grpc for metrics: %v", err)
	}
}

// TestOTLPMetricsExport sends the call histogram to a real OTLP/HTTP
// receiver, named by OTEL_EXPORTER_OTLP_METRICS_ENDPOINT, and reads it
// back from the protobuf: resource, scope, instrument, temporality,
// bounds, and the calls by tool and outcome, a session's own included.
func TestOTLPMetricsExport(t *testing.T) {
	rc := otlptest.NewReceiver(t)
	endpoint := rc.URL + "/v1/metrics" // a signal's endpoint is the full URL
	t.Setenv(otlpenv.EndpointEnv, "")
	t.Setenv(otlpenv.MetricsEndpointEnv, endpoint)
	t.Setenv("OTEL_SERVICE_NAME", "")
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment.name=test")
	ctx := context.Background()
	getenv := func(k string) string {
		if k == otlpenv.MetricsEndpointEnv {
			return endpoint
		}
		return ""
	}
	if tp, err := otlpenv.TracerProvider(ctx, "toolcat-test", getenv); tp != nil || err != nil {
		t.Fatalf("a metrics endpoint set up traces: %v, %v", tp, err)
	}
	mp, err := otlpenv.MeterProvider(ctx, "toolcat-test", getenv)
	if err != nil || mp == nil {
		t.Fatalf("MeterProvider: %v, %v", mp, err)
	}
	w := sessionflow.NewWorld()
	reg := runtime.New(runtime.WithCallHook(telemetry.NewHook(telemetry.HookMeterProvider(mp))),
		runtime.WithLogger(slog.New(slog.DiscardHandler)))
	for _, tool := range w.Tools() {
		if err := reg.Register(tool); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		reg.Call(ctx, "search_docs", []byte(`{}`), runtime.CallOptions{})
	}
	reg.Call(ctx, "flaky_lookup", []byte(`{}`), runtime.CallOptions{})
	reg.Session("conv-1").Call(ctx, runtime.SearchToolsByKeywords, []byte(`{"query":"export invoices"}`), runtime.CallOptions{})
	if err := mp.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}

	reqs, refused := rc.MetricRequests()
	if len(refused) > 0 || len(reqs) == 0 {
		t.Fatalf("the receiver got %d exports, refused %v", len(reqs), refused)
	}
	found := false
	for _, rm := range reqs[len(reqs)-1].ResourceMetrics {
		res := map[string]string{}
		for _, kv := range rm.Resource.GetAttributes() {
			res[kv.Key] = kv.Value.GetStringValue()
		}
		if res["service.name"] != "toolcat-test" || res["deployment.environment.name"] != "test" {
			t.Errorf("resource: %v", res)
		}
		for _, sm := range rm.ScopeMetrics {
			if sm.Scope.GetName() != telemetry.ScopeName || sm.SchemaUrl != telemetry.SchemaURL {
				t.Errorf("scope %q, schema %q", sm.Scope.GetName(), sm.SchemaUrl)
			}
			for _, m := range sm.Metrics {
				if m.Name != telemetry.CallDurationName {
					continue
				}
				found = true
				h := m.GetHistogram()
				if m.Unit != "s" || h == nil || h.AggregationTemporality != metricpb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE {
					t.Errorf("%s: unit %q, %T", m.Name, m.Unit, m.Data)
					continue
				}
				for _, p := range h.DataPoints {
					if len(p.ExplicitBounds) != 17 || p.ExplicitBounds[0] != 0.0005 || p.ExplicitBounds[16] != 300 {
						t.Errorf("bounds %v", p.ExplicitBounds)
					}
				}
			}
		}
	}
	if !found {
		t.Fatalf("no %s received", telemetry.CallDurationName)
	}
	byTool := rc.HistogramCounts(t, telemetry.CallDurationName, "gen_ai.tool.name")
	if want := map[string]uint64{"search_docs": 3, "flaky_lookup": 1, runtime.SearchToolsByKeywords: 1}; !maps.Equal(byTool, want) {
		t.Errorf("calls by tool %v, want %v", byTool, want)
	}
	byCode := rc.HistogramCounts(t, telemetry.CallDurationName, "error.type")
	if want := map[string]uint64{"": 4, "external_error": 1}; !maps.Equal(byCode, want) {
		t.Errorf("calls by outcome %v, want %v", byCode, want)
	}
}
