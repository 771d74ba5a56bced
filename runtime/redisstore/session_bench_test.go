package redisstore_test

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolcat/toolcat/runtime/internal/redistest"
	"github.com/toolcat/toolcat/runtime/redisstore"
)

// BenchmarkSessionStoreRedis measures Update (replacing a state: HMGET and
// the compare-and-set script, two round trips) and Load (HGET, one) on
// Redis on the loopback; runtime has the same on the memory store.
func BenchmarkSessionStoreRedis(b *testing.B) {
	srv := redistest.Start(b)
	s := redisstore.NewSessionStore(client(b, srv.Addr))
	ctx := context.Background()
	for _, st := range []struct {
		name  string
		state []byte
	}{
		{"300B", make([]byte, 300)},
		{"64KiB", make([]byte, 64<<10)},
	} {
		fn := func([]byte) ([]byte, error) { return st.state, nil }
		id := "bench-" + st.name
		if err := s.Update(ctx, id, time.Hour, fn); err != nil {
			b.Fatal(err)
		}
		b.Run("Update/"+st.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := s.Update(ctx, id, time.Hour, fn); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("Load/"+st.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if got, err := s.Load(ctx, id); err != nil || len(got) != len(st.state) {
					b.Fatal(len(got), err)
				}
			}
		})
	}
}

// BenchmarkSessionStoreRedisContended measures read-modify-writes of one
// hot session by 8 goroutines per CPU over two replicas (two clients):
// ns/op is the throughput of that session, fn-runs/op how often fn ran per
// update (1 with no lost race).
func BenchmarkSessionStoreRedisContended(b *testing.B) {
	srv := redistest.Start(b)
	stores := []*redisstore.SessionStore{
		redisstore.NewSessionStore(client(b, srv.Addr)),
		redisstore.NewSessionStore(client(b, srv.Addr)),
	}
	ctx := context.Background()
	var next, runs atomic.Int64
	b.ReportAllocs()
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		s := stores[next.Add(1)%2]
		for pb.Next() {
			err := s.Update(ctx, "hot", time.Hour, func(old []byte) ([]byte, error) {
				runs.Add(1)
				n, _ := strconv.Atoi(string(old))
				return strconv.AppendInt(nil, int64(n+1), 10), nil
			})
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(runs.Load())/float64(b.N), "fn-runs/op")
}
