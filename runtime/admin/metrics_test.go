package admin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/admin"
)

func netListen() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }

// callSome makes calls of every kind on reg: successes, an SLA miss, a
// step's retries until the guard stops them, a replay, an unknown tool.
func callSome(t testing.TB, reg *runtime.Registry) {
	t.Helper()
	ctx := context.Background()
	for range 3 {
		reg.Call(ctx, "get_order", []byte(`{}`), runtime.CallOptions{})
	}
	reg.Call(ctx, "get_order", []byte(`{"order_id": 5}`), runtime.CallOptions{}) // invalid_args
	reg.Call(ctx, "flaky_api", []byte(`{}`), runtime.CallOptions{StepID: "s1"})
	reg.Call(ctx, "flaky_api", []byte(`{}`), runtime.CallOptions{StepID: "s1"}) // the last try
	reg.Call(ctx, "flaky_api", []byte(`{}`), runtime.CallOptions{StepID: "s1"}) // refused
	reg.Call(ctx, "slow_lookup", []byte(`{}`), runtime.CallOptions{})
	reg.Call(ctx, "refund_order", []byte(`{}`), runtime.CallOptions{IdempotencyKey: "r1"})
	reg.Call(ctx, "refund_order", []byte(`{}`), runtime.CallOptions{IdempotencyKey: "r1"})
	reg.Call(ctx, "refund_order", []byte(`{}`), runtime.CallOptions{DryRun: true})
	reg.Call(ctx, "no_such_tool", []byte(`{}`), runtime.CallOptions{})
	reg.Call(ctx, "tool\"with\nodd\\name", []byte(`{}`), runtime.CallOptions{})
}

func metricsRegistry(t testing.TB) *runtime.Registry {
	reg := registry(t, runtime.WithLogger(quiet()))
	n := 0
	reg.MustRegister(runtime.Tool{Meta: runtime.Meta{Name: "flaky_api", Description: "Fails.", MaxRetries: 1, ArgsSchema: obj},
		Execute: func(context.Context, any) (any, error) {
			n++
			return nil, runtime.ExternalError("no " + string(rune('0'+n)))
		}})
	reg.MustRegister(runtime.Tool{Meta: runtime.Meta{Name: "slow_lookup", Description: "Slow.", SLA: time.Millisecond, ArgsSchema: obj},
		Execute: func(context.Context, any) (any, error) { time.Sleep(5 * time.Millisecond); return "late", nil }})
	return reg
}

// TestMetricsJSON checks GET /api/metrics after calls of every kind.
func TestMetricsJSON(t *testing.T) {
	reg := metricsRegistry(t)
	_, hs := server(t, reg)
	callSome(t, reg)
	a := do(t, hs, "GET", "/api/metrics", token, "", "")
	if a.status != 200 {
		t.Fatalf("%d %s", a.status, a.body)
	}
	var got struct {
		Window  float64             `json:"latency_window_seconds"`
		Unknown uint64              `json:"unknown_tool_calls"`
		Tools   []admin.ToolMetrics `json:"tools"`
	}
	if err := json.Unmarshal(a.body, &got); err != nil {
		t.Fatal(err)
	}
	if got.Window != 300 || got.Unknown != 2 {
		t.Errorf("window %v, unknown %d", got.Window, got.Unknown)
	}
	byTool := map[string]admin.ToolMetrics{}
	for _, tm := range got.Tools {
		if tm.Calls > 0 && (tm.Latency == nil || tm.Latency.Calls != tm.Calls || tm.TotalSeconds <= 0) {
			t.Errorf("%s: latency %+v, total %v", tm.Tool, tm.Latency, tm.TotalSeconds)
		}
		tm.Latency, tm.TotalSeconds = nil, 0
		byTool[tm.Tool] = tm
	}
	want := map[string]admin.ToolMetrics{
		"get_order":       {Tool: "get_order", Calls: 4, Errors: map[runtime.Code]uint64{runtime.CodeInvalidArgs: 1}},
		"flaky_api":       {Tool: "flaky_api", Calls: 3, Errors: map[runtime.Code]uint64{runtime.CodeExternalError: 2, runtime.CodeRetryExhausted: 1}, Retries: 2, RetryExhausted: 2},
		"slow_lookup":     {Tool: "slow_lookup", Calls: 1, Errors: map[runtime.Code]uint64{runtime.CodeTimeout: 1}, SLAMisses: 1},
		"refund_order":    {Tool: "refund_order", Calls: 3, Errors: map[runtime.Code]uint64{runtime.CodeUnsupported: 1}, Replays: 1, DryRuns: 1},
		"summarise_order": {Tool: "summarise_order", Errors: map[runtime.Code]uint64{}},
	}
	if diff := cmp.Diff(want, byTool); diff != "" {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}
}

