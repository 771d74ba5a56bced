// Package sessiontest checks that a runtime.SessionStore keeps the contract
// written on the interface: missing sessions, creation, errors that write
// nothing, deletion, expiry and its refresh, isolation between ids of any
// bytes, copies, large states and atomic read-modify-write under
// concurrency. Every SessionStore's tests run it.
//
// Rules the suite fixes where the interface leaves a choice, so that every
// store behaves alike:
//   - an empty session id is an error (nothing is read, fn does not run);
//   - a ttl of zero or less is an error (nothing is written, fn does not run);
//   - a nil fn is an error, not a panic;
//   - fn returning an empty state deletes the session, as nil does;
//   - a context already cancelled is an error that wraps ctx.Err().
package sessiontest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolcat/toolcat/runtime"
)

// TB is the part of testing.TB the checks use, so that a check can run
// against a store meant to fail it (the suite's own tests do).
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// Config says how to make and age the stores under test.
type Config struct {
	// New returns a store with no sessions, sharing none with the stores
	// it returned before.
	New func() runtime.SessionStore
	// Advance moves the clock of the stores New returns forward by d: a
	// fake clock's, or a sleep for a store on real time.
	Advance func(d time.Duration)
	// TTL is the time to live the expiry check gives sessions; it
	// advances the clock by fractions of it. A store on real time wants a
	// few hundred milliseconds; the default is an hour.
	TTL time.Duration
}

// Check is one property of the contract.
type Check struct {
	Name string
	Run  func(t TB, c Config)
}

// Checks are the properties Run checks, in order.
var Checks = []Check{
	{"missing session", checkMissing},
	{"update creates and sees the old state", checkCreate},
	{"an error of fn writes nothing", checkFnError},
	{"nil or empty state deletes", checkDelete},
	{"bad arguments", checkBadArguments},
	{"cancelled context", checkCancelled},
	{"ids of any bytes are distinct", checkIDs},
	{"the store keeps its own copies", checkCopies},
	{"states of a few MiB", checkLarge},
	{"expiry and its refresh", checkTTL},
	{"concurrent updates of one id lose none", func(t TB, c Config) {
		Concurrent(t, []runtime.SessionStore{c.New()}, "counter", 8, 50)
	}},
	{"concurrent updates and deletes keep one history", func(t TB, c Config) {
		History(t, []runtime.SessionStore{c.New()}, "history", 8, 40)
	}},
	{"concurrent updates of distinct ids", checkConcurrentIDs},
}

// Run runs every check in Checks as a subtest of t.
func Run(t *testing.T, c Config) {
	if c.TTL <= 0 {
		c.TTL = time.Hour
	}
	for _, ch := range Checks {
		t.Run(ch.Name, func(t *testing.T) { ch.Run(t, c) })
	}
}

const ttl = time.Hour // of sessions that must not expire during a check

var errFn = errors.New("sessiontest: fn refuses")

func load(t TB, s runtime.SessionStore, id string) []byte {
	t.Helper()
	b, err := s.Load(context.Background(), id)
	if err != nil {
		t.Fatalf("Load(%q): %v", short(id), err)
	}
	return b
}

// put sets the state of id and returns what fn saw.
func put(t TB, s runtime.SessionStore, id string, d time.Duration, state []byte) []byte {
	t.Helper()
	var saw []byte
	err := s.Update(context.Background(), id, d, func(old []byte) ([]byte, error) {
		saw = bytes.Clone(old)
		return state, nil
	})
	if err != nil {
		t.Fatalf("Update(%q): %v", short(id), err)
	}
	return saw
}

// short quotes at most 40 bytes of an id in messages.
func short(id string) string {
	if len(id) > 40 {
		return id[:40] + "…(" + strconv.Itoa(len(id)) + " bytes)"
	}
	return id
}

