package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/internal/storetest"
)

func TestMemoryStore(t *testing.T) {
	storetest.Run(t, func() runtime.IdempotencyStore { return runtime.NewMemoryIdempotencyStore() })
}

func TestIdempotencyKeyRequired(t *testing.T) {
	c := storetest.NewCounter()
	r := storetest.New(t, func() runtime.IdempotencyStore { return runtime.NewMemoryIdempotencyStore() }, c)
	res := r.Call(context.Background(), "refund_order", []byte(`{"order_id":"A","amount_cents":1}`), runtime.CallOptions{})
	if res.Success || res.Error.Code != runtime.CodeInvalidArgs {
		t.Fatalf("call without key: %s", res.JSON())
	}
	if !strings.Contains(res.Error.Suggestion, "idempotency key") || !strings.Contains(res.Error.Suggestion, "reuse the same key") {
		t.Errorf("suggestion does not say how to build a key: %q", res.Error.Suggestion)
	}
	if c.Runs("A") != 0 {
		t.Errorf("the tool ran without a key")
	}
}

func TestIdempotencyKeyHelper(t *testing.T) {
	a := runtime.IdempotencyKey("conv-1", "step-2", "refund")
	if a != runtime.IdempotencyKey("conv-1", "step-2", "refund") {
		t.Error("IdempotencyKey is not deterministic")
	}
	if a == runtime.IdempotencyKey("conv-1", "step-2refund") {
		t.Error("IdempotencyKey does not separate its parts")
	}
}

// fakeClock is a clock tests advance by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// TestMemoryStoreSweepsExpiredEntries makes many calls with distinct keys
// and a TTL shorter than the time between them: the store must stay small,
// even though each sweep leaves an entry behind.
func TestMemoryStoreSweepsExpiredEntries(t *testing.T) {
	clk := newFakeClock()
	s := runtime.NewMemoryIdempotencyStore(runtime.IdempotencyStoreClock(clk.Now))
	r := runtime.New(runtime.WithIdempotencyStore(s), runtime.WithClock(clk.Now),
		runtime.WithIdempotencyTTL(time.Millisecond), runtime.WithLogger(quietLogger()))
	mustRegister(t, r, runtime.Tool{Meta: runtime.Meta{Name: "send_note", HasSideEffects: true}, Execute: echo})
	// An entry that outlives every sweep: a call in flight.
	if _, err := s.Acquire(context.Background(), "held", "fp", time.Hour); err != nil {
		t.Fatal(err)
	}
	const calls = 20_000
	most := 0
	for i := range calls {
		res := r.Call(context.Background(), "send_note", []byte(`{}`), runtime.CallOptions{IdempotencyKey: "k" + strconv.Itoa(i)})
		if !res.Success {
			t.Fatalf("call %d: %s", i, res.JSON())
		}
		clk.Advance(time.Millisecond)
		most = max(most, s.Len())
	}
	// A sweep runs at least every 1024 operations and leaves only the
	// entries not yet expired (here: none but the newest).
	if most > 2048 {
		t.Fatalf("the store held up to %d entries for %d calls whose results expire before the next; want at most 2048", most, calls)
	}
}

