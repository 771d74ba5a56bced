package telemetry_test

import (
	"context"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/admin"
	"github.com/toolcat/toolcat/runtime/telemetry"
)

type outcome struct {
	tool string
	code runtime.Code
}

// histogram reads the call histogram's points by tool and outcome.
func histogram(t *testing.T, r *sdkmetric.ManualReader) (map[outcome]uint64, map[outcome]float64) {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	counts, sums := map[outcome]uint64{}, map[outcome]float64{}
	found := false
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != telemetry.ScopeName || sm.Scope.SchemaURL != telemetry.SchemaURL {
			t.Errorf("scope %+v", sm.Scope)
		}
		for _, m := range sm.Metrics {
			if m.Name != telemetry.CallDurationName {
				t.Errorf("instrument %s", m.Name)
				continue
			}
			found = true
			if m.Unit != "s" {
				t.Errorf("unit %q", m.Unit)
			}
			h, ok := m.Data.(metricdata.Histogram[float64])
			if !ok {
				t.Fatalf("%s is a %T", m.Name, m.Data)
			}
			for _, p := range h.DataPoints {
				op, _ := p.Attributes.Value("gen_ai.operation.name")
				tool, _ := p.Attributes.Value("gen_ai.tool.name")
				code, _ := p.Attributes.Value("error.type")
				if op.AsString() != "execute_tool" {
					t.Errorf("point without gen_ai.operation.name: %v", p.Attributes)
				}
				o := outcome{tool.AsString(), runtime.Code(code.AsString())}
				counts[o] += p.Count
				sums[o] += p.Sum
			}
		}
	}
	if !found {
		t.Fatalf("no %s", telemetry.CallDurationName)
	}
	return counts, sums
}

// TestMetricsAgreeWithAdmin runs calls of every outcome through a registry
// with both the Hook's histogram and runtime/admin's Metrics, and checks
// that they count the same calls by tool and outcome, and the same time.
func TestMetricsAgreeWithAdmin(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	m := admin.NewMetrics()
	f := newFixture(t, []telemetry.HookOption{telemetry.HookMeterProvider(mp)}, runtime.WithObserver(m.Observe))
	ctx := context.Background()
	step := runtime.CallOptions{StepID: "turn-1"}
	for range 3 {
		call(t, ctx, f.reg, "flaky_lookup", `{}`, step)
		call(t, ctx, f.reg, "search_docs", `{}`, runtime.CallOptions{})
		call(t, ctx, f.reg, "publish_post", `{"title":""}`, runtime.CallOptions{})
		call(t, ctx, f.reg, "no_such_tool", `{}`, runtime.CallOptions{})
	}
	call(t, ctx, f.reg, "publish_post", `{"title":"A"}`, runtime.CallOptions{IdempotencyKey: "k"})
	call(t, ctx, f.reg, "publish_post", `{"title":"A"}`, runtime.CallOptions{IdempotencyKey: "k"})
	call(t, ctx, f.reg, "get_primary_quote", `{}`, runtime.CallOptions{})
	call(t, ctx, f.reg, "digest_and_post", `{}`, runtime.CallOptions{})
	// The calls a session answers itself count as calls; the reverts of
	// an undo do not (the undo does).
	s := f.reg.Session("conv-1", runtime.SessionUndoTool(true))
	for _, c := range []struct{ name, args string }{
		{"create_label", `{"label":"bug"}`}, // hidden, not found yet
		{runtime.SearchToolsByKeywords, `{"query":"tag this issue as a bug","limit":1}`},
		{"create_label", `{"label":"bug"}`},
		{"no_such_tool", `{}`},
		{runtime.UndoLastActions, `{"count":1}`},
	} {
		s.Call(ctx, c.name, []byte(c.args), runtime.CallOptions{})
	}
	if _, err := s.Undo(ctx, 1); err == nil {
		t.Fatal("the host's undo of an empty journal succeeded")
	}
	mustCall(t, s, "publish_post", `{"title":"B"}`)
	if _, err := s.Undo(ctx, 1); err != nil {
		t.Fatal(err)
	}

	counts, sums := histogram(t, reader)
	want := map[outcome]uint64{}
	for _, tm := range m.Snapshot(nil) {
		var errs uint64
		for c, n := range tm.Errors {
			want[outcome{tm.Tool, c}] = n
			errs += n
		}
		if ok := tm.Calls - errs; ok > 0 {
			want[outcome{tm.Tool, ""}] = ok
		}
		var total float64
		for o, s := range sums {
			if o.tool == tm.Tool {
				total += s
			}
		}
		if math.Abs(total-tm.TotalSeconds) > 1e-9 {
			t.Errorf("%s: the histogram sums %vs, admin %vs", tm.Tool, total, tm.TotalSeconds)
		}
	}
	if n := m.UnknownToolCalls(); n > 0 {
		want[outcome{"", runtime.CodeNotFound}] = n
	}
	if diff := cmp.Diff(want, counts, cmp.AllowUnexported(outcome{})); diff != "" {
		t.Fatalf("calls by tool and outcome, admin (-) and the histogram (+):\n%s", diff)
	}
	// The figures themselves, so that agreeing on nothing cannot pass.
	if counts[outcome{"flaky_lookup", runtime.CodeRetryExhausted}] != 2 || counts[outcome{"search_docs", ""}] != 3 ||
		counts[outcome{"", runtime.CodeNotFound}] != 4 || counts[outcome{"publish_post", ""}] != 4 ||
		counts[outcome{"fetch_page", ""}] != 1 || counts[outcome{runtime.SearchToolsByKeywords, ""}] != 1 ||
		counts[outcome{"create_label", runtime.CodeNotFound}] != 1 || counts[outcome{"create_label", ""}] != 1 ||
		counts[outcome{runtime.UndoLastActions, ""}] != 1 {
		t.Fatalf("counts: %v", counts)
	}
	// An unknown tool's name is not an attribute: the model may send any.
	for o := range counts {
		if o.tool == "no_such_tool" {
			t.Fatalf("the unknown tool's name is recorded: %v", counts)
		}
	}
}

func mustCall(t *testing.T, s *runtime.Session, name, args string) {
	t.Helper()
	if res := s.Call(context.Background(), name, []byte(args), runtime.CallOptions{}); !res.Success {
		t.Fatalf("%s: %s", name, res.JSON())
	}
}
