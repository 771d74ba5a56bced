package telemetry_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/internal/sessionflow"
	"github.com/toolcat/toolcat/runtime/telemetry"
)

// fixture is a registry of sessionflow's tools and a few of its own, with
// a Hook whose spans a SpanRecorder keeps.
type fixture struct {
	reg   *runtime.Registry
	world *sessionflow.World
	spans *tracetest.SpanRecorder
	tp    *sdktrace.TracerProvider
}

// clock moves on by a second at every reading, so that durations and
// waits are seen, and SLAs of milliseconds missed.
func clock() func() time.Time {
	var mu sync.Mutex
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Second)
		return now
	}
}

func newFixture(t *testing.T, hookOpts []telemetry.HookOption, opts ...runtime.Option) *fixture {
	t.Helper()
	f := &fixture{world: sessionflow.NewWorld(), spans: tracetest.NewSpanRecorder()}
	f.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(f.spans))
	hook := telemetry.NewHook(append([]telemetry.HookOption{telemetry.HookTracerProvider(f.tp)}, hookOpts...)...)
	base := []runtime.Option{runtime.WithCallHook(hook), runtime.WithClock(clock()), runtime.WithAutoFallback(true),
		runtime.WithSLAFactor(0), runtime.WithLogger(slog.New(slog.DiscardHandler))}
	f.reg = runtime.New(append(base, opts...)...)
	obj := json.RawMessage(`{"type":"object"}`)
	tools := append(f.world.Tools(),
		runtime.Tool{Meta: runtime.Meta{Name: "get_quote", Description: "Gets a quote.", SLA: time.Millisecond, ArgsSchema: obj},
			Execute: func(context.Context, any) (any, error) { return map[string]int{"price": 3}, nil }},
		runtime.Tool{Meta: runtime.Meta{Name: "get_primary_quote", Description: "Gets a quote from the primary source.", FallbackTool: "get_quote", ArgsSchema: obj},
			Execute: func(context.Context, any) (any, error) {
				return nil, runtime.DependencyUnavailable("the primary source is down")
			}},
	)
	for _, tool := range tools {
		if err := f.reg.Register(tool); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// hidden are the attributes every execute_tool span has the same way, or
// whose values change from run to run, left out of the trees compared.
var hidden = map[attribute.Key]bool{
	"gen_ai.operation.name": true, "gen_ai.tool.type": true, "gen_ai.tool.description": true,
	"toolcat.duration_ms": true, "toolcat.risk": true, "toolcat.side_effects": true, "toolcat.step": true,
}

// tree renders the ended spans as an indented tree: name, attributes
// (sorted, the hidden ones left out), status and events.
func (f *fixture) tree(t *testing.T) string {
	t.Helper()
	spans := f.spans.Ended()
	children := map[trace.SpanID][]sdktrace.ReadOnlySpan{}
	ids := map[trace.SpanID]bool{}
	for _, s := range spans {
		ids[s.SpanContext().SpanID()] = true
	}
	var roots []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if p := s.Parent().SpanID(); p.IsValid() && ids[p] {
			children[p] = append(children[p], s)
		} else {
			roots = append(roots, s)
		}
	}
	byStart := func(a, b sdktrace.ReadOnlySpan) int { return a.StartTime().Compare(b.StartTime()) }
	var b strings.Builder
	var walk func(s sdktrace.ReadOnlySpan, depth int)
	walk = func(s sdktrace.ReadOnlySpan, depth int) {
		var attrs []string
		for _, kv := range s.Attributes() {
			if !hidden[kv.Key] {
				attrs = append(attrs, string(kv.Key)+"="+kv.Value.Emit())
			}
		}
		slices.Sort(attrs)
		fmt.Fprintf(&b, "%s%s %s", strings.Repeat("  ", depth), s.Name(), strings.Join(attrs, " "))
		if s.Status().Code == codes.Error {
			fmt.Fprintf(&b, " status=error(%s)", s.Status().Description)
		}
		for _, e := range s.Events() {
			fmt.Fprintf(&b, " event=%s", e.Name)
		}
		b.WriteString("\n")
		kids := children[s.SpanContext().SpanID()]
		slices.SortStableFunc(kids, byStart)
		for _, k := range kids {
			walk(k, depth+1)
		}
	}
	slices.SortStableFunc(roots, byStart)
	for _, r := range roots {
		walk(r, 0)
	}
	f.spans.Reset()
	return b.String()
}

