package runtime_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/toolcat/toolcat/runtime"
)

// failingAPI is a tool that always fails the same way and may not be
// retried within a step.
func failingAPI(runs *int) runtime.Tool {
	return runtime.Tool{Meta: runtime.Meta{Name: "call_api"}, Execute: func(context.Context, any) (any, error) {
		*runs++
		return nil, runtime.ExternalError("upstream said no")
	}}
}

func TestWithRetryWindow(t *testing.T) {
	ctx := context.Background()
	step := runtime.CallOptions{StepID: "s1"}
	for _, tc := range []struct {
		desc   string
		window time.Duration
		within time.Duration // still blocked after this long
		after  time.Duration // allowed again after this long
	}{
		{"a window of 2m", 2 * time.Minute, time.Minute, 3 * time.Minute},
		{"zero is the default, 10m", 0, 9 * time.Minute, 11 * time.Minute},
		{"negative is the default, 10m", -time.Second, 9 * time.Minute, 11 * time.Minute},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			clock := newFakeClock()
			r := runtime.New(runtime.WithClock(clock.Now), runtime.WithRetryWindow(tc.window))
			var runs int
			mustRegister(t, r, failingAPI(&runs))
			r.Call(ctx, "call_api", []byte(`{}`), step) // uses up max_retries 0
			if res := r.Call(ctx, "call_api", []byte(`{}`), step); res.Error.Code != runtime.CodeRetryExhausted || runs != 1 {
				t.Fatalf("second call in the step: want retry_exhausted without running, got %s after %d runs", res.JSON(), runs)
			}
			clock.Advance(tc.within)
			if res := r.Call(ctx, "call_api", []byte(`{}`), step); res.Error.Code != runtime.CodeRetryExhausted || runs != 1 {
				t.Fatalf("after %v: want still retry_exhausted, got %s after %d runs", tc.within, res.JSON(), runs)
			}
			clock.Advance(tc.after - tc.within)
			if res := r.Call(ctx, "call_api", []byte(`{}`), step); res.Error.Code != runtime.CodeExternalError || runs != 2 {
				t.Fatalf("after %v: want the tool to run again, got %s after %d runs", tc.after, res.JSON(), runs)
			}
		})
	}
}

func TestWithDefaultAutonomy(t *testing.T) {
	ctx := context.Background()
	r := runtime.New(runtime.WithDefaultAutonomy(runtime.AutonomyReadOnly))
	mustRegister(t, r,
		runtime.Tool{Meta: runtime.Meta{Name: "read_note", Risk: runtime.RiskLow}, Execute: echo},
		runtime.Tool{Meta: runtime.Meta{Name: "delete_note", Risk: runtime.RiskLow, HasSideEffects: true}, Execute: echo},
	)
	if res := r.Call(ctx, "read_note", []byte(`{}`), runtime.CallOptions{}); !res.Success {
		t.Fatalf("a read at the default read-only autonomy: %s", res.JSON())
	}
	if res := r.Call(ctx, "delete_note", []byte(`{}`), runtime.CallOptions{}); res.Success || res.Error.Code != runtime.CodePermissionDenied {
		t.Fatalf("a side effect at the default read-only autonomy: want permission_denied, got %s", res.JSON())
	}
	if res := r.Call(ctx, "delete_note", []byte(`{}`), runtime.CallOptions{Autonomy: runtime.AutonomyFull}); !res.Success {
		t.Fatalf("the call's own autonomy overrides the default: %s", res.JSON())
	}
	var visible []string
	for _, tl := range r.Visible(runtime.AutonomyDefault) {
		visible = append(visible, tl.Meta.Name)
	}
	if len(visible) != 1 || visible[0] != "read_note" {
		t.Fatalf("Visible at the default: %v, want [read_note]", visible)
	}
	// A session without SessionAutonomy runs at the registry's default.
	s := r.Session("conv-1")
	if res := s.Call(ctx, "delete_note", []byte(`{}`), runtime.CallOptions{}); res.Success || res.Error.Code != runtime.CodePermissionDenied {
		t.Fatalf("a session at the registry's default: want permission_denied, got %s", res.JSON())
	}
	if res := r.Session("conv-2", runtime.SessionAutonomy(runtime.AutonomyFull)).Call(ctx, "delete_note", []byte(`{}`), runtime.CallOptions{}); !res.Success {
		t.Fatalf("SessionAutonomy overrides the registry's default: %s", res.JSON())
	}
}

