package redisstore_test

import (
	"context"
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
