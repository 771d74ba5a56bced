package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcat/toolcat/runtime"
)

// stateTools registers a read tool, a side-effect tool, a hidden tool, and
// a composite depending on the read tool through a middle one.
func stateTools(t testing.TB, r *runtime.Registry) *atomic.Int64 {
	t.Helper()
	var runs atomic.Int64
	run := func(ctx context.Context, args any) (any, error) { runs.Add(1); return map[string]any{"ok": true}, nil }
	obj := json.RawMessage(`{"type":"object"}`)
	mustRegister(t, r,
		runtime.Tool{Meta: runtime.Meta{Name: "get_order", Description: "Reads an order.", ArgsSchema: obj}, Execute: run},
		runtime.Tool{Meta: runtime.Meta{Name: "refund_order", Description: "Refunds an order.", HasSideEffects: true,
			Risk: runtime.RiskHigh, SupportsDryRun: true, ArgsSchema: obj}, Execute: run, DryRun: run,
			Revert: func(context.Context, any, json.RawMessage) (any, error) { runs.Add(1); return nil, nil }},
		runtime.Tool{Meta: runtime.Meta{Name: "find_invoice", Description: "Finds an invoice by order.", Exposure: runtime.ExposureHidden, ArgsSchema: obj}, Execute: run},
		runtime.Tool{Meta: runtime.Meta{Name: "summarise_order", Description: "Summarises an order.", Dependencies: []string{"get_order"}, ArgsSchema: obj},
			Execute: func(ctx context.Context, _ any) (any, error) {
				res := runtime.CallTool(ctx, "get_order", []byte(`{}`))
				if !res.Success {
					return nil, res.Error
				}
				runs.Add(1)
				return map[string]any{"summary": "fine"}, nil
			}},
		runtime.Tool{Meta: runtime.Meta{Name: "report_order", Description: "Reports on an order.", Dependencies: []string{"summarise_order", "postgresql"}, ArgsSchema: obj},
			Execute: func(ctx context.Context, _ any) (any, error) {
				return runtime.CallTool(ctx, "summarise_order", []byte(`{}`)).Data, nil
			}},
	)
	return &runs
}

func toolNames(ts []runtime.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Meta.Name)
	}
	return out
}

func metaNames(ms []runtime.Meta) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Name)
	}
	return out
}

// TestDisableTool checks that a disabled tool answers permission_denied
// with the reason, without running, through Call, dry runs, Revert and
// sessions (not kept pending for approval), that it and the tools
// depending on it leave the lists, and that enabling brings all back.
func TestDisableTool(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	r := runtime.New(runtime.WithClock(func() time.Time { return now }))
	runs := stateTools(t, r)
	var changes atomic.Int64
	stop := r.OnToolsChanged(func() { changes.Add(1) })
	defer stop()

	if err := r.DisableTool(ctx, "get_order", "the orders database is being migrated"); err != nil {
		t.Fatal(err)
	}
	if changes.Load() != 1 {
		t.Errorf("OnToolsChanged called %d times, want 1", changes.Load())
	}
	res := r.Call(ctx, "get_order", []byte(`{}`), runtime.CallOptions{})
	if res.Success || res.Error.Code != runtime.CodePermissionDenied || res.Error.RetryAllowed ||
		!strings.Contains(res.Error.Message, "disabled by an operator: the orders database is being migrated") {
		t.Fatalf("disabled tool: %s", res.JSON())
	}
	if got := res.Error.Details["state"]; got != "disabled" {
		t.Errorf("details.state = %v", got)
	}
	// Its composites, directly and through another, are blocked.
	for _, name := range []string{"summarise_order", "report_order"} {
		res := r.Call(ctx, name, []byte(`{}`), runtime.CallOptions{})
		if res.Success || res.Error.Code != runtime.CodePermissionDenied ||
			!strings.Contains(res.Error.Message, "depends on get_order, which an operator disabled: the orders database") {
			t.Fatalf("blocked %s: %s", name, res.JSON())
		}
	}
	if runs.Load() != 0 {
		t.Fatalf("%d tool bodies ran while disabled", runs.Load())
	}
	want := []runtime.ToolStatus{
		{Tool: "find_invoice", State: runtime.ToolEnabled},
		{Tool: "get_order", State: runtime.ToolDisabled, Reason: "the orders database is being migrated", Since: now},
		{Tool: "refund_order", State: runtime.ToolEnabled},
		{Tool: "report_order", State: runtime.ToolBlocked, Reason: "the orders database is being migrated", Since: now, DisabledDependency: "get_order"},
		{Tool: "summarise_order", State: runtime.ToolBlocked, Reason: "the orders database is being migrated", Since: now, DisabledDependency: "get_order"},
	}
	if diff := cmp.Diff(want, r.ToolStatuses()); diff != "" {
		t.Errorf("ToolStatuses (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"refund_order"}, toolNames(r.Visible(runtime.AutonomyFull))); diff != "" {
		t.Errorf("Visible (-want +got):\n%s", diff)
	}

	// A disabled side-effect tool: no dry run, no revert, not pending in a
	// supervised session, absent from the session's tools and searches.
	if err := r.DisableTool(ctx, "refund_order", ""); err != nil {
		t.Fatal(err)
	}
	if st, _ := r.ToolStatus("refund_order"); st.Reason != runtime.DefaultDisableReason {
		t.Errorf("default reason: %+v", st)
	}
	for desc, res := range map[string]runtime.Result{
		"dry run": r.Call(ctx, "refund_order", []byte(`{}`), runtime.CallOptions{DryRun: true}),
		"revert":  r.Revert(ctx, "refund_order", []byte(`{}`), json.RawMessage(`{}`), runtime.CallOptions{}),
	} {
		if res.Success || res.Error.Code != runtime.CodePermissionDenied {
			t.Errorf("%s of a disabled tool: %s", desc, res.JSON())
		}
	}
	sess := r.Session("conv-1", runtime.SessionAutonomy(runtime.AutonomySupervised))
	res = sess.Call(ctx, "refund_order", []byte(`{}`), runtime.CallOptions{})
	if res.Success || res.Error.Code != runtime.CodePermissionDenied || res.Pending != nil {
		t.Fatalf("session call of a disabled tool: %s (pending %v)", res.JSON(), res.Pending)
	}
	if p, _ := sess.Pending(ctx); len(p) != 0 {
		t.Errorf("a disabled tool's call is pending: %+v", p)
	}
	tools, err := sess.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{runtime.SearchToolsByKeywords, runtime.SearchToolsByRegex}, metaNames(tools)); diff != "" {
		t.Errorf("session tools (-want +got):\n%s", diff)
	}
	if err := r.DisableTool(ctx, "find_invoice", "retired"); err != nil {
		t.Fatal(err)
	}
	found := sess.Call(ctx, runtime.SearchToolsByRegex, []byte(`{"pattern":"invoice|order","limit":10}`), runtime.CallOptions{})
	if !found.Success || strings.Contains(string(found.JSON()), `"name":"`) {
		t.Errorf("a search found disabled tools: %s", found.JSON())
	}
	if runs.Load() != 0 {
		t.Fatalf("%d tool bodies ran while disabled", runs.Load())
	}

	// Enabling brings everything back.
	changes.Store(0)
	for _, name := range []string{"get_order", "refund_order", "find_invoice"} {
		if err := r.EnableTool(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	if changes.Load() != 3 {
		t.Errorf("OnToolsChanged called %d times for 3 changes", changes.Load())
	}
	if res := r.Call(ctx, "report_order", []byte(`{}`), runtime.CallOptions{}); !res.Success {
		t.Fatalf("enabled again: %s", res.JSON())
	}
	if diff := cmp.Diff([]string{"get_order", "refund_order", "report_order", "summarise_order"}, toolNames(r.Visible(runtime.AutonomyFull))); diff != "" {
		t.Errorf("Visible after enabling (-want +got):\n%s", diff)
	}
	// Enabling a tool already enabled changes nothing, and says so.
	changes.Store(0)
	if err := r.EnableTool(ctx, "get_order"); err != nil || changes.Load() != 0 {
		t.Errorf("enabling an enabled tool: %v, %d changes", err, changes.Load())
	}
}

// TestDisableToolErrors checks the refusals: an unknown tool, a reason too
// long or not UTF-8, and a store that fails (nothing changes).
func TestDisableToolErrors(t *testing.T) {
	ctx := context.Background()
	store := &failingStates{MemoryToolStateStore: runtime.NewMemoryToolStateStore()}
	r := runtime.New(runtime.WithToolStateStore(store))
	stateTools(t, r)
	if err := r.DisableTool(ctx, "no_such_tool", "x"); !errors.Is(err, runtime.ErrUnknownTool) {
		t.Errorf("unknown tool: %v", err)
	}
	if err := r.DisableTool(ctx, "get_order", strings.Repeat("x", runtime.MaxToolStateReason+1)); err == nil {
		t.Error("a reason too long was accepted")
	}
	if err := r.DisableTool(ctx, "get_order", "bad \xff"); err == nil {
		t.Error("a reason not UTF-8 was accepted")
	}
	store.fail.Store(true)
	if err := r.DisableTool(ctx, "get_order", "x"); err == nil || !strings.Contains(err.Error(), "store down") {
		t.Errorf("store down: %v", err)
	}
	if st, _ := r.ToolStatus("get_order"); st.State != runtime.ToolEnabled {
		t.Errorf("a failed save changed the state: %+v", st)
	}
	if err := r.SyncToolStates(ctx); err == nil {
		t.Error("SyncToolStates with the store down returned nil")
	}
}

type failingStates struct {
	*runtime.MemoryToolStateStore
	fail atomic.Bool
}

var errStoreDown = errors.New("store down")

func (f *failingStates) Load(ctx context.Context) (map[string]runtime.ToolSetting, error) {
	if f.fail.Load() {
		return nil, errStoreDown
	}
	return f.MemoryToolStateStore.Load(ctx)
}

func (f *failingStates) Save(ctx context.Context, tool string, s runtime.ToolSetting) error {
	if f.fail.Load() {
		return errStoreDown
	}
	return f.MemoryToolStateStore.Save(ctx, tool, s)
}

// TestToolStatesShared checks that two registries sharing a store follow
// each other's changes through WatchToolStates, hooks included, and that a
// tool disabled before it is registered is disabled once registered.
func TestToolStatesShared(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := runtime.NewMemoryToolStateStore()
	a := runtime.New(runtime.WithToolStateStore(store))
	b := runtime.New(runtime.WithToolStateStore(store))
	stateTools(t, a)
	stateTools(t, b)
	changedB := make(chan struct{}, 16)
	b.OnToolsChanged(func() { changedB <- struct{}{} })
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); _ = b.WatchToolStates(ctx) }()

	if err := a.DisableTool(ctx, "refund_order", "refunds paused"); err != nil {
		t.Fatal(err)
	}
	waitState(t, b, "refund_order", runtime.ToolDisabled, changedB)
	if res := b.Call(ctx, "refund_order", []byte(`{}`), runtime.CallOptions{}); res.Success || !strings.Contains(res.Error.Message, "refunds paused") {
		t.Fatalf("on the other replica: %s", res.JSON())
	}
	if err := a.EnableTool(ctx, "refund_order"); err != nil {
		t.Fatal(err)
	}
	waitState(t, b, "refund_order", runtime.ToolEnabled, changedB)

	// A replica started later loads the state; a tool registered after
	// the state was loaded is switched off as it registers.
	if err := a.DisableTool(ctx, "get_order", "migrating"); err != nil {
		t.Fatal(err)
	}
	c := runtime.New(runtime.WithToolStateStore(store))
	if err := c.SyncToolStates(ctx); err != nil {
		t.Fatal(err)
	}
	stateTools(t, c)
	if st, _ := c.ToolStatus("summarise_order"); st.State != runtime.ToolBlocked {
		t.Errorf("late registration: %+v", st)
	}
	cancel()
	wg.Wait()
}

