package runtime_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/internal/sessiontest"
)

// fakeClock and newFakeClock are in idempotency_test.go.

func TestMemorySessionStoreContract(t *testing.T) {
	clk := newFakeClock()
	sessiontest.Run(t, sessiontest.Config{
		New: func() runtime.SessionStore {
			return runtime.NewMemorySessionStore(runtime.SessionStoreClock(clk.Now))
		},
		Advance: clk.Advance,
		TTL:     30 * time.Minute,
	})
}

func setSession(t *testing.T, s runtime.SessionStore, id string, ttl time.Duration) {
	t.Helper()
	err := s.Update(context.Background(), id, ttl, func([]byte) ([]byte, error) { return []byte("state of " + id), nil })
	if err != nil {
		t.Fatal(err)
	}
}

func has(t *testing.T, s runtime.SessionStore, id string) bool {
	t.Helper()
	b, err := s.Load(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return b != nil
}

// TestMemorySessionStoreLRU: a full store forgets the least recently used
// session; a Load or an Update counts as a use, and updating a session it
// holds pushes nothing out.
func TestMemorySessionStoreLRU(t *testing.T) {
	s := runtime.NewMemorySessionStore(runtime.SessionStoreMaxSessions(3))
	for _, id := range []string{"a", "b", "c"} {
		setSession(t, s, id, time.Hour)
	}
	// Most recently used first: c b a.
	has(t, s, "a")                   // a c b
	setSession(t, s, "c", time.Hour) // c a b; updating a held session evicts nothing
	if s.Len() != 3 {
		t.Fatalf("Len = %d after updating a held session, want 3", s.Len())
	}
	setSession(t, s, "d", time.Hour) // d c a: b, the least recently used, is out
	if has(t, s, "b") {
		t.Error("a full store kept b, its least recently used session, and pushed out another")
	}
	setSession(t, s, "a", time.Hour) // a d c
	setSession(t, s, "e", time.Hour) // e a d: c is out
	if has(t, s, "c") {
		t.Error("a full store kept c, its least recently used session, and pushed out another")
	}
	for _, id := range []string{"a", "d", "e"} {
		if !has(t, s, id) {
			t.Errorf("session %s, recently used, was pushed out", id)
		}
	}
	if s.Len() != 3 {
		t.Fatalf("Len = %d, want the bound 3", s.Len())
	}
}

// TestMemorySessionStoreBound: however many sessions are written, the store
// holds at most its bound, DefaultMaxSessions unless set.
func TestMemorySessionStoreBound(t *testing.T) {
	for _, tt := range []struct {
		desc string
		opts []runtime.MemorySessionStoreOption
		max  int
	}{
		{"SessionStoreMaxSessions(100)", []runtime.MemorySessionStoreOption{runtime.SessionStoreMaxSessions(100)}, 100},
		{"default", nil, runtime.DefaultMaxSessions},
		{"SessionStoreMaxSessions(0) is the default", []runtime.MemorySessionStoreOption{runtime.SessionStoreMaxSessions(0)}, runtime.DefaultMaxSessions},
	} {
		t.Run(tt.desc, func(t *testing.T) {
			s := runtime.NewMemorySessionStore(tt.opts...)
			for i := range tt.max + 500 {
				setSession(t, s, "s"+strconv.Itoa(i), time.Hour)
			}
			if s.Len() != tt.max {
				t.Fatalf("Len = %d, want %d", s.Len(), tt.max)
			}
			last := "s" + strconv.Itoa(tt.max+499)
			if !has(t, s, last) || has(t, s, "s0") {
				t.Errorf("want the newest session held and the oldest forgotten")
			}
		})
	}
}

// TestMemorySessionStoreExpiry: an expired session is gone for Load and
// Update and leaves the store when looked at; a refused Update (bad ttl)
// pushes no live session out.
func TestMemorySessionStoreExpiry(t *testing.T) {
	clk := newFakeClock()
	s := runtime.NewMemorySessionStore(runtime.SessionStoreClock(clk.Now), runtime.SessionStoreMaxSessions(2))
	setSession(t, s, "short", time.Minute)
	setSession(t, s, "long", time.Hour)
	clk.Advance(time.Minute - time.Nanosecond)
	if !has(t, s, "short") {
		t.Fatal("a session is gone before its ttl")
	}
	clk.Advance(time.Nanosecond)
	if has(t, s, "short") {
		t.Fatal("a session is held at its ttl")
	}
	if s.Len() != 1 {
		t.Errorf("Len = %d after an expired session was looked at, want 1", s.Len())
	}
	for _, ttl := range []time.Duration{0, -time.Minute} {
		err := s.Update(context.Background(), "bad-ttl", ttl, func([]byte) ([]byte, error) { return []byte("x"), nil })
		if err == nil {
			t.Errorf("Update with ttl %v: no error", ttl)
		}
	}
	setSession(t, s, "next", time.Hour)
	if !has(t, s, "long") || !has(t, s, "next") || s.Len() != 2 {
		t.Errorf("after refused updates: long %v, next %v, Len %d; want both held, Len 2", has(t, s, "long"), has(t, s, "next"), s.Len())
	}
}

// TestMemorySessionStoreEmptyState: an empty state deletes the session and
// takes no room in the store.
func TestMemorySessionStoreEmptyState(t *testing.T) {
	s := runtime.NewMemorySessionStore()
	setSession(t, s, "a", time.Hour)
	if err := s.Update(context.Background(), "a", time.Hour, func([]byte) ([]byte, error) { return []byte{}, nil }); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(context.Background(), "b", time.Hour, func([]byte) ([]byte, error) { return []byte{}, nil }); err != nil {
		t.Fatal(err)
	}
	if s.Len() != 0 {
		t.Fatalf("Len = %d after writing only empty states, want 0", s.Len())
	}
}

func benchStates() []struct {
	name  string
	state []byte
} {
	return []struct {
		name  string
		state []byte
	}{
		{"300B", make([]byte, 300)},
		{"64KiB", make([]byte, 64<<10)},
	}
}

// BenchmarkSessionStoreMemory measures Update (replacing a state) and Load
// on a MemorySessionStore; runtime/redisstore has the same on Redis.
func BenchmarkSessionStoreMemory(b *testing.B) {
	ctx := context.Background()
	for _, st := range benchStates() {
		s := runtime.NewMemorySessionStore()
		fn := func([]byte) ([]byte, error) { return st.state, nil }
		if err := s.Update(ctx, "bench", time.Hour, fn); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("Update/%s", st.name), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := s.Update(ctx, "bench", time.Hour, fn); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("Load/%s", st.name), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if got, err := s.Load(ctx, "bench"); err != nil || len(got) != len(st.state) {
					b.Fatal(len(got), err)
				}
			}
		})
	}
}