// TestPrometheus parses /metrics back with the Prometheus text parser and
// checks the families and values.
func TestPrometheus(t *testing.T) {
	reg := metricsRegistry(t)
	_, hs := server(t, reg)
	callSome(t, reg)
	if err := reg.DisableTool(context.Background(), "get_order", "maintenance"); err != nil {
		t.Fatal(err)
	}
	a := do(t, hs, "GET", "/metrics", token, "", "")
	if a.status != 200 || !strings.HasPrefix(a.header.Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Fatalf("%d %s: %s", a.status, a.header.Get("Content-Type"), a.body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(a.body))
	if err != nil {
		t.Fatalf("parsing /metrics: %v\n%s", err, a.body)
	}
	value := func(fam string, labels map[string]string) float64 {
		t.Helper()
		f := fams[fam]
		if f == nil {
			t.Fatalf("no family %s", fam)
		}
	next:
		for _, m := range f.Metric {
			for k, v := range labels {
				if !slices.ContainsFunc(m.Label, func(l *dto.LabelPair) bool { return l.GetName() == k && l.GetValue() == v }) {
					continue next
				}
			}
			if len(m.Label) != len(labels) {
				continue
			}
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				return m.GetCounter().GetValue()
			case dto.MetricType_GAUGE:
				return m.GetGauge().GetValue()
			}
		}
		t.Fatalf("%s%v: no sample", fam, labels)
		return 0
	}
	checks := []struct {
		fam    string
		labels map[string]string
		want   float64
	}{
		{"toolcat_tool_calls_total", map[string]string{"tool": "get_order", "code": "ok"}, 3},
		{"toolcat_tool_calls_total", map[string]string{"tool": "get_order", "code": "invalid_args"}, 1},
		{"toolcat_tool_calls_total", map[string]string{"tool": "flaky_api", "code": "retry_exhausted"}, 1},
		{"toolcat_tool_calls_total", map[string]string{"tool": "summarise_order", "code": "ok"}, 0},
		{"toolcat_tool_retries_total", map[string]string{"tool": "flaky_api"}, 2},
		{"toolcat_tool_retry_exhausted_total", map[string]string{"tool": "flaky_api"}, 2},
		{"toolcat_tool_replays_total", map[string]string{"tool": "refund_order"}, 1},
		{"toolcat_tool_sla_misses_total", map[string]string{"tool": "slow_lookup"}, 1},
		{"toolcat_tool_dry_runs_total", map[string]string{"tool": "refund_order"}, 1},
		{"toolcat_tool_state", map[string]string{"tool": "get_order", "state": "disabled"}, 1},
		{"toolcat_tool_state", map[string]string{"tool": "get_order", "state": "enabled"}, 0},
		{"toolcat_tool_state", map[string]string{"tool": "summarise_order", "state": "blocked"}, 1},
		{"toolcat_tool_state", map[string]string{"tool": "refund_order", "state": "enabled"}, 1},
		{"toolcat_unknown_tool_calls_total", map[string]string{}, 2},
	}
	for _, c := range checks {
		if got := value(c.fam, c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.fam, c.labels, got, c.want)
		}
	}
	sum := fams["toolcat_tool_call_duration_seconds"]
	if sum.GetType() != dto.MetricType_SUMMARY {
		t.Fatalf("duration family is %v", sum.GetType())
	}
	found := false
	for _, m := range sum.Metric {
		if m.Label[0].GetValue() != "slow_lookup" {
			continue
		}
		found = true
		s := m.GetSummary()
		if s.GetSampleCount() != 1 || s.GetSampleSum() < 0.001 || len(s.Quantile) != 3 {
			t.Errorf("slow_lookup summary: %v", s)
		}
		for _, q := range s.Quantile {
			if q.GetValue() < 0.0009 || q.GetValue() > 1 {
				t.Errorf("slow_lookup quantile %v = %v s", q.GetQuantile(), q.GetValue())
			}
		}
	}
	if !found {
		t.Error("no summary for slow_lookup")
	}
	for name, f := range fams {
		if f.GetHelp() == "" {
			t.Errorf("%s has no HELP", name)
		}
	}
}