// ttlSessions records the TTL of every update.
type ttlSessions struct {
	runtime.SessionStore
	mu   sync.Mutex
	ttls []time.Duration
}

func (s *ttlSessions) Update(ctx context.Context, id string, ttl time.Duration, fn func([]byte) ([]byte, error)) error {
	s.mu.Lock()
	s.ttls = append(s.ttls, ttl)
	s.mu.Unlock()
	return s.SessionStore.Update(ctx, id, ttl, fn)
}

func TestWithSessionTTL(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		desc string
		opt  []runtime.Option
		want time.Duration
	}{
		{"default", nil, runtime.DefaultSessionTTL},
		{"an hour", []runtime.Option{runtime.WithSessionTTL(time.Hour)}, time.Hour},
		{"zero is the default", []runtime.Option{runtime.WithSessionTTL(0)}, runtime.DefaultSessionTTL},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			store := &ttlSessions{SessionStore: runtime.NewMemorySessionStore()}
			r := runtime.New(append(tc.opt, runtime.WithSessionStore(store))...)
			s := r.Session("conv-1")
			if err := s.EndTurn(ctx); err != nil {
				t.Fatal(err)
			}
			if len(store.ttls) == 0 {
				t.Fatal("EndTurn did not update the session store")
			}
			for _, got := range store.ttls {
				if got != tc.want {
					t.Fatalf("TTL given to the store: %v, want %v", got, tc.want)
				}
			}
		})
	}
}

// downStore is a MemoryIdempotencyStore whose Complete fails while down.
type downStore struct {
	*runtime.MemoryIdempotencyStore
	mu   sync.Mutex
	down bool
}

var errIdemDown = errors.New("store unreachable")

func (s *downStore) Complete(ctx context.Context, key, token string, rec runtime.Record, ttl time.Duration) error {
	s.mu.Lock()
	down := s.down
	s.mu.Unlock()
	if down {
		return errIdemDown
	}
	return s.MemoryIdempotencyStore.Complete(ctx, key, token, rec, ttl)
}

func (s *downStore) setDown(down bool) {
	s.mu.Lock()
	s.down = down
	s.mu.Unlock()
}

func TestRegistryFlush(t *testing.T) {
	ctx := context.Background()
	store := &downStore{MemoryIdempotencyStore: runtime.NewMemoryIdempotencyStore()}
	var runs int
	send := runtime.Tool{Meta: runtime.Meta{Name: "send_mail", HasSideEffects: true}, Execute: func(context.Context, any) (any, error) {
		runs++
		return map[string]any{"sent": runs}, nil
	}}
	a := runtime.New(runtime.WithIdempotencyStore(store), runtime.WithLogger(quietLogger()))
	b := runtime.New(runtime.WithIdempotencyStore(store), runtime.WithLogger(quietLogger()))
	mustRegister(t, a, send)
	mustRegister(t, b, send)
	keyed := runtime.CallOptions{IdempotencyKey: "mail-1"}

	if err := a.Flush(ctx); err != nil {
		t.Fatalf("Flush with nothing to write: %v", err)
	}
	store.setDown(true)
	if res := a.Call(ctx, "send_mail", []byte(`{}`), keyed); !res.Success || runs != 1 {
		t.Fatalf("a call whose result cannot be stored still answers: %s", res.JSON())
	}
	if err := a.Flush(ctx); !errors.Is(err, errIdemDown) {
		t.Fatalf("Flush while the store is down: %v, want %v", err, errIdemDown)
	}
	store.setDown(false)
	if err := a.Flush(ctx); err != nil {
		t.Fatalf("Flush once the store is back: %v", err)
	}
	// Another replica, which never held the result, now replays it.
	res := b.Call(ctx, "send_mail", []byte(`{}`), keyed)
	if !res.Success || !res.Replayed || runs != 1 {
		t.Fatalf("after Flush, the other replica: want a replay without running, got %s after %d runs", res.JSON(), runs)
	}
	if err := a.Flush(ctx); err != nil {
		t.Fatalf("a second Flush: %v", err)
	}
}
