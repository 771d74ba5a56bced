package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/internal/redistest"
	"github.com/toolcat/toolcat/runtime/internal/sessionflow"
	"github.com/toolcat/toolcat/runtime/internal/sessiontest"
	"github.com/toolcat/toolcat/runtime/redisstore"
)

func TestSessionStoreContract(t *testing.T) {
	srv := redistest.Start(t)
	c := client(t, srv.Addr)
	var n atomic.Int64
	sessiontest.Run(t, sessiontest.Config{
		New: func() runtime.SessionStore { // a fresh key space per check
			return redisstore.NewSessionStore(c, redisstore.SessionStorePrefix(fmt.Sprintf("contract%d:", n.Add(1))))
		},
		Advance: time.Sleep,
		TTL:     400 * time.Millisecond,
	})
}

// TestSessionFlowsRedis runs runtime.Session's flows (promotions, approval,
// taint, undo, composition over two replicas) on sessions kept in Redis.
func TestSessionFlowsRedis(t *testing.T) {
	srv := redistest.Start(t)
	c := client(t, srv.Addr)
	var n atomic.Int64
	sessionflow.Run(t, func() runtime.SessionStore {
		return redisstore.NewSessionStore(c, redisstore.SessionStorePrefix(fmt.Sprintf("flow%d:", n.Add(1))))
	})
}

// TestSessionConcurrentReplicasRedis: side-effect calls of one session
// made at once on two replicas, each with its own Redis client, are all
// journaled, once each.
func TestSessionConcurrentReplicasRedis(t *testing.T) {
	srv := redistest.Start(t)
	w := sessionflow.NewWorld()
	regs := []*runtime.Registry{
		w.Replicas(t, 1, redisstore.NewSessionStore(client(t, srv.Addr)))[0],
		w.Replicas(t, 1, redisstore.NewSessionStore(client(t, srv.Addr)))[0],
	}
	ctx := context.Background()
	const calls = 40
	done := make(chan runtime.Result, calls)
	for i := range calls {
		go func() {
			s := regs[i%2].Session("conv-race", runtime.SessionJournalLimit(1000, 1<<20))
			done <- s.Call(ctx, "send_email", []byte(`{"to":"x@example.com"}`), runtime.CallOptions{})
		}()
	}
	for range calls {
		if res := <-done; !res.Success {
			t.Fatal(string(res.JSON()))
		}
	}
	j, err := regs[1].Session("conv-race").Journal(ctx)
	if err != nil || len(j) != calls {
		t.Fatalf("journal holds %d calls of %d (%v)", len(j), calls, err)
	}
	seen := map[string]bool{}
	for _, c := range j {
		if seen[c.ID] {
			t.Fatalf("call %s journaled twice", c.ID)
		}
		seen[c.ID] = true
	}
}

// TestSessionStoreReplicas: two replicas, each with its own client (its own
// connections), update one session concurrently and lose no update, and
// updates and deletes of another keep one history.
func TestSessionStoreReplicas(t *testing.T) {
	srv := redistest.Start(t)
	a := redisstore.NewSessionStore(client(t, srv.Addr))
	b := redisstore.NewSessionStore(client(t, srv.Addr))
	const goroutines, each = 8, 50
	runs := sessiontest.Concurrent(t, []runtime.SessionStore{a, b}, "conversation-1", goroutines, each)
	t.Logf("%d updates, fn ran %d times", goroutines*each, runs)
	sessiontest.History(t, []runtime.SessionStore{a, b}, "conversation-2", goroutines, each)
}

const sessionChildEnv = "TOOLCAT_SESSIONSTORE_CHILD"