// TestLatencyQuantiles checks the histogram's quantiles against exact ones
// on log-normal durations, and that the window ages old calls out.
func TestLatencyQuantiles(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	m := admin.NewMetrics(admin.WithMetricsClock(clock), admin.WithLatencyWindow(time.Minute))
	rng := rand.New(rand.NewPCG(1, 2))
	var ds []time.Duration
	for range 20000 {
		d := time.Duration(math.Exp(rng.NormFloat64()*1.5 + math.Log(2e6))) // median 2ms
		ds = append(ds, d)
		m.Observe(runtime.CallEvent{Tool: "t", Duration: d})
	}
	slices.Sort(ds)
	exact := func(q float64) float64 { return float64(ds[int(math.Ceil(q*float64(len(ds))))-1]) / 1e6 }
	lat := m.Snapshot([]string{"t"})[0].Latency
	for _, c := range []struct {
		q   float64
		got float64
	}{{0.5, lat.P50}, {0.95, lat.P95}, {0.99, lat.P99}} {
		if rel := math.Abs(c.got-exact(c.q)) / exact(c.q); rel > 0.0625 {
			t.Errorf("p%v: %.4f ms, exact %.4f ms (%.1f%% off)", c.q*100, c.got, exact(c.q), rel*100)
		}
	}
	// After two windows without calls the quantiles are gone; counts stay.
	mu.Lock()
	now = now.Add(90 * time.Second)
	mu.Unlock()
	if s := m.Snapshot([]string{"t"})[0]; s.Latency == nil || s.Latency.Calls != 20000 {
		t.Errorf("within the second window: %+v", s.Latency)
	}
	m.Observe(runtime.CallEvent{Tool: "t", Duration: time.Second})
	mu.Lock()
	now = now.Add(61 * time.Second)
	mu.Unlock()
	if s := m.Snapshot([]string{"t"})[0]; s.Latency == nil || s.Latency.Calls != 1 || s.Latency.P50 < 900 || s.Calls != 20001 {
		t.Errorf("after a window: %+v, calls %d", s.Latency, s.Calls)
	}
	mu.Lock()
	now = now.Add(3 * time.Minute)
	mu.Unlock()
	if s := m.Snapshot([]string{"t"})[0]; s.Latency != nil || s.Calls != 20001 {
		t.Errorf("after two windows: %+v, calls %d", s.Latency, s.Calls)
	}
	// Extremes stay in range.
	m.Observe(runtime.CallEvent{Tool: "x", Duration: 0})
	m.Observe(runtime.CallEvent{Tool: "x", Duration: -time.Second})
	m.Observe(runtime.CallEvent{Tool: "x", Duration: 1000 * time.Hour})
	if s := m.Snapshot([]string{"x"})[0]; s.Latency.P50 <= 0 || s.Latency.P99 < 1e6 {
		t.Errorf("extremes: %+v", s.Latency)
	}
}