func TestMemoryStoreMaxEntries(t *testing.T) {
	ctx := context.Background()
	s := runtime.NewMemoryIdempotencyStore(runtime.IdempotencyStoreMaxEntries(3))
	complete := func(key string) {
		t.Helper()
		c, err := s.Acquire(ctx, key, "fp", time.Minute)
		if err != nil || c.Token == "" {
			t.Fatalf("Acquire(%s) = %+v, %v", key, c, err)
		}
		if err := s.Complete(ctx, key, c.Token, runtime.Record{Fingerprint: "fp", Data: json.RawMessage(`"` + key + `"`)}, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	stored := func(key string) bool {
		t.Helper()
		c, err := s.Acquire(ctx, key, "fp", time.Minute)
		if err != nil {
			t.Fatalf("Acquire(%s): %v", key, err)
		}
		if c.Token != "" {
			_ = s.Release(ctx, key, c.Token)
		}
		return c.Record != nil
	}
	complete("a")
	complete("b")
	complete("c")
	if !stored("a") { // a is now the most recently used
		t.Fatal("a was not kept")
	}
	complete("d") // evicts b, the least recently used
	if s.Len() != 3 {
		t.Fatalf("Len = %d, want 3", s.Len())
	}
	for _, k := range []string{"a", "c", "d"} {
		if !stored(k) {
			t.Errorf("%s was evicted", k)
		}
	}
	if stored("b") { // (its probe claims b, evicting a)
		t.Error("b, the least recently used, was kept instead of evicted")
	}

	// Calls in flight are never evicted: with only claims left, a new key
	// is refused.
	s = runtime.NewMemoryIdempotencyStore(runtime.IdempotencyStoreMaxEntries(2))
	c1, err1 := s.Acquire(ctx, "x", "fp", time.Minute)
	c2, err2 := s.Acquire(ctx, "y", "fp", time.Minute)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if _, err := s.Acquire(ctx, "z", "fp", time.Minute); !errors.Is(err, runtime.ErrStoreFull) {
		t.Fatalf("Acquire with the store full of claims = %v, want ErrStoreFull", err)
	}
	if err := s.Complete(ctx, "x", c1.Token, runtime.Record{Fingerprint: "fp"}, time.Hour); err != nil {
		t.Fatal(err)
	}
	// x's result now makes room; y's claim stays.
	if c, err := s.Acquire(ctx, "z", "fp", time.Minute); err != nil || c.Token == "" {
		t.Fatalf("Acquire once a result can be evicted = %+v, %v", c, err)
	}
	if err := s.Complete(ctx, "y", c2.Token, runtime.Record{Fingerprint: "fp"}, time.Hour); err != nil {
		t.Fatalf("the claim on y was lost: %v", err)
	}
}

func TestMemoryStoreFullRefusesCalls(t *testing.T) {
	var logs logBuffer
	c := storetest.NewCounter()
	c.Gate = make(chan struct{})
	c.Started = make(chan string, 1)
	r := storetest.New(t, func() runtime.IdempotencyStore {
		return runtime.NewMemoryIdempotencyStore(runtime.IdempotencyStoreMaxEntries(1))
	}, c,
		runtime.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	done := make(chan runtime.Result)
	go func() {
		done <- r.Call(context.Background(), "refund_order", []byte(`{"order_id":"A","amount_cents":1}`), runtime.CallOptions{IdempotencyKey: "a"})
	}()
	<-c.Started
	res := r.Call(context.Background(), "refund_order", []byte(`{"order_id":"B","amount_cents":1}`), runtime.CallOptions{IdempotencyKey: "b"})
	close(c.Gate)
	<-done
	if res.Success || res.Error.Code != runtime.CodeDependencyUnavailable || !strings.Contains(res.Error.Message, "full") || !res.Error.RetryAllowed {
		t.Fatalf("call with the store full of calls in flight: %s", res.JSON())
	}
	if c.Runs("B") != 0 {
		t.Error("the tool ran although its key could not be recorded")
	}
	if !strings.Contains(logs.String(), "idempotency store is full") {
		t.Errorf("no log line names the full store:\n%s", logs.String())
	}
}

// TestLateSettlePanicReleasesKey: a tool answers after its deadline with
// data whose MarshalJSON panics. The late path must not crash the process
// and must free the key.
func TestLateSettlePanicReleasesKey(t *testing.T) {
	for _, detach := range []bool{false, true} {
		t.Run(fmt.Sprintf("detach=%v", detach), func(t *testing.T) {
			var runs atomic.Int32
			r := runtime.New(runtime.WithLogger(quietLogger()), runtime.WithDetachOnTimeout(detach), runtime.WithIdempotencyLease(time.Hour))
			mustRegister(t, r, runtime.Tool{Meta: runtime.Meta{Name: "send_mail", HasSideEffects: true, SLA: 20 * time.Millisecond},
				Execute: func(context.Context, any) (any, error) {
					if runs.Add(1) == 1 {
						time.Sleep(60 * time.Millisecond) // ignores its context
						return storetest.PanickingJSON{}, nil
					}
					return "sent", nil
				}})
			opts := runtime.CallOptions{IdempotencyKey: "mail-1"}
			if res := r.Call(context.Background(), "send_mail", nil, opts); res.Success || res.Error.Code != runtime.CodeTimeout {
				t.Fatalf("first call: %s", res.JSON())
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			var res runtime.Result
			for ctx.Err() == nil {
				if res = r.Call(ctx, "send_mail", nil, opts); res.Success {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			if !res.Success || res.Replayed || runs.Load() != 2 {
				t.Fatalf("retry after the late panic: want a second execution, got %s (runs %d)", res.JSON(), runs.Load())
			}
		})
	}
}

// BenchmarkMemoryStoreShortTTL makes calls with distinct keys and a 1 ms
// TTL, on the real clock, and reports how many entries and how much heap
// the store keeps at the end. The figures of runtime/README.md come from
//
//	go test -run '^$' -bench BenchmarkMemoryStoreShortTTL -benchtime=1000000x ./runtime/
func BenchmarkMemoryStoreShortTTL(b *testing.B) {
	s := runtime.NewMemoryIdempotencyStore()
	r := runtime.New(runtime.WithIdempotencyStore(s), runtime.WithIdempotencyTTL(time.Millisecond), runtime.WithLogger(quietLogger()))
	mustRegister(b, r, runtime.Tool{Meta: runtime.Meta{Name: "send_note", HasSideEffects: true}, Execute: echo})
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	for i := range b.N {
		if res := r.Call(context.Background(), "send_note", []byte(`{}`), runtime.CallOptions{IdempotencyKey: "k" + strconv.Itoa(i)}); !res.Success {
			b.Fatal(string(res.JSON()))
		}
	}
	b.StopTimer()
	goruntime.GC()
	goruntime.ReadMemStats(&after)
	b.ReportMetric(float64(s.Len()), "entries")
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/1e6, "heap-MB")
	goruntime.KeepAlive(r)
}