func checkMissing(t TB, c Config) {
	s := c.New()
	if b, err := s.Load(context.Background(), "never-written"); err != nil || b != nil {
		t.Fatalf("Load of a session never written = %q, %v; want nil, nil", b, err)
	}
	calls := 0
	err := s.Update(context.Background(), "never-written", ttl, func(old []byte) ([]byte, error) {
		calls++
		if old != nil {
			t.Errorf("fn saw %q for a session never written, want nil", old)
		}
		return []byte("one"), nil
	})
	if err != nil || calls == 0 {
		t.Fatalf("Update creating a session: err %v, fn ran %d times", err, calls)
	}
}

func checkCreate(t TB, c Config) {
	s := c.New()
	put(t, s, "s1", ttl, []byte("first"))
	if got := load(t, s, "s1"); string(got) != "first" {
		t.Fatalf("Load after Update = %q, want %q", got, "first")
	}
	if saw := put(t, s, "s1", ttl, []byte("second")); string(saw) != "first" {
		t.Fatalf("fn saw %q, want the state written before, %q", saw, "first")
	}
	if got := load(t, s, "s1"); string(got) != "second" {
		t.Fatalf("Load after the second Update = %q, want %q", got, "second")
	}
}

func checkFnError(t TB, c Config) {
	s := c.New()
	put(t, s, "kept", ttl, []byte("before"))
	for _, id := range []string{"kept", "absent"} {
		wrapped := fmt.Errorf("approving: %w", errFn)
		err := s.Update(context.Background(), id, ttl, func(old []byte) ([]byte, error) {
			return []byte("must not be written"), wrapped
		})
		if !errors.Is(err, errFn) {
			t.Errorf("Update(%q) with fn failing returned %v, want fn's error (errors.Is)", id, err)
		}
	}
	if got := load(t, s, "kept"); string(got) != "before" {
		t.Errorf("after fn failed, Load = %q, want the state before, %q", got, "before")
	}
	if got := load(t, s, "absent"); got != nil {
		t.Errorf("after fn failed on a missing session, Load = %q, want nil", got)
	}
}

func checkDelete(t TB, c Config) {
	s := c.New()
	for _, empty := range [][]byte{nil, {}} {
		put(t, s, "d", ttl, []byte("state"))
		put(t, s, "d", ttl, empty)
		if got := load(t, s, "d"); got != nil {
			t.Errorf("after fn returned %#v, Load = %q, want nil (deleted)", empty, got)
		}
		if saw := put(t, s, "d", ttl, []byte("again")); saw != nil {
			t.Errorf("after deleting with %#v, fn saw %q, want nil", empty, saw)
		}
		put(t, s, "d", ttl, nil)
	}
	// Deleting what is not there is no error.
	put(t, s, "never", ttl, nil)
	if got := load(t, s, "never"); got != nil {
		t.Errorf("deleting a missing session created %q", got)
	}
}

func checkBadArguments(t TB, c Config) {
	s := c.New()
	ran := false
	fn := func([]byte) ([]byte, error) { ran = true; return []byte("x"), nil }
	if _, err := s.Load(context.Background(), ""); err == nil {
		t.Errorf("Load with an empty id: no error")
	}
	if err := s.Update(context.Background(), "", ttl, fn); err == nil || ran {
		t.Errorf("Update with an empty id: err %v, fn ran %v; want an error, fn not run", err, ran)
	}
	for _, d := range []time.Duration{0, -time.Second} {
		ran = false
		if err := s.Update(context.Background(), "ttl", d, fn); err == nil || ran {
			t.Errorf("Update with ttl %v: err %v, fn ran %v; want an error, fn not run", d, err, ran)
		}
	}
	if got := load(t, s, "ttl"); got != nil {
		t.Errorf("an Update with a bad ttl wrote %q", got)
	}
	if err := s.Update(context.Background(), "nil-fn", ttl, nil); err == nil {
		t.Errorf("Update with a nil fn: no error")
	}
}