func waitState(t *testing.T, r *runtime.Registry, tool string, want runtime.ToolState, changed <-chan struct{}) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		if st, _ := r.ToolStatus(tool); st.State == want {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			st, _ := r.ToolStatus(tool)
			t.Fatalf("%s is %s after 5s, want %s", tool, st.State, want)
		}
	}
}

// TestOnToolsChangedRemove checks that a removed hook is no longer called,
// and that registering a tool calls the hooks.
func TestOnToolsChangedRemove(t *testing.T) {
	r := runtime.New()
	var n atomic.Int64
	remove := r.OnToolsChanged(func() { n.Add(1) })
	mustRegister(t, r, runtime.Tool{Meta: runtime.Meta{Name: "get_order"}, Execute: echo})
	if n.Load() != 1 {
		t.Errorf("Register called the hook %d times", n.Load())
	}
	remove()
	remove() // twice is fine
	if err := r.DisableTool(context.Background(), "get_order", "x"); err != nil {
		t.Fatal(err)
	}
	if n.Load() != 1 {
		t.Errorf("a removed hook was called")
	}
}

// TestNotFoundSkipsDisabled checks that the closest names an unknown tool's
// answer suggests leave out the tools switched off.
func TestNotFoundSkipsDisabled(t *testing.T) {
	ctx := context.Background()
	r := runtime.New()
	stateTools(t, r)
	if res := r.Call(ctx, "get_ordr", []byte(`{}`), runtime.CallOptions{}); !strings.Contains(res.Error.Message, "get_order") {
		t.Fatalf("before: %s", res.JSON())
	}
	if err := r.DisableTool(ctx, "get_order", "x"); err != nil {
		t.Fatal(err)
	}
	if res := r.Call(ctx, "get_ordr", []byte(`{}`), runtime.CallOptions{}); strings.Contains(string(res.JSON()), "get_order") {
		t.Fatalf("a disabled tool suggested: %s", res.JSON())
	}
}