// FuzzMemorySessionStore runs sequences of Load, Update, delete and clock
// steps on a small MemorySessionStore and compares it with a model: the
// ids used most recently (read while live, or written), at most the bound,
// each with its state and expiry.
func FuzzMemorySessionStore(f *testing.F) {
	f.Add([]byte{1, 0, 1, 1, 1, 2, 1, 3, 0, 0, 1, 4, 0, 1})
	f.Add([]byte{1, 0, 3, 0, 3, 0, 0, 0, 2, 0, 0, 0})
	f.Add([]byte{1, 5, 1, 6, 1, 7, 0, 5, 1, 0, 0, 5, 1, 1, 0, 6, 0, 7})
	f.Fuzz(func(t *testing.T, ops []byte) {
		const max, ttl = 3, time.Minute
		clk := newFakeClock()
		s := runtime.NewMemorySessionStore(runtime.SessionStoreMaxSessions(max), runtime.SessionStoreClock(clk.Now))
		type entry struct {
			id      string
			state   string
			expires time.Time
		}
		var model []entry // most recently used first
		find := func(id string) int {
			for i, e := range model {
				if e.id == id {
					return i
				}
			}
			return -1
		}
		// use returns the live entry id, moved to the front, or -1.
		use := func(id string) int {
			i := find(id)
			if i < 0 {
				return -1
			}
			e := model[i]
			model = append(model[:i], model[i+1:]...)
			if !clk.Now().Before(e.expires) {
				return -1
			}
			model = append([]entry{e}, model...)
			return 0
		}
		ctx := context.Background()
		for n := 0; n+1 < len(ops) && n < 400; n += 2 {
			id := "s" + strconv.Itoa(int(ops[n+1]%8))
			switch ops[n] % 4 {
			case 0: // Load
				got, err := s.Load(ctx, id)
				want := ""
				if i := use(id); i >= 0 {
					want = model[i].state
				}
				if err != nil || string(got) != want {
					t.Fatalf("op %d: Load(%s) = %q, %v; the model holds %q", n/2, id, got, err, want)
				}
			case 1, 2: // Update to a new state, or delete
				state := ""
				if ops[n]%4 == 1 {
					state = id + "@" + strconv.Itoa(n)
				}
				var saw []byte
				err := s.Update(ctx, id, ttl, func(old []byte) ([]byte, error) { saw = old; return []byte(state), nil })
				want := ""
				i := use(id)
				if i >= 0 {
					want = model[i].state
				}
				if err != nil || string(saw) != want {
					t.Fatalf("op %d: Update(%s) saw %q, %v; the model holds %q", n/2, id, saw, err, want)
				}
				switch {
				case state == "" && i >= 0:
					model = model[1:]
				case state == "":
				case i >= 0:
					model[0].state, model[0].expires = state, clk.Now().Add(ttl)
				default:
					if len(model) >= max {
						model = model[:max-1]
					}
					model = append([]entry{{id, state, clk.Now().Add(ttl)}}, model...)
				}
			case 3:
				clk.Advance(ttl / 3)
			}
			if s.Len() != len(model) || s.Len() > max {
				t.Fatalf("op %d: Len = %d, the model holds %d (bound %d)", n/2, s.Len(), len(model), max)
			}
		}
	})
}