func checkCancelled(t TB, c Config) {
	s := c.New()
	put(t, s, "c", ttl, []byte("before"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Load(ctx, "c"); !errors.Is(err, context.Canceled) {
		t.Errorf("Load with a cancelled context returned %v, want an error wrapping context.Canceled", err)
	}
	err := s.Update(ctx, "c", ttl, func([]byte) ([]byte, error) { return []byte("after"), nil })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Update with a cancelled context returned %v, want an error wrapping context.Canceled", err)
	}
	if got := load(t, s, "c"); string(got) != "before" {
		t.Errorf("an Update with a cancelled context wrote: Load = %q, want %q", got, "before")
	}
}

// OddIDs are session ids a store must keep apart: separators, glob and
// key-pattern characters, prefixes of each other, control bytes, invalid
// UTF-8, Unicode and a 1 KiB id.
var OddIDs = []string{
	"a", "a:", ":a", "a:b", "a:b:c", "a b", "A",
	"toolcat:session:a", "*", "a*", "a?", "[a]", "{a}", "{a}:b",
	"\x00", "a\x00b", "\n", "\xff\xfe", "séance", "会话-💬", "e\u0301",
	strings.Repeat("x", 1024), strings.Repeat("x", 1023) + "y",
}

func checkIDs(t TB, c Config) {
	s := c.New()
	for _, id := range OddIDs {
		if saw := put(t, s, id, ttl, []byte("state of "+id)); saw != nil {
			t.Errorf("creating %q: fn saw %q, another id's state", short(id), short(string(saw)))
		}
	}
	check := func(when string, skip string) {
		t.Helper()
		for _, id := range OddIDs {
			want := "state of " + id
			if id == skip {
				continue
			}
			if got := load(t, s, id); string(got) != want {
				t.Errorf("%s: Load(%q) = %q, want %q", when, short(id), short(string(got)), short(want))
			}
		}
	}
	check("after writing every id", "")
	for _, id := range OddIDs {
		if saw := put(t, s, id, ttl, []byte("state of "+id)); string(saw) != "state of "+id {
			t.Errorf("updating %q: fn saw %q", short(id), short(string(saw)))
		}
	}
	put(t, s, "a", ttl, nil)
	if got := load(t, s, "a"); got != nil {
		t.Errorf("Load(%q) after deleting it = %q", "a", got)
	}
	check(`after deleting "a"`, "a")
}

func checkCopies(t TB, c Config) {
	s := c.New()
	written := []byte("original")
	put(t, s, "k", ttl, written)
	copy(written, "XXXXXXXX") // fn's result, changed after Update returned
	got := load(t, s, "k")
	if string(got) != "original" {
		t.Fatalf("changing the slice fn returned, after Update, changed the state: Load = %q", got)
	}
	copy(got, "YYYYYYYY") // Load's result, changed by the caller
	if again := load(t, s, "k"); string(again) != "original" {
		t.Fatalf("changing what Load returned changed the state: Load = %q", again)
	}
}

// pattern returns n bytes of every value, 0 to 255, in an order set by seed.
func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7) ^ byte(i>>8) ^ seed
	}
	return b
}

func checkLarge(t TB, c Config) {
	s := c.New()
	const size = 4 << 20
	big := pattern(size, 1)
	put(t, s, "big", ttl, big)
	if got := load(t, s, "big"); !bytes.Equal(got, big) {
		t.Fatalf("Load of a %d-byte state returned %d bytes, different", size, len(got))
	}
	bigger := pattern(size+1, 2)
	if saw := put(t, s, "big", ttl, bigger); !bytes.Equal(saw, big) {
		t.Fatalf("fn saw %d bytes, not the %d-byte state written", len(saw), size)
	}
	if got := load(t, s, "big"); !bytes.Equal(got, bigger) {
		t.Fatalf("Load after replacing a large state returned %d bytes, different", len(got))
	}
}

func checkTTL(t TB, c Config) {
	s := c.New()
	d := c.TTL
	if d <= 0 {
		d = time.Hour
	}
	step := d * 6 / 10
	put(t, s, "lapses", d, []byte("A"))
	put(t, s, "refreshed", d, []byte("R"))
	put(t, s, "shortened", 10*d, []byte("S"))
	put(t, s, "shortened", d, []byte("S")) // the last Update's ttl counts

	c.Advance(step) // 0.6 ttl: both live
	if got := load(t, s, "lapses"); string(got) != "A" {
		t.Fatalf("before its ttl: Load = %q, want %q", got, "A")
	}
	// An unchanged state still gets a new ttl.
	err := s.Update(context.Background(), "refreshed", d, func(old []byte) ([]byte, error) { return old, nil })
	if err != nil {
		t.Fatalf("refreshing Update: %v", err)
	}
	// A failed Update does not refresh.
	if err := s.Update(context.Background(), "lapses", d, func([]byte) ([]byte, error) { return nil, errFn }); !errors.Is(err, errFn) {
		t.Fatalf("failing Update: %v", err)
	}

	c.Advance(step) // 1.2 ttl: "lapses" expired, "refreshed" lives until 1.6
	if got := load(t, s, "lapses"); got != nil {
		t.Errorf("past its ttl (a failed Update does not extend it): Load = %q, want nil", got)
	}
	if got := load(t, s, "refreshed"); string(got) != "R" {
		t.Fatalf("an Update extends the ttl: Load = %q, want %q", got, "R")
	}
	if got := load(t, s, "shortened"); got != nil {
		t.Errorf("an Update with a shorter ttl than the one before: Load = %q past it, want nil", got)
	}
	if saw := put(t, s, "lapses", d, []byte("A2")); saw != nil {
		t.Errorf("fn saw %q for an expired session, want nil", saw)
	}

	c.Advance(step) // 1.8 ttl: "refreshed" expired; "lapses" was written again at 1.2
	if got := load(t, s, "refreshed"); got != nil {
		t.Errorf("past the refreshed ttl: Load = %q, want nil", got)
	}
	if got := load(t, s, "lapses"); string(got) != "A2" {
		t.Errorf("a session written again after expiring: Load = %q, want %q", got, "A2")
	}
}

// counterState encodes n with a payload derived from it, so that a torn or
// stale state shows.
func counterState(n int) []byte {
	head := strconv.Itoa(n) + "|"
	return append([]byte(head), bytes.Repeat([]byte{byte(n)}, 200+n%57)...)
}

func parseCounter(b []byte) (int, error) {
	if b == nil {
		return 0, nil
	}
	head, payload, ok := bytes.Cut(b, []byte("|"))
	n, err := strconv.Atoi(string(head))
	if !ok || err != nil || n < 0 {
		return 0, fmt.Errorf("malformed counter state %q", short(string(b)))
	}
	if !bytes.Equal(payload, counterState(n)[len(head)+1:]) {
		return 0, fmt.Errorf("counter state %d has a payload of another state", n)
	}
	return n, nil
}

// Concurrent runs goroutines goroutines, spread over stores (replicas of
// one store, or one store), each incrementing a counter in session id each
// times by read-modify-write. No update may be lost, and the updates must
// be serial: the states the successful runs of fn saw are 0 to N-1, each
// once. Every run of fn must see a well-formed state, and a run of fn again
// within one Update must not see an older state than the run before it.
// It returns how many times fn ran in all (N when no Update had to retry).
func Concurrent(t TB, stores []runtime.SessionStore, id string, goroutines, each int) (runs int) {
	t.Helper()
	total := goroutines * each
	var mu sync.Mutex
	committed := make([]int, 0, total)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for g := range goroutines {
		s := stores[g%len(stores)]
		wg.Go(func() {
			<-start
			for range each {
				last, n := -1, 0
				err := s.Update(context.Background(), id, ttl, func(old []byte) ([]byte, error) {
					v, err := parseCounter(old)
					if err != nil {
						return nil, err
					}
					if v < last {
						return nil, fmt.Errorf("fn ran again and saw state %d, older than the %d it saw before", v, last)
					}
					last = v
					n++
					return counterState(v + 1), nil
				})
				mu.Lock()
				runs += n
				if err == nil {
					committed = append(committed, last)
				}
				mu.Unlock()
				if err != nil {
					t.Errorf("Update: %v", err)
					return
				}
			}
		})
	}
	close(start)
	wg.Wait()
	b, err := stores[0].Load(context.Background(), id)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	got, err := parseCounter(b)
	if err != nil {
		t.Fatalf("final state: %v", err)
	}
	if got != total {
		t.Fatalf("counter = %d after %d increments: %d lost", got, total, total-got)
	}
	seen := make([]bool, total)
	for _, v := range committed {
		if v < 0 || v >= total || seen[v] {
			t.Fatalf("two updates both applied to state %d: they were not serial", v)
		}
		seen[v] = true
	}
	if len(committed) != total {
		t.Fatalf("%d of %d updates succeeded", len(committed), total)
	}
	return runs
}

