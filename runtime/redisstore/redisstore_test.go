package redisstore_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/internal/redistest"
	"github.com/toolcat/toolcat/runtime/internal/storetest"
	"github.com/toolcat/toolcat/runtime/redisstore"
)

func client(t testing.TB, addr string) *redis.Client {
	c := redis.NewClient(&redis.Options{
		Addr:         addr,
		DialTimeout:  200 * time.Millisecond,
		ReadTimeout:  time.Second,
		WriteTimeout: time.Second,
		MaxRetries:   -1,
		PoolSize:     32,
	})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestStore(t *testing.T) {
	srv := redistest.Start(t)
	c := client(t, srv.Addr)
	n := 0
	storetest.Run(t, func() runtime.IdempotencyStore {
		n++ // a fresh key space per subtest
		return redisstore.NewIdempotencyStore(c, redisstore.IdempotencyStorePrefix("test"+string(rune('a'+n))+":"))
	})
}

// TestSharedAcrossProcesses checks that registries sharing one Redis (as
// replicas do) execute a key once.
func TestSharedAcrossProcesses(t *testing.T) {
	srv := redistest.Start(t)
	counter := storetest.NewCounter()
	counter.Delay = 20 * time.Millisecond
	var regs []*runtime.Registry
	for range 4 {
		c := client(t, srv.Addr) // one client per "process"
		regs = append(regs, storetest.New(t, func() runtime.IdempotencyStore { return redisstore.NewIdempotencyStore(c) }, counter))
	}
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Go(func() {
			res := regs[i%len(regs)].Call(context.Background(), "refund_order", []byte(`{"order_id":"S1","amount_cents":5}`),
				runtime.CallOptions{IdempotencyKey: "shared-S1"})
			if !res.Success {
				t.Errorf("call %d: %s", i, res.JSON())
			}
		})
	}
	wg.Wait()
	if got := counter.Runs("S1"); got != 1 {
		t.Fatalf("executions across replicas = %d, want 1", got)
	}
}

// TestRedisStoppedMidRun stops Redis while a call runs and others wait on
// its key, then brings it back.
func TestRedisStoppedMidRun(t *testing.T) {
	tests := []struct {
		desc string
		stop func(*redistest.Server)
	}{
		{desc: "graceful shutdown, data saved", stop: (*redistest.Server).Stop},
		{desc: "killed, data lost", stop: (*redistest.Server).Kill},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			srv := redistest.Start(t)
			cl := client(t, srv.Addr)
			counter := storetest.NewCounter()
			counter.Gate = make(chan struct{})
			counter.Started = make(chan string, 100)
			reg := storetest.New(t, func() runtime.IdempotencyStore { return redisstore.NewIdempotencyStore(cl) }, counter)
			ctx := context.Background()
			k1 := []byte(`{"order_id":"R1","amount_cents":700}`)
			opts := runtime.CallOptions{IdempotencyKey: "stop-R1"}

			first := make(chan runtime.Result)
			go func() { first <- reg.Call(ctx, "refund_order", k1, opts) }()
			<-counter.Started

			// Waiters on the same key.
			const waiters = 20
			waited := make(chan runtime.Result, waiters)
			for range waiters {
				go func() { waited <- reg.Call(ctx, "refund_order", k1, opts) }()
			}
			time.Sleep(50 * time.Millisecond) // let them start polling

			tt.stop(srv)

			for range waiters {
				res := <-waited
				if res.Success {
					t.Fatalf("a waiter succeeded while Redis was down: %s", res.JSON())
				}
				if res.Error.Code != runtime.CodeDependencyUnavailable || res.Error.Details["idempotency_store"] != "unavailable" {
					t.Fatalf("waiter: want dependency_unavailable naming the store, got %s", res.JSON())
				}
			}
			// A new key while Redis is down: fail closed, the tool does not run.
			down := reg.Call(ctx, "refund_order", []byte(`{"order_id":"R2","amount_cents":1}`), runtime.CallOptions{IdempotencyKey: "stop-R2"})
			if down.Success || down.Error.Code != runtime.CodeDependencyUnavailable || !down.Error.RetryAllowed {
				t.Fatalf("new key with Redis down: %s", down.JSON())
			}
			select {
			case o := <-counter.Started:
				t.Fatalf("tool started for %s while Redis was down", o)
			default:
			}

			// The running call finishes; its result cannot be stored yet.
			close(counter.Gate)
			if res := <-first; !res.Success {
				t.Fatalf("the call that ran: %s", res.JSON())
			}

			srv.Restart()

			// Recovery: the key replays the one execution, in this process
			// and in another sharing the Redis.
			again := reg.Call(ctx, "refund_order", k1, opts)
			if !again.Success || !again.Replayed {
				t.Fatalf("after restart: want a replay, got %s", again.JSON())
			}
			other := storetest.New(t, func() runtime.IdempotencyStore { return redisstore.NewIdempotencyStore(client(t, srv.Addr)) }, counter)
			if res := other.Call(ctx, "refund_order", k1, opts); !res.Success || !res.Replayed {
				t.Fatalf("another replica after restart: want a replay, got %s", res.JSON())
			}
			if got := counter.Runs("R1"); got != 1 {
				t.Fatalf("executions of R1 = %d, want 1", got)
			}
			// The refused call can now run.
			if res := reg.Call(ctx, "refund_order", []byte(`{"order_id":"R2","amount_cents":1}`), runtime.CallOptions{IdempotencyKey: "stop-R2"}); !res.Success {
				t.Fatalf("R2 after restart: %s", res.JSON())
			}
			if got := counter.Runs("R2"); got != 1 {
				t.Fatalf("executions of R2 = %d, want 1", got)
			}
		})
	}
}
