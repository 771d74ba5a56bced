package runtime_test

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcat/toolcat/runtime"
)

// events collects CallEvents.
type events struct {
	mu  sync.Mutex
	evs []runtime.CallEvent
}

func (e *events) observe(ev runtime.CallEvent) {
	e.mu.Lock()
	e.evs = append(e.evs, ev)
	e.mu.Unlock()
}

func (e *events) take() []runtime.CallEvent {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := e.evs
	e.evs = nil
	return out
}

// TestObserver checks what the observers are told: the tool, the code,
// the duration on the registry's clock, retries and the retry guard, SLA
// misses, replays, dry runs, fallbacks and unknown tools.
func TestObserver(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	step := 10 * time.Millisecond // each reading of the clock moves it on
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(step)
		return now
	}
	var got events
	r := runtime.New(runtime.WithClock(clock), runtime.WithObserver(got.observe), runtime.WithAutoFallback(true),
		runtime.WithLogger(quietLogger()))
	attempt := 0
	obj := json.RawMessage(`{"type":"object"}`)
	mustRegister(t, r,
		runtime.Tool{Meta: runtime.Meta{Name: "call_api", MaxRetries: 1, ArgsSchema: obj}, Execute: func(context.Context, any) (any, error) {
			attempt++
			return nil, runtime.ExternalError("upstream said no " + strconv.Itoa(attempt))
		}},
		runtime.Tool{Meta: runtime.Meta{Name: "get_fast", SLA: time.Hour, ArgsSchema: obj}, Execute: echo},
		runtime.Tool{Meta: runtime.Meta{Name: "get_slow", SLA: 5 * time.Millisecond, ArgsSchema: obj}, Execute: echo},
		runtime.Tool{Meta: runtime.Meta{Name: "get_primary", FallbackTool: "get_fast", ArgsSchema: obj},
			Execute: func(context.Context, any) (any, error) { return nil, runtime.DependencyUnavailable("down") }},
		runtime.Tool{Meta: runtime.Meta{Name: "send_mail", HasSideEffects: true, ArgsSchema: obj}, Execute: echo},
	)
	opts := runtime.CallOptions{StepID: "s1"}
	r.Call(ctx, "call_api", []byte(`{}`), opts)
	r.Call(ctx, "call_api", []byte(`{}`), opts)
	r.Call(ctx, "call_api", []byte(`{}`), opts)
	r.Call(ctx, "get_fast", []byte(`{}`), runtime.CallOptions{})
	r.Call(ctx, "get_slow", []byte(`{}`), runtime.CallOptions{})
	r.Call(ctx, "get_primary", []byte(`{}`), runtime.CallOptions{})
	r.Call(ctx, "send_mail", []byte(`{}`), runtime.CallOptions{IdempotencyKey: "k"})
	r.Call(ctx, "send_mail", []byte(`{}`), runtime.CallOptions{IdempotencyKey: "k"})
	r.Call(ctx, "send_mail", []byte(`{}`), runtime.CallOptions{DryRun: true})
	r.Call(ctx, "no_such_tool", []byte(`{}`), runtime.CallOptions{})
	want := []runtime.CallEvent{
		{Tool: "call_api", Code: runtime.CodeExternalError},
		{Tool: "call_api", Code: runtime.CodeExternalError, Retry: true, RetryExhausted: true}, // the last try
		{Tool: "call_api", Code: runtime.CodeRetryExhausted, Retry: true, RetryExhausted: true},
		{Tool: "get_fast"},
		{Tool: "get_slow", SLAMiss: true},
		{Tool: "get_primary", Fallback: "get_fast"},
		{Tool: "send_mail"},
		{Tool: "send_mail", Replayed: true},
		{Tool: "send_mail", Code: runtime.CodeUnsupported, DryRun: true},
		{Tool: "no_such_tool", Unknown: true, Code: runtime.CodeNotFound},
	}
	evs := got.take()
	for i := range evs {
		if evs[i].Duration <= 0 {
			t.Errorf("event %d (%s): duration %v", i, evs[i].Tool, evs[i].Duration)
		}
		evs[i].Duration = 0
	}
	if diff := cmp.Diff(want, evs); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}

	// A composite's dependency is observed too, and a session's calls of
	// tools; removing the observer stops the events.
	r2 := runtime.New()
	var got2 events
	remove := r2.Observe(got2.observe)
	stateTools(t, r2)
	r2.Session("conv-1").Call(ctx, "summarise_order", []byte(`{}`), runtime.CallOptions{})
	var names []string
	for _, ev := range got2.take() {
		names = append(names, ev.Tool)
	}
	if diff := cmp.Diff([]string{"get_order", "summarise_order"}, names); diff != "" {
		t.Errorf("composite events (-want +got):\n%s", diff)
	}
	remove()
	r2.Call(ctx, "get_order", []byte(`{}`), runtime.CallOptions{})
	if evs := got2.take(); len(evs) != 0 {
		t.Errorf("events after remove: %+v", evs)
	}
}

// TestObserverTimeout checks that a timeout of a tool with an SLA is an
// SLA miss on the real clock.
func TestObserverTimeout(t *testing.T) {
	var got events
	r := runtime.New(runtime.WithObserver(got.observe), runtime.WithLogger(quietLogger()))
	mustRegister(t, r, runtime.Tool{Meta: runtime.Meta{Name: "slow_tool", SLA: 10 * time.Millisecond},
		Execute: func(ctx context.Context, _ any) (any, error) { <-ctx.Done(); return nil, ctx.Err() }})
	r.Call(context.Background(), "slow_tool", nil, runtime.CallOptions{})
	evs := got.take()
	if len(evs) != 1 || evs[0].Code != runtime.CodeTimeout || !evs[0].SLAMiss || evs[0].Duration < 10*time.Millisecond {
		t.Fatalf("events: %+v", evs)
	}
}
