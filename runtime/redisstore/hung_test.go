package redisstore_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/internal/redistest"
	"github.com/toolcat/toolcat/runtime/internal/storetest"
	"github.com/toolcat/toolcat/runtime/redisstore"
)

// safeClient is a client with the options runtime/README.md and the package
// doc recommend (TestDocumentedClientOptions keeps them in step).
func safeClient(t testing.TB, addr string) *redis.Client {
	c := redis.NewClient(&redis.Options{
		Addr:                  addr,
		ContextTimeoutEnabled: true,
		DialTimeout:           time.Second,
		ReadTimeout:           time.Second,
		WriteTimeout:          time.Second,
		PoolTimeout:           time.Second,
		MaxRetries:            -1,
	})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// defaultClient is a client as people first write it: go-redis's defaults
// (no ContextTimeoutEnabled, 5s timeouts, three retries). The stores keep
// the deadlines themselves with it.
func defaultClient(t testing.TB, addr string) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// clients are the clients the hung-Redis tests run with.
var clients = []struct {
	name string
	new  func(testing.TB, string) *redis.Client
}{
	{"documented options", safeClient},
	{"default options", defaultClient},
}

func TestDocumentedClientOptions(t *testing.T) {
	for _, doc := range []string{"../README.md", "redisstore.go"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"ContextTimeoutEnabled: true", "MaxRetries:            -1", "ReadTimeout:           time.Second"} {
			if !strings.Contains(string(b), want) {
				t.Errorf("%s does not show the client option %q", doc, want)
			}
		}
	}
}

// refund is storetest's refund tool with its SLA set to sla.
func refund(c *storetest.Counter, sla time.Duration) runtime.Tool {
	tool := c.Tool()
	tool.Meta.SLA = sla
	return tool
}

// TestHungRedis pauses redis-server (SIGSTOP): calls must answer within
// their deadline, say what happened and not run the tool. The bounds below
// are the property under test, with generous slack, not a performance
// check.
func TestHungRedis(t *testing.T) {
	const sla = time.Second
	tests := []struct {
		desc     string
		deadline time.Duration // of the caller's context; 0 is none
		bound    time.Duration // the call must return before
		code     runtime.Code
		says     string
	}{
		{desc: "the SLA bounds the store", bound: 5 * sla, code: runtime.CodeDependencyUnavailable,
			says: "the idempotency store did not answer in time"},
		{desc: "the caller's deadline bounds the store", deadline: 500 * time.Millisecond, bound: 5 * 500 * time.Millisecond,
			code: runtime.CodeTimeout, says: "the call ended before the idempotency store answered"},
	}
	for _, tt := range tests {
		for _, client := range clients {
			t.Run(tt.desc+", "+client.name, func(t *testing.T) { testHungRedis(t, client.new, tt.deadline, tt.bound, tt.code, tt.says) })
		}
	}
}

