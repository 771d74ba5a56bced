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
}
