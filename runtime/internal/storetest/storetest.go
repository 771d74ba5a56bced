// Package storetest checks that a runtime.IdempotencyStore gives the
// registry its guarantees: one execution per key under concurrency, replays,
// conflicts and retries after failures. Every store's tests run it.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolcat/toolcat/runtime"
)

// Goroutines is how many concurrent calls share one key in Run.
const Goroutines = 1000

const refundSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["order_id", "amount_cents"],
  "properties": {
    "order_id": {"type": "string", "minLength": 1},
    "amount_cents": {"type": "integer", "minimum": 1}
  }
}`

// RefundMeta is the metadata of a side-effect tool that requires an
// idempotency key.
func RefundMeta() runtime.Meta {
	return runtime.Meta{
		Name:                "refund_order",
		Description:         "Refunds an order.",
		Risk:                runtime.RiskHigh,
		HasSideEffects:      true,
		IdempotencyRequired: true,
		MaxRetries:          3,
		SLA:                 5 * time.Second,
		ArgsSchema:          json.RawMessage(refundSchema),
	}
}

// Counter is a refund tool that counts its executions per order.
type Counter struct {
	mu    sync.Mutex
	runs  map[string]int
	Delay time.Duration
	// Gate, when set, is waited on by every execution.
	Gate chan struct{}
	// Started, when set, receives once per execution as it starts.
	Started chan string
	// Fail makes executions fail with dependency_unavailable.
	Fail atomic.Bool
}

// NewCounter returns a Counter.
func NewCounter() *Counter { return &Counter{runs: map[string]int{}} }

// Runs returns how many times order was refunded.
func (c *Counter) Runs(order string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.runs[order]
}

// Tool returns the refund tool bound to c.
func (c *Counter) Tool() runtime.Tool {
	return runtime.Tool{
		Meta: RefundMeta(),
		Execute: func(ctx context.Context, a any) (any, error) {
			args := a.(map[string]any)
			order := args["order_id"].(string)
			if c.Started != nil {
				c.Started <- order
			}
			if c.Gate != nil {
				<-c.Gate
			}
			if c.Delay > 0 {
				time.Sleep(c.Delay)
			}
			if c.Fail.Load() {
				return nil, runtime.DependencyUnavailable("payments API down")
			}
			c.mu.Lock()
			c.runs[order]++
			n := c.runs[order]
			c.mu.Unlock()
			return map[string]any{"order_id": order, "refund_id": fmt.Sprintf("rf-%s-%d", order, n)}, nil
		},
	}
}

// New returns a registry using a fresh store from newStore, with c's tool.
func New(t testing.TB, newStore func() runtime.IdempotencyStore, c *Counter, opts ...runtime.Option) *runtime.Registry {
	t.Helper()
	opts = append([]runtime.Option{
		runtime.WithIdempotencyStore(newStore()),
		runtime.WithLogger(slog.New(slog.DiscardHandler)),
	}, opts...)
	r := runtime.New(opts...)
	if err := r.Register(c.Tool()); err != nil {
		t.Fatal(err)
	}
	return r
}

// Run runs the store checks.
func Run(t *testing.T, newStore func() runtime.IdempotencyStore) {
	t.Run("one execution for concurrent calls with one key", func(t *testing.T) {
		c := NewCounter()
		c.Delay = 20 * time.Millisecond
		r := New(t, newStore, c)
		var wg sync.WaitGroup
		var ok, replayed atomic.Int64
		results := make([]string, Goroutines)
		start := make(chan struct{})
		for i := range Goroutines {
			wg.Go(func() {
				<-start
				res := r.Call(context.Background(), "refund_order", []byte(`{"order_id":"A1","amount_cents":500}`),
					runtime.CallOptions{IdempotencyKey: "refund-A1"})
				if !res.Success {
					results[i] = "error: " + string(res.JSON())
					return
				}
				ok.Add(1)
				if res.Replayed {
					replayed.Add(1)
				}
				b, _ := json.Marshal(res.Data)
				var d map[string]any
				_ = json.Unmarshal(b, &d)
				results[i], _ = d["refund_id"].(string)
			})
		}
		close(start)
		wg.Wait()
		if got := c.Runs("A1"); got != 1 {
			t.Fatalf("executions = %d, want exactly 1", got)
		}
		if ok.Load() != Goroutines {
			for _, r := range results {
				if len(r) > 6 && r[:6] == "error:" {
					t.Fatalf("%d of %d calls failed; first: %s", Goroutines-ok.Load(), Goroutines, r)
				}
			}
		}
		if replayed.Load() != Goroutines-1 {
			t.Errorf("replayed = %d, want %d", replayed.Load(), Goroutines-1)
		}
		for i, id := range results {
			if id != "rf-A1-1" {
				t.Fatalf("call %d got refund %q, want every call to get rf-A1-1", i, id)
			}
		}
	})

	t.Run("replay, conflict and retry after failure", func(t *testing.T) {
		c := NewCounter()
		r := New(t, newStore, c)
		ctx := context.Background()
		call := func(args, key string) runtime.Result {
			return r.Call(ctx, "refund_order", []byte(args), runtime.CallOptions{IdempotencyKey: key})
		}
		first := call(`{"order_id":"B2","amount_cents":100}`, "k-B2")
		if !first.Success || first.Replayed {
			t.Fatalf("first call: %s", first.JSON())
		}
		// Same canonical arguments, written differently.
		again := call(` { "amount_cents": 100.0, "order_id": "B2" } `, "k-B2")
		if !again.Success || !again.Replayed {
			t.Fatalf("second call: want a replay, got %s", again.JSON())
		}
		if c.Runs("B2") != 1 {
			t.Fatalf("executions = %d, want 1", c.Runs("B2"))
		}
		conflict := call(`{"order_id":"B2","amount_cents":999}`, "k-B2")
		if conflict.Success || conflict.Error.Code != runtime.CodeIdempotencyConflict || conflict.Error.RetryAllowed {
			t.Fatalf("other arguments: want idempotency_conflict, got %s", conflict.JSON())
		}
		// A failed call releases the key: the retry runs.
		c.Fail.Store(true)
		failed := call(`{"order_id":"C3","amount_cents":100}`, "k-C3")
		if failed.Success || failed.Error.Code != runtime.CodeDependencyUnavailable {
			t.Fatalf("failing call: %s", failed.JSON())
		}
		c.Fail.Store(false)
		retry := call(`{"order_id":"C3","amount_cents":100}`, "k-C3")
		if !retry.Success || retry.Replayed || c.Runs("C3") != 1 {
			t.Fatalf("retry after failure: %s (runs %d)", retry.JSON(), c.Runs("C3"))
		}
	})

	t.Run("a waiter gives up after the store timeout", func(t *testing.T) {
		c := NewCounter()
		c.Gate, c.Started = make(chan struct{}), make(chan string, 1)
		r := New(t, newStore, c, runtime.WithIdempotencyStoreTimeout(50*time.Millisecond))
		ctx := context.Background()
		args := []byte(`{"order_id":"G7","amount_cents":100}`)
		first := make(chan runtime.Result, 1)
		go func() { first <- r.Call(ctx, "refund_order", args, runtime.CallOptions{IdempotencyKey: "k-G7"}) }()
		<-c.Started
		// The holder runs until the gate opens, after the waiter answered:
		// the waiter must give up on its own.
		waiter := r.Call(ctx, "refund_order", args, runtime.CallOptions{IdempotencyKey: "k-G7"})
		close(c.Gate)
		if codeOf(waiter) != runtime.CodeTimeout || !strings.Contains(waiter.Error.Message, "call in flight with the same idempotency key after 50ms") {
			t.Errorf("waiter: want a timeout naming the call in flight, got %s", waiter.JSON())
		}
		if res := <-first; !res.Success {
			t.Fatalf("holder: %s", res.JSON())
		}
		if again := r.Call(ctx, "refund_order", args, runtime.CallOptions{IdempotencyKey: "k-G7"}); !again.Replayed || c.Runs("G7") != 1 {
			t.Fatalf("retry: want a replay of the one run, got %s (runs %d)", again.JSON(), c.Runs("G7"))
		}
	})

	t.Run("a result above its cap is kept as its size only", func(t *testing.T) {
		c := NewCounter()
		rec := &recordingStore{IdempotencyStore: newStore()}
		r := New(t, func() runtime.IdempotencyStore { return rec }, c, runtime.WithMaxResultBytes(16))
		ctx := context.Background()
		call := func() runtime.Result {
			return r.Call(ctx, "refund_order", []byte(`{"order_id":"D4","amount_cents":100}`), runtime.CallOptions{IdempotencyKey: "k-D4"})
		}
		first := call()
		if codeOf(first) != runtime.CodeUnsupported || first.Error.Details["max_result_bytes"] != 16 {
			t.Fatalf("first call: want unsupported naming the cap, got %s", first.JSON())
		}
		size := first.Error.Details["result_bytes"]
		if got := rec.completed(); len(got) != 1 || len(got[0].Data) != 0 || got[0].Oversize != size {
			t.Fatalf("stored %+v, want one record of size %v and no data", got, size)
		}
		again := call()
		if codeOf(again) != runtime.CodeUnsupported || again.Error.Details["result_bytes"] != size {
			t.Fatalf("retry: want the same unsupported, got %s", again.JSON())
		}
		if c.Runs("D4") != 1 {
			t.Fatalf("executions = %d, want 1: the retry must not run the refund again", c.Runs("D4"))
		}
	})

	t.Run("conflict with a call in flight", func(t *testing.T) {
		c := NewCounter()
		c.Gate = make(chan struct{})
		c.Started = make(chan string, 1)
		r := New(t, newStore, c)
		done := make(chan runtime.Result)
		go func() {
			done <- r.Call(context.Background(), "refund_order", []byte(`{"order_id":"D4","amount_cents":1}`),
				runtime.CallOptions{IdempotencyKey: "k-D4"})
		}()
		<-c.Started
		res := r.Call(context.Background(), "refund_order", []byte(`{"order_id":"D4","amount_cents":2}`),
			runtime.CallOptions{IdempotencyKey: "k-D4"})
		if res.Success || res.Error.Code != runtime.CodeIdempotencyConflict {
			t.Errorf("other arguments while in flight: %s", res.JSON())
		}
		// A waiter gives up when its context ends.
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		res = r.Call(ctx, "refund_order", []byte(`{"order_id":"D4","amount_cents":1}`),
			runtime.CallOptions{IdempotencyKey: "k-D4"})
		if res.Success || res.Error.Code != runtime.CodeTimeout {
			t.Errorf("waiter with a short context: %s", res.JSON())
		}
		close(c.Gate)
		if first := <-done; !first.Success {
			t.Fatalf("first call: %s", first.JSON())
		}
		if c.Runs("D4") != 1 {
			t.Fatalf("executions = %d, want 1", c.Runs("D4"))
		}
	})

	t.Run("lease of a crashed holder runs out", func(t *testing.T) {
		s := newStore()
		ctx := context.Background()
		c1, err := s.Acquire(ctx, "k-E5", "fp", 50*time.Millisecond)
		if err != nil || c1.Token == "" {
			t.Fatalf("first Acquire = %+v, %v", c1, err)
		}
		// The holder never completes; a waiter gets the key after the lease.
		c2, err := s.Acquire(ctx, "k-E5", "fp", time.Second)
		if err != nil || c2.Token == "" {
			t.Fatalf("Acquire after the lease = %+v, %v", c2, err)
		}
		if err := s.Complete(ctx, "k-E5", c1.Token, runtime.Record{Fingerprint: "fp"}, time.Minute); !errors.Is(err, runtime.ErrLeaseLost) {
			t.Errorf("Complete by the old holder = %v, want ErrLeaseLost", err)
		}
		if err := s.Complete(ctx, "k-E5", c2.Token, runtime.Record{Fingerprint: "fp", Data: json.RawMessage(`{"x":1}`)}, time.Minute); err != nil {
			t.Fatalf("Complete by the holder: %v", err)
		}
		c3, err := s.Acquire(ctx, "k-E5", "fp", time.Second)
		if err != nil || c3.Record == nil || string(c3.Record.Data) != `{"x":1}` {
			t.Fatalf("Acquire after Complete = %+v, %v", c3, err)
		}
	})

	t.Run("a waiter whose context ends is told the key is in flight", func(t *testing.T) {
		s := newStore()
		c1, err := s.Acquire(context.Background(), "k-F6", "fp", time.Minute)
		if err != nil || c1.Token == "" {
			t.Fatalf("first Acquire = %+v, %v", c1, err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
		defer cancel()
		_, err = s.Acquire(ctx, "k-F6", "fp", time.Minute)
		if !errors.Is(err, runtime.ErrInFlight) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Acquire of a held key with an ending context = %v, want ErrInFlight and DeadlineExceeded", err)
		}
		// Release after Complete leaves the result.
		if err := s.Complete(context.Background(), "k-F6", c1.Token, runtime.Record{Fingerprint: "fp", Data: json.RawMessage(`1`)}, time.Minute); err != nil {
			t.Fatal(err)
		}
		if err := s.Release(context.Background(), "k-F6", c1.Token); err != nil {
			t.Fatal(err)
		}
		if c, err := s.Acquire(context.Background(), "k-F6", "fp", time.Minute); err != nil || c.Record == nil {
			t.Fatalf("Acquire after Complete and Release = %+v, %v; want the record", c, err)
		}
	})

	// The panics below all happen after a successful Acquire; the key must
	// be free (or its result served) at once, not after the lease. Calls
	// after them get a context far shorter than the lease, so waiting
	// answers timeout.
	quick := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.Background(), 2*time.Second)
	}

	t.Run("a result whose MarshalJSON panics releases the key", func(t *testing.T) {
		var runs atomic.Int32
		tool := runtime.Tool{Meta: RefundMeta(), Execute: func(context.Context, any) (any, error) {
			if runs.Add(1) == 1 {
				return PanickingJSON{}, nil
			}
			return map[string]any{"refund_id": "rf-2"}, nil
		}}
		for _, detach := range []bool{false, true} {
			runs.Store(0)
			r := runtime.New(runtime.WithIdempotencyStore(newStore()), runtime.WithLogger(slog.New(slog.DiscardHandler)),
				runtime.WithIdempotencyLease(time.Hour), runtime.WithDetachOnTimeout(detach))
			if err := r.Register(tool); err != nil {
				t.Fatal(err)
			}
			args := []byte(`{"order_id":"G7","amount_cents":1}`)
			opts := runtime.CallOptions{IdempotencyKey: "k-G7"}
			first := r.Call(context.Background(), "refund_order", args, opts)
			if first.Success || first.Error.Code != runtime.CodeInternal {
				t.Fatalf("detach=%v: result that cannot be encoded: want internal, got %s", detach, first.JSON())
			}
			ctx, cancel := quick()
			retry := r.Call(ctx, "refund_order", args, opts)
			cancel()
			if !retry.Success || retry.Replayed || runs.Load() != 2 {
				t.Fatalf("detach=%v: retry: want a second execution at once, got %s (runs %d)", detach, retry.JSON(), runs.Load())
			}
		}
	})

	t.Run("a store that panics", func(t *testing.T) {
		tests := []struct {
			desc      string
			op        string
			fail      bool   // the tool fails, so the key is released
			wantFirst string // code of the first call; "" is success
			wantRuns  int    // executions after the first call and its retry
			replay    bool   // the retry is a replay
		}{
			{desc: "in Acquire: the tool does not run", op: "Acquire", wantFirst: string(runtime.CodeDependencyUnavailable), wantRuns: 1},
			{desc: "in Complete: the result is kept and served", op: "Complete", wantRuns: 1, replay: true},
			{desc: "in Release: the tool's error is the answer", op: "Release", fail: true, wantFirst: string(runtime.CodeDependencyUnavailable), wantRuns: 1},
		}
		for _, tt := range tests {
			t.Run(tt.desc, func(t *testing.T) {
				c := NewCounter()
				ps := &PanickingStore{IdempotencyStore: newStore(), Op: tt.op}
				ps.Left.Store(1)
				r := New(t, func() runtime.IdempotencyStore { return ps }, c, runtime.WithIdempotencyLease(time.Hour))
				args := []byte(`{"order_id":"H8","amount_cents":1}`)
				opts := runtime.CallOptions{IdempotencyKey: "k-H8-" + tt.op}
				c.Fail.Store(tt.fail)
				first := r.Call(context.Background(), "refund_order", args, opts)
				if got := string(codeOf(first)); got != tt.wantFirst {
					t.Fatalf("first call: want %q, got %s", tt.wantFirst, first.JSON())
				}
				if ps.Left.Load() != 0 {
					t.Fatalf("the store's %s was not called", tt.op)
				}
				c.Fail.Store(false)
				ctx, cancel := quick()
				defer cancel()
				retry := r.Call(ctx, "refund_order", args, opts)
				if tt.op == "Release" {
					// The key could not be released: the retry waits
					// for the lease, and is told so.
					if retry.Success || retry.Error.Code != runtime.CodeTimeout {
						t.Fatalf("retry: %s", retry.JSON())
					}
					return
				}
				if !retry.Success || retry.Replayed != tt.replay || c.Runs("H8") != tt.wantRuns {
					t.Fatalf("retry: want success (replayed %v) at once with %d executions, got %s (runs %d)",
						tt.replay, tt.wantRuns, retry.JSON(), c.Runs("H8"))
				}
			})
		}
	})
}

func codeOf(res runtime.Result) runtime.Code {
	if res.Success {
		return ""
	}
	return res.Error.Code
}

// PanickingJSON is tool data whose MarshalJSON panics.
type PanickingJSON struct{}

// MarshalJSON panics.
func (PanickingJSON) MarshalJSON() ([]byte, error) { panic("MarshalJSON bug") }

// PanickingStore wraps a store; its method Op panics while Left is above
// zero, decrementing it.
type PanickingStore struct {
	runtime.IdempotencyStore
	Op   string
	Left atomic.Int32
}

func (p *PanickingStore) maybePanic(op string) {
	if op == p.Op && p.Left.Add(-1) >= 0 {
		panic("store bug in " + op)
	}
}

// Acquire implements runtime.IdempotencyStore.
func (p *PanickingStore) Acquire(ctx context.Context, key, fp string, lease time.Duration) (runtime.Claim, error) {
	p.maybePanic("Acquire")
	return p.IdempotencyStore.Acquire(ctx, key, fp, lease)
}

// Complete implements runtime.IdempotencyStore.
func (p *PanickingStore) Complete(ctx context.Context, key, token string, rec runtime.Record, ttl time.Duration) error {
	p.maybePanic("Complete")
	return p.IdempotencyStore.Complete(ctx, key, token, rec, ttl)
}

// Release implements runtime.IdempotencyStore.
func (p *PanickingStore) Release(ctx context.Context, key, token string) error {
	p.maybePanic("Release")
	return p.IdempotencyStore.Release(ctx, key, token)
}

// recordingStore keeps the records given to Complete.
type recordingStore struct {
	runtime.IdempotencyStore
	mu   sync.Mutex
	recs []runtime.Record
}

func (s *recordingStore) Complete(ctx context.Context, key, token string, rec runtime.Record, ttl time.Duration) error {
	s.mu.Lock()
	s.recs = append(s.recs, rec)
	s.mu.Unlock()
	return s.IdempotencyStore.Complete(ctx, key, token, rec, ttl)
}

func (s *recordingStore) completed() []runtime.Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]runtime.Record(nil), s.recs...)
}