// TestMetricsConcurrent observes from many goroutines (run with -race).
func TestMetricsConcurrent(t *testing.T) {
	m := admin.NewMetrics()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 1000 {
				m.Observe(runtime.CallEvent{Tool: []string{"a", "b", "c"}[(g+i)%3], Duration: time.Duration(i) * time.Microsecond, Code: runtime.CodeTimeout})
				if i%100 == 0 {
					m.Snapshot(nil)
				}
			}
		})
	}
	wg.Wait()
	var total uint64
	for _, s := range m.Snapshot(nil) {
		total += s.Calls
	}
	if total != 8000 {
		t.Errorf("calls %d, want 8000", total)
	}
}

// TestSessionToolsListed checks that the calls of a session's own tools
// (a search) are in /api/metrics and /metrics beside the registry's
// tools, without a state, and that a name no tool has adds to the
// unknown calls instead of a row.
func TestSessionToolsListed(t *testing.T) {
	reg := runtime.New(runtime.WithLogger(quiet()))
	obj := json.RawMessage(`{"type":"object"}`)
	reg.MustRegister(runtime.Tool{Meta: runtime.Meta{Name: "archive_invoice", Description: "Archives an invoice.", Exposure: runtime.ExposureHidden, ArgsSchema: obj},
		Execute: func(context.Context, any) (any, error) { return "archived", nil }})
	_, hs := server(t, reg)
	s := reg.Session("conv-1")
	ctx := context.Background()
	if res := s.Call(ctx, "search_tools_by_keywords", []byte(`{"query":"archive invoice"}`), runtime.CallOptions{}); !res.Success {
		t.Fatalf("search: %s", res.JSON())
	}
	if res := s.Call(ctx, "no_such_tool", []byte(`{}`), runtime.CallOptions{}); res.Success {
		t.Fatalf("a name no tool has: %s", res.JSON())
	}

	var got struct {
		Unknown uint64              `json:"unknown_tool_calls"`
		Tools   []admin.ToolMetrics `json:"tools"`
	}
	if err := json.Unmarshal(do(t, hs, "GET", "/api/metrics", token, "", "").body, &got); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tm := range got.Tools {
		names = append(names, tm.Tool)
		if tm.Tool == "search_tools_by_keywords" && tm.Calls != 1 {
			t.Errorf("search_tools_by_keywords: %d calls, want 1", tm.Calls)
		}
	}
	if want := []string{"archive_invoice", "search_tools_by_keywords"}; !slices.Equal(names, want) {
		t.Errorf("/api/metrics lists %v, want %v", names, want)
	}
	if got.Unknown != 1 {
		t.Errorf("unknown_tool_calls = %d, want 1", got.Unknown)
	}

	body := do(t, hs, "GET", "/metrics", token, "", "").body
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parsing /metrics: %v\n%s", err, body)
	}
	tools := map[string]map[string]bool{} // family -> tools with a sample
	for _, fam := range []string{"toolcat_tool_calls_total", "toolcat_tool_state"} {
		tools[fam] = map[string]bool{}
		for _, m := range fams[fam].GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "tool" {
					tools[fam][l.GetValue()] = true
				}
			}
		}
	}
	if !tools["toolcat_tool_calls_total"]["search_tools_by_keywords"] || !tools["toolcat_tool_calls_total"]["archive_invoice"] {
		t.Errorf("toolcat_tool_calls_total has samples for %v, want the search and archive_invoice", tools["toolcat_tool_calls_total"])
	}
	if tools["toolcat_tool_state"]["search_tools_by_keywords"] || !tools["toolcat_tool_state"]["archive_invoice"] {
		t.Errorf("toolcat_tool_state has samples for %v, want archive_invoice's only", tools["toolcat_tool_state"])
	}
}