func (f *fixture) check(t *testing.T, want string) {
	t.Helper()
	if diff := cmp.Diff(strings.TrimLeft(want, "\n"), f.tree(t)); diff != "" {
		t.Fatalf("spans (-want +got):\n%s", diff)
	}
}

func call(t *testing.T, ctx context.Context, r *runtime.Registry, name, args string, opts runtime.CallOptions) runtime.Result {
	t.Helper()
	return r.Call(ctx, name, []byte(args), opts)
}

// TestSpansComposition checks a composite's span: a child of the host's
// span, with its tool's calls as its children; only the model's call has
// the call id; outside content names its source; a replay is marked.
func TestSpansComposition(t *testing.T) {
	f := newFixture(t, nil)
	ctx, host := f.tp.Tracer("host").Start(context.Background(), "turn")
	ctx = runtime.ContextWithCallID(ctx, "toolu_01")
	if res := call(t, ctx, f.reg, "digest_and_post", `{}`, runtime.CallOptions{IdempotencyKey: "k1"}); !res.Success {
		t.Fatal(string(res.JSON()))
	}
	call(t, ctx, f.reg, "digest_and_post", `{}`, runtime.CallOptions{IdempotencyKey: "k1"})
	host.End()
	f.check(t, `
turn 
  execute_tool digest_and_post gen_ai.tool.call.id=toolu_01 gen_ai.tool.name=digest_and_post toolcat.untrusted.source=web
    execute_tool fetch_page gen_ai.tool.name=fetch_page toolcat.untrusted.source=web
    execute_tool publish_post gen_ai.tool.name=publish_post
  execute_tool digest_and_post gen_ai.tool.call.id=toolu_01 gen_ai.tool.name=digest_and_post toolcat.replayed=true toolcat.untrusted.source=tool:fetch_page
`)
}

// TestSpansOutcomes checks a failed call, a retry and the retry guard's
// stop, an SLA miss, a fallback, a dry run and an unknown tool.
func TestSpansOutcomes(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	step := runtime.CallOptions{StepID: "turn-1"}
	call(t, ctx, f.reg, "flaky_lookup", `{}`, step)
	call(t, ctx, f.reg, "flaky_lookup", `{}`, step)
	call(t, ctx, f.reg, "flaky_lookup", `{}`, step)
	call(t, ctx, f.reg, "get_quote", `{}`, runtime.CallOptions{})
	call(t, ctx, f.reg, "get_primary_quote", `{}`, runtime.CallOptions{})
	call(t, ctx, f.reg, "publish_post", `{"title":"T"}`, runtime.CallOptions{DryRun: true})
	call(t, ctx, f.reg, "publish_post", `{"title":""}`, runtime.CallOptions{})
	call(t, ctx, f.reg, "no_such_tool", `{}`, runtime.CallOptions{})
	f.check(t, `
execute_tool flaky_lookup error.type=external_error gen_ai.tool.name=flaky_lookup status=error(external_error)
execute_tool flaky_lookup error.type=retry_exhausted gen_ai.tool.name=flaky_lookup toolcat.retry=true toolcat.retry_exhausted=true status=error(retry_exhausted)
execute_tool flaky_lookup error.type=retry_exhausted gen_ai.tool.name=flaky_lookup toolcat.retry=true toolcat.retry_exhausted=true status=error(retry_exhausted)
execute_tool get_quote gen_ai.tool.name=get_quote toolcat.sla_ms=1 event=toolcat.sla_miss
execute_tool get_primary_quote gen_ai.tool.name=get_primary_quote toolcat.fallback=get_quote
execute_tool publish_post gen_ai.tool.name=publish_post toolcat.dry_run=true
execute_tool publish_post error.type=invalid_args gen_ai.tool.name=publish_post status=error(invalid_args)
execute_tool no_such_tool error.type=not_found gen_ai.tool.name=no_such_tool status=error(not_found)
`)
}