func checkConcurrentIDs(t TB, c Config) {
	s := c.New()
	const ids, each = 8, 25
	var wg sync.WaitGroup
	for i := range ids {
		id := "user:" + strconv.Itoa(i)
		wg.Go(func() {
			for range each {
				err := s.Update(context.Background(), id, ttl, func(old []byte) ([]byte, error) {
					v, err := parseCounter(old)
					if err != nil {
						return nil, err
					}
					return counterState(v + 1), nil
				})
				if err != nil {
					t.Errorf("Update(%q): %v", id, err)
					return
				}
			}
		})
	}
	wg.Wait()
	for i := range ids {
		id := "user:" + strconv.Itoa(i)
		v, err := parseCounter(load(t, s, id))
		if err != nil || v != each {
			t.Errorf("session %q: counter %d (%v), want %d", id, v, err, each)
		}
	}
}

// History runs goroutines goroutines, spread over stores, each doing each
// updates of session id: most write a state never written before, some
// delete the session. The successful updates must form one history: each
// state written is seen by exactly one later update, except the last, which
// Load returns, and the session is seen missing once at the start and once
// after each delete but the last. A store whose compare-and-set takes a
// state deleted and written again for the one it read (ABA) fails it.
func History(t TB, stores []runtime.SessionStore, id string, goroutines, each int) {
	t.Helper()
	type op struct{ saw, wrote string } // "" for none
	var (
		mu   sync.Mutex
		ops  []op
		next atomic.Int64
		wg   sync.WaitGroup
	)
	start := make(chan struct{})
	for g := range goroutines {
		s := stores[g%len(stores)]
		wg.Go(func() {
			<-start
			for i := range each {
				var last op
				err := s.Update(context.Background(), id, ttl, func(old []byte) ([]byte, error) {
					last = op{saw: string(old)}
					if old != nil && i%4 == 3 {
						return nil, nil
					}
					last.wrote = "w" + strconv.FormatInt(next.Add(1), 10)
					return []byte(last.wrote), nil
				})
				if err != nil {
					t.Errorf("Update: %v", err)
					return
				}
				mu.Lock()
				ops = append(ops, last)
				mu.Unlock()
			}
		})
	}
	close(start)
	wg.Wait()
	b, err := stores[0].Load(context.Background(), id)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	final := string(b)
	seen := map[string]int{}
	missingSeen, deletes := 0, 0
	for _, o := range ops {
		if o.saw == "" {
			missingSeen++
		} else {
			seen[o.saw]++
		}
		if o.wrote == "" {
			deletes++
		}
	}
	for _, o := range ops {
		if o.wrote == "" {
			continue
		}
		want := 1
		if o.wrote == final {
			want = 0
		}
		if seen[o.wrote] != want {
			t.Fatalf("state %s was seen by %d successful updates, want %d: updates were lost or applied to a stale state", o.wrote, seen[o.wrote], want)
		}
		delete(seen, o.wrote)
	}
	for st := range seen {
		t.Fatalf("an update saw state %q, which no successful update wrote", short(st))
	}
	want := deletes + 1
	if final == "" {
		want = deletes
	}
	if missingSeen != want {
		t.Fatalf("%d successful updates saw the session missing, want %d (%d deletes, final state %q)", missingSeen, want, deletes, short(final))
	}
}