// TestSessionStoreMultiProcess runs replicas as separate processes (this
// test binary, re-executed), each incrementing a counter in one session
// from several goroutines: no increment is lost across processes.
func TestSessionStoreMultiProcess(t *testing.T) {
	if os.Getenv(sessionChildEnv) != "" {
		t.Skip("child process")
	}
	srv := redistest.Start(t)
	const procs = 3
	var wg sync.WaitGroup
	outs := make([][]byte, procs)
	errs := make([]error, procs)
	for i := range procs {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^TestSessionStoreMultiProcessChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), sessionChildEnv+"="+srv.Addr)
			outs[i], errs[i] = cmd.CombinedOutput()
		})
	}
	wg.Wait()
	for i := range procs {
		if errs[i] != nil {
			t.Fatalf("process %d: %v\n%s", i, errs[i], outs[i])
		}
	}
	got, err := redisstore.NewSessionStore(client(t, srv.Addr)).Load(context.Background(), "shared")
	if err != nil {
		t.Fatal(err)
	}
	if want := strconv.Itoa(procs * childGoroutines * childIncrements); string(got) != want {
		t.Fatalf("counter = %s after %s increments across %d processes", got, want, procs)
	}
}

const childGoroutines, childIncrements = 4, 25

// TestSessionStoreMultiProcessChild is the replica TestSessionStoreMultiProcess starts.
func TestSessionStoreMultiProcessChild(t *testing.T) {
	addr := os.Getenv(sessionChildEnv)
	if addr == "" {
		t.Skip("run by TestSessionStoreMultiProcess")
	}
	s := redisstore.NewSessionStore(client(t, addr))
	var wg sync.WaitGroup
	for range childGoroutines {
		wg.Go(func() {
			for range childIncrements {
				err := s.Update(context.Background(), "shared", time.Minute, func(old []byte) ([]byte, error) {
					n := 0
					if old != nil {
						var err error
						if n, err = strconv.Atoi(string(old)); err != nil {
							return nil, err
						}
					}
					return strconv.AppendInt(nil, int64(n+1), 10), nil
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestSessionStoreConflict: an Update that keeps losing to another writer
// tries as often as it was told, then returns runtime.ErrSessionConflict;
// the other writer's state stands.
func TestSessionStoreConflict(t *testing.T) {
	srv := redistest.Start(t)
	c := client(t, srv.Addr)
	other := redisstore.NewSessionStore(c)
	s := redisstore.NewSessionStore(c, redisstore.SessionStoreRetries(3, time.Millisecond, 2*time.Millisecond))
	ctx := context.Background()
	runs := 0
	err := s.Update(ctx, "contended", time.Minute, func(old []byte) ([]byte, error) {
		runs++
		// Another replica writes between this Update's read and its write.
		if err := other.Update(ctx, "contended", time.Minute, func([]byte) ([]byte, error) {
			return fmt.Appendf(nil, "other %d", runs), nil
		}); err != nil {
			t.Fatal(err)
		}
		return []byte("mine"), nil
	})
	if !errors.Is(err, runtime.ErrSessionConflict) {
		t.Fatalf("Update = %v, want runtime.ErrSessionConflict", err)
	}
	if runs != 3 {
		t.Errorf("fn ran %d times, want 3 (the attempts set)", runs)
	}
	got, err := s.Load(ctx, "contended")
	if err != nil || string(got) != "other 3" {
		t.Fatalf("Load = %q, %v; want the other writer's last state", got, err)
	}
}

// TestSessionStoreConflictDeadline: an Update losing races stops at its
// context's deadline, also while it waits to try again.
func TestSessionStoreConflictDeadline(t *testing.T) {
	srv := redistest.Start(t)
	c := client(t, srv.Addr)
	other := redisstore.NewSessionStore(c)
	s := redisstore.NewSessionStore(c, redisstore.SessionStoreRetries(1000, 40*time.Millisecond, 40*time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := s.Update(ctx, "contended", time.Minute, func([]byte) ([]byte, error) {
		if err := other.Update(context.Background(), "contended", time.Minute, func([]byte) ([]byte, error) {
			return []byte(time.Now().String()), nil
		}); err != nil {
			t.Fatal(err)
		}
		return []byte("mine"), nil
	})
	if took := time.Since(start); took > time.Second {
		t.Errorf("Update returned after %v, past its 150ms deadline", took)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Update = %v, want an error wrapping context.DeadlineExceeded", err)
	}
}

// TestSessionStoreHungRedis pauses redis-server (SIGSTOP): Load and Update
// return an error wrapping context.DeadlineExceeded soon after their
// context's deadline, whether Redis hangs before the read or between fn and
// the write. The bound is the property under test, with slack for a loaded
// machine, not a performance check.
func TestSessionStoreHungRedis(t *testing.T) {
	for _, client := range clients {
		t.Run(client.name, func(t *testing.T) { testSessionStoreHungRedis(t, client.new) })
	}
}

func testSessionStoreHungRedis(t *testing.T, newClient func(testing.TB, string) *redis.Client) {
	const deadline, bound = 200 * time.Millisecond, 2 * time.Second
	srv := redistest.Start(t)
	c := newClient(t, srv.Addr)
	s := redisstore.NewSessionStore(c)
	put := func(id, state string) error {
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		defer cancel()
		return s.Update(ctx, id, time.Minute, func([]byte) ([]byte, error) { return []byte(state), nil })
	}
	if err := put("hung", "before"); err != nil {
		t.Fatal(err)
	}
	timed := func(desc string, call func(ctx context.Context) error) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		defer cancel()
		start := time.Now()
		err := call(ctx)
		if took := time.Since(start); took > bound {
			t.Errorf("%s returned after %v with Redis hung; want before %v", desc, took, bound)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s with Redis hung: %v, want an error wrapping context.DeadlineExceeded", desc, err)
		}
	}

	srv.Pause()
	timed("Load", func(ctx context.Context) error { _, err := s.Load(ctx, "hung"); return err })
	ran := false
	timed("Update", func(ctx context.Context) error {
		return s.Update(ctx, "hung", time.Minute, func([]byte) ([]byte, error) { ran = true; return []byte("x"), nil })
	})
	if ran {
		t.Error("fn ran although the state could not be read")
	}
	srv.Resume()

	// Hung after the read, before the write.
	timed("Update hung before its write", func(ctx context.Context) error {
		return s.Update(ctx, "hung", time.Minute, func([]byte) ([]byte, error) {
			srv.Pause()
			return []byte("after"), nil
		})
	})
	srv.Resume()
	// The write Redis received while hung is applied when it runs again:
	// an Update that timed out may still have happened (as documented).
	for i := 0; ; i++ {
		got, err := s.Load(context.Background(), "hung")
		if err == nil && string(got) == "after" {
			break
		}
		if i == 200 {
			t.Fatalf("after Resume: Load = %q, %v; the write sent while Redis hung never applied", got, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSessionStoreKeys checks what Redis holds: a hash under the prefix
// with the state and a version, and the session's TTL on the key.
func TestSessionStoreKeys(t *testing.T) {
	srv := redistest.Start(t)
	c := client(t, srv.Addr)
	ctx := context.Background()
	set := func(s *redisstore.SessionStore, id string, ttl time.Duration, state string) {
		t.Helper()
		if err := s.Update(ctx, id, ttl, func([]byte) ([]byte, error) { return []byte(state), nil }); err != nil {
			t.Fatal(err)
		}
	}
	pttl := func(key string) time.Duration {
		t.Helper()
		d, err := c.PTTL(ctx, key).Result()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}

	s := redisstore.NewSessionStore(c)
	set(s, "conv:1", 10*time.Second, "v1")
	const key = "toolcat:session:conv:1"
	if typ := c.Type(ctx, key).Val(); typ != "hash" {
		t.Fatalf("TYPE %s = %q, want hash", key, typ)
	}
	h := c.HGetAll(ctx, key).Val()
	if h["state"] != "v1" || len(h["ver"]) != 32 || len(h) != 2 {
		t.Fatalf("HGETALL %s = %q, want state v1 and a 32-character version", key, h)
	}
	if d := pttl(key); d <= 9*time.Second || d > 10*time.Second {
		t.Errorf("PTTL after an Update with ttl 10s = %v", d)
	}
	ver := h["ver"]
	set(s, "conv:1", time.Hour, "v2")
	if d := pttl(key); d <= 59*time.Minute || d > time.Hour {
		t.Errorf("PTTL after an Update with ttl 1h = %v: the ttl is the last Update's", d)
	}
	if v := c.HGet(ctx, key, "ver").Val(); v == ver {
		t.Error("the version did not change on a write")
	}
	set(s, "conv:1", time.Second, "v2") // the same state
	if d := pttl(key); d > time.Second {
		t.Errorf("PTTL after an Update with the same state and ttl 1s = %v", d)
	}
	set(s, "short", 300*time.Microsecond, "x") // rounds up to 1ms, not 0
	time.Sleep(5 * time.Millisecond)
	if n := c.Exists(ctx, "toolcat:session:short").Val(); n != 0 {
		t.Error("a session with a ttl under 1ms did not expire")
	}
	set(s, "conv:1", time.Hour, "")
	if n := c.Exists(ctx, key).Val(); n != 0 {
		t.Errorf("a deleted session left its key")
	}

	p := redisstore.NewSessionStore(c, redisstore.SessionStorePrefix("app:s:"))
	set(p, "conv:1", time.Minute, "prefixed")
	if got := c.HGet(ctx, "app:s:conv:1", "state").Val(); got != "prefixed" {
		t.Errorf("with SessionStorePrefix: HGET app:s:conv:1 state = %q", got)
	}
	keys := c.Keys(ctx, "*").Val()
	if len(keys) != 1 || keys[0] != "app:s:conv:1" {
		t.Errorf("keys in Redis = %q, want only app:s:conv:1", keys)
	}
}

// TestSessionStoreForeignValue: a key under the prefix that the store did
// not write (another type) gives a clear error, not a panic or a state.
func TestSessionStoreForeignValue(t *testing.T) {
	srv := redistest.Start(t)
	c := client(t, srv.Addr)
	ctx := context.Background()
	if err := c.Set(ctx, "toolcat:session:foreign", "a string", 0).Err(); err != nil {
		t.Fatal(err)
	}
	s := redisstore.NewSessionStore(c)
	if _, err := s.Load(ctx, "foreign"); err == nil || !strings.Contains(err.Error(), "WRONGTYPE") {
		t.Errorf("Load of a string key: %v, want Redis's WRONGTYPE error", err)
	}
	ran := false
	err := s.Update(ctx, "foreign", time.Minute, func([]byte) ([]byte, error) { ran = true; return []byte("x"), nil })
	if err == nil || !strings.Contains(err.Error(), "WRONGTYPE") || ran {
		t.Errorf("Update of a string key: %v (fn ran %v), want Redis's WRONGTYPE error and fn not run", err, ran)
	}
	if v := c.Get(ctx, "toolcat:session:foreign").Val(); v != "a string" {
		t.Errorf("the foreign key was changed to %q", v)
	}
}

// TestSessionStoreRedisDown: with Redis gone, calls fail at once with an
// error, and work again when it is back.
func TestSessionStoreRedisDown(t *testing.T) {
	srv := redistest.Start(t)
	s := redisstore.NewSessionStore(client(t, srv.Addr))
	ctx := context.Background()
	srv.Kill()
	if _, err := s.Load(ctx, "x"); err == nil {
		t.Error("Load with Redis down: no error")
	}
	if err := s.Update(ctx, "x", time.Minute, func([]byte) ([]byte, error) { return []byte("x"), nil }); err == nil {
		t.Error("Update with Redis down: no error")
	}
	srv.Restart()
	if err := s.Update(ctx, "x", time.Minute, func([]byte) ([]byte, error) { return []byte("x"), nil }); err != nil {
		t.Errorf("Update after Redis came back: %v", err)
	}
}