// TestSpansApproval checks a call kept for approval: its preview's dry
// run, the model's call answered approval_required, then in the request
// that approves it the wait as a span of its own and the call that runs.
func TestSpansApproval(t *testing.T) {
	f := newFixture(t, nil)
	s := f.reg.Session("conv-1", runtime.SessionAutonomy(runtime.AutonomySupervised))
	ctx, turn := f.tp.Tracer("host").Start(context.Background(), "turn")
	res := s.Call(runtime.ContextWithCallID(ctx, "toolu_02"), "publish_post", []byte(`{"title":"Hello"}`), runtime.CallOptions{})
	turn.End()
	if res.Pending == nil {
		t.Fatalf("want a pending call: %s", res.JSON())
	}
	ctx, approve := f.tp.Tracer("host").Start(context.Background(), "approve")
	if res, err := s.Approve(ctx, res.Pending.ID); err != nil || !res.Success {
		t.Fatal(err, string(res.JSON()))
	}
	approve.End()
	id := res.Pending.ID
	for _, sp := range f.spans.Ended() { // the wait runs from the moment the call was kept to the approval
		if sp.Name() == "toolcat.approval publish_post" && (!sp.StartTime().Equal(res.Pending.At) || !sp.EndTime().After(sp.StartTime())) {
			t.Errorf("the wait runs from %v to %v; the call was kept at %v", sp.StartTime(), sp.EndTime(), res.Pending.At)
		}
	}
	f.check(t, `
turn 
  execute_tool publish_post gen_ai.tool.name=publish_post toolcat.dry_run=true
  execute_tool publish_post error.type=approval_required gen_ai.tool.call.id=toolu_02 gen_ai.tool.name=publish_post toolcat.approval.id=`+id+` toolcat.approval.tainted=false status=error(approval_required) event=toolcat.approval.requested
approve 
  toolcat.approval publish_post gen_ai.tool.name=publish_post toolcat.approval.id=`+id+` toolcat.approval.status=approved toolcat.approval.tainted=false
  execute_tool publish_post gen_ai.tool.name=publish_post
`)
}

// TestSpansSessionAnswered checks the calls a session answers itself: a
// hidden tool called before a search, the search, a name nobody has, and
// undo_last_actions, whose reverts are its children; and the host's own
// Undo, whose reverts are children of the host's span.
func TestSpansSessionAnswered(t *testing.T) {
	f := newFixture(t, nil)
	s := f.reg.Session("conv-1", runtime.SessionUndoTool(true))
	ctx, turn := f.tp.Tracer("host").Start(context.Background(), "turn")
	calls := []struct{ name, args string }{
		{"create_label", `{"label":"bug"}`},
		{runtime.SearchToolsByKeywords, `{"query":"tag this issue as a bug","limit":1}`},
		{"create_label", `{"label":"bug"}`},
		{"no_such_tool", `{}`},
		{"publish_post", `{"title":"One"}`},
		{runtime.UndoLastActions, `{"count":2}`},
		{"publish_post", `{"title":"Two"}`},
	}
	for i, c := range calls {
		res := s.Call(runtime.ContextWithCallID(ctx, fmt.Sprintf("toolu_%d", i)), c.name, []byte(c.args), runtime.CallOptions{})
		if ok := i != 0 && i != 3; res.Success != ok {
			t.Fatalf("%s: %s", c.name, res.JSON())
		}
	}
	if _, err := s.Undo(ctx, 1); err != nil {
		t.Fatal(err)
	}
	turn.End()
	f.check(t, `
turn 
  execute_tool create_label error.type=not_found gen_ai.tool.call.id=toolu_0 gen_ai.tool.name=create_label status=error(not_found)
  execute_tool search_tools_by_keywords gen_ai.tool.call.id=toolu_1 gen_ai.tool.name=search_tools_by_keywords
  execute_tool create_label gen_ai.tool.call.id=toolu_2 gen_ai.tool.name=create_label
  execute_tool no_such_tool error.type=not_found gen_ai.tool.call.id=toolu_3 gen_ai.tool.name=no_such_tool status=error(not_found)
  execute_tool publish_post gen_ai.tool.call.id=toolu_4 gen_ai.tool.name=publish_post
  execute_tool undo_last_actions gen_ai.tool.call.id=toolu_5 gen_ai.tool.name=undo_last_actions
    execute_tool publish_post gen_ai.tool.name=publish_post toolcat.revert=true
    execute_tool create_label gen_ai.tool.name=create_label toolcat.revert=true
  execute_tool publish_post gen_ai.tool.call.id=toolu_6 gen_ai.tool.name=publish_post
  execute_tool publish_post gen_ai.tool.name=publish_post toolcat.revert=true
`)
}