func testHungRedis(t *testing.T, newClient func(testing.TB, string) *redis.Client, deadline, bound time.Duration, code runtime.Code, says string) {
	tt := struct {
		deadline, bound time.Duration
		code            runtime.Code
		says            string
	}{deadline, bound, code, says}
	const sla = time.Second
	{
		{
			srv := redistest.Start(t)
			cl := newClient(t, srv.Addr)
			c := storetest.NewCounter()
			reg := runtime.New(runtime.WithIdempotencyStore(redisstore.NewIdempotencyStore(cl)), runtime.WithLogger(quiet()))
			if err := reg.Register(refund(c, sla)); err != nil {
				t.Fatal(err)
			}
			args := []byte(`{"order_id":"H1","amount_cents":1}`)
			opts := runtime.CallOptions{IdempotencyKey: "hung-H1"}
			if res := reg.Call(context.Background(), "refund_order", []byte(`{"order_id":"W","amount_cents":1}`),
				runtime.CallOptions{IdempotencyKey: "warm"}); !res.Success { // a connection in the pool
				t.Fatalf("warm-up: %s", res.JSON())
			}
			srv.Pause()
			ctx := context.Background()
			if tt.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.deadline)
				defer cancel()
			}
			start := time.Now()
			res := reg.Call(ctx, "refund_order", args, opts)
			took := time.Since(start)
			if took > tt.bound {
				t.Errorf("Call returned after %v with Redis hung; want before %v", took, tt.bound)
			}
			if res.Success || res.Error.Code != tt.code || !strings.Contains(res.Error.Message, tt.says) {
				t.Fatalf("want %s saying %q, got %s", tt.code, tt.says, res.JSON())
			}
			if strings.Contains(res.Error.Message, "in flight") {
				t.Errorf("the message blames a call in flight, and none is: %s", res.Error.Message)
			}
			if c.Runs("H1") != 0 {
				t.Error("the tool ran although its key could not be claimed")
			}
			srv.Resume()
			// Redis runs the SET it received while hung: the claim
			// appears, although nobody runs the tool.
			for i := 0; ; i++ {
				if n, _ := cl.Exists(context.Background(), "toolcat:idem:hung-H1").Result(); n == 1 {
					break
				}
				if i == 500 {
					t.Fatal("the claim sent while Redis hung never appeared")
				}
				time.Sleep(10 * time.Millisecond)
			}
			// The store takes it over for the same call, never for one
			// with other arguments.
			other := []byte(`{"order_id":"H1","amount_cents":2}`)
			if res := reg.Call(context.Background(), "refund_order", other, opts); res.Success || res.Error.Code != runtime.CodeIdempotencyConflict {
				t.Fatalf("other arguments, same key: want idempotency_conflict, got %s", res.JSON())
			}
			if res := reg.Call(context.Background(), "refund_order", args, opts); !res.Success || c.Runs("H1") != 1 {
				t.Fatalf("after Redis answers again: %s (runs %d)", res.JSON(), c.Runs("H1"))
			}
		}
	}
}

// TestRedisHungAfterTheToolRan: the tool ran, then Redis hangs before its
// result is stored. The call answers within a bound, with the result, and
// the result is written when the key is used again.
func TestRedisHungAfterTheToolRan(t *testing.T) {
	const sla = time.Second
	srv := redistest.Start(t)
	cl := safeClient(t, srv.Addr)
	c := storetest.NewCounter()
	c.Gate = make(chan struct{})
	c.Started = make(chan string, 1)
	reg := runtime.New(runtime.WithIdempotencyStore(redisstore.NewIdempotencyStore(cl)), runtime.WithLogger(quiet()))
	if err := reg.Register(refund(c, sla)); err != nil {
		t.Fatal(err)
	}
	args := []byte(`{"order_id":"H2","amount_cents":1}`)
	opts := runtime.CallOptions{IdempotencyKey: "hung-H2"}
	done := make(chan runtime.Result, 1)
	start := time.Now()
	go func() { done <- reg.Call(context.Background(), "refund_order", args, opts) }()
	<-c.Started
	srv.Pause()
	close(c.Gate)
	res := <-done
	if took := time.Since(start); took > 5*sla {
		t.Errorf("Call returned after %v with Redis hung after the tool; want before %v", took, 5*sla)
	}
	if !res.Success {
		t.Fatalf("the tool succeeded: want its result, got %s", res.JSON())
	}
	srv.Resume()
	again := reg.Call(context.Background(), "refund_order", args, opts)
	if !again.Success || !again.Replayed || c.Runs("H2") != 1 {
		t.Fatalf("retry after Redis answers again: want a replay, got %s (runs %d)", again.JSON(), c.Runs("H2"))
	}
	// Another replica sees the stored result.
	other := runtime.New(runtime.WithIdempotencyStore(redisstore.NewIdempotencyStore(safeClient(t, srv.Addr))), runtime.WithLogger(quiet()))
	if err := other.Register(refund(c, sla)); err != nil {
		t.Fatal(err)
	}
	if res := other.Call(context.Background(), "refund_order", args, opts); !res.Success || !res.Replayed {
		t.Fatalf("another replica: want a replay, got %s", res.JSON())
	}
	var d map[string]any
	b, _ := json.Marshal(again.Data)
	_ = json.Unmarshal(b, &d)
	if d["refund_id"] != "rf-H2-1" {
		t.Errorf("replayed %s, want refund rf-H2-1", b)
	}
}

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }
