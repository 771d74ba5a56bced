package redisstore_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/internal/redistest"
	"github.com/toolcat/toolcat/runtime/internal/storetest"
	"github.com/toolcat/toolcat/runtime/redisstore"
)

// BenchmarkCallRedis measures an idempotent call through a Redis store on
// the loopback: the replay path (one round trip) and a first call (claim and
// complete: two round trips).
func BenchmarkCallRedis(b *testing.B) {
	srv := redistest.Start(b)
	c := client(b, srv.Addr)
	ctx := context.Background()
	args := []byte(`{"order_id":"B1","amount_cents":100}`)
	b.Run("replay", func(b *testing.B) {
		reg := storetest.New(b, func() runtime.IdempotencyStore { return redisstore.NewIdempotencyStore(c) }, storetest.NewCounter())
		opts := runtime.CallOptions{IdempotencyKey: "bench-replay"}
		if res := reg.Call(ctx, "refund_order", args, opts); !res.Success {
			b.Fatal(string(res.JSON()))
		}
		b.ReportAllocs()
		for b.Loop() {
			if res := reg.Call(ctx, "refund_order", args, opts); !res.Replayed {
				b.Fatal(string(res.JSON()))
			}
		}
	})
	i := 0 // keys stay new across the runs of the sub-benchmark
	b.Run("first_call", func(b *testing.B) {
		reg := storetest.New(b, func() runtime.IdempotencyStore { return redisstore.NewIdempotencyStore(c) }, storetest.NewCounter())
		b.ReportAllocs()
		for b.Loop() {
			i++
			if res := reg.Call(ctx, "refund_order", args, runtime.CallOptions{IdempotencyKey: "bench-" + strconv.Itoa(i)}); !res.Success || res.Replayed {
				b.Fatal(string(res.JSON()))
			}
		}
	})
}

// BenchmarkDeadlineGuard measures the replay path with two clients of
// go-redis's default options but one: with ContextTimeoutEnabled the
// client keeps the call's deadline; without, the store runs each command
// on a goroutine of its own to keep it.
func BenchmarkDeadlineGuard(b *testing.B) {
	srv := redistest.Start(b)
	args := []byte(`{"order_id":"B1","amount_cents":100}`)
	for _, keeps := range []bool{true, false} {
		b.Run("ContextTimeoutEnabled="+strconv.FormatBool(keeps), func(b *testing.B) {
			c := redis.NewClient(&redis.Options{Addr: srv.Addr, ContextTimeoutEnabled: keeps})
			defer c.Close()
			reg := storetest.New(b, func() runtime.IdempotencyStore { return redisstore.NewIdempotencyStore(c) }, storetest.NewCounter())
			opts := runtime.CallOptions{IdempotencyKey: "bench-guard"}
			ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
			defer cancel()
			if res := reg.Call(ctx, "refund_order", args, opts); !res.Success {
				b.Fatal(string(res.JSON()))
			}
			b.ReportAllocs()
			for b.Loop() {
				if res := reg.Call(ctx, "refund_order", args, opts); !res.Replayed {
					b.Fatal(string(res.JSON()))
				}
			}
		})
	}
}
