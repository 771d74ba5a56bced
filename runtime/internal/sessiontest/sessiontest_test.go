package sessiontest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/internal/sessiontest"
)

// fault is one way a store can break the contract.
type fault int

const (
	correct        fault = iota
	nonAtomic            // reads, runs fn and writes without holding the lock throughout
	aliasLoad            // Load returns the stored slice itself
	keepFnSlice          // keeps the slice fn returned instead of a copy
	writeOnError         // writes fn's state even when fn fails
	refreshOnError       // extends the ttl when fn fails
	noRefresh            // sets the ttl on creation only
	noExpiry             // ignores the ttl
	keepEmpty            // stores an empty state instead of deleting
	truncateIDs          // keys sessions by the first 16 bytes of the id
	foldCase             // keys sessions by the lower-cased id
	acceptEmptyID        // allows the empty id
	acceptBadTTL         // allows a ttl of zero or less
	ignoreCtx            // does not look at the context
	truncateLarge        // keeps at most 1 MiB of a state
	staleRerun           // on a retry, runs fn again on the first state it read
	counterVersion       // a compare-and-set on a counter that restarts when the session is deleted
	longestTTL           // keeps the later of the old and the new expiry
)

// clock is a fake clock the reference store reads.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type entry struct {
	ver     int // for counterVersion
	state   []byte
	prev    []byte // the state before, for staleRerun
	expires time.Time
}

// store is a small SessionStore that keeps the contract, unless told to
// break it one way.
type store struct {
	fault fault
	now   func() time.Time
	mu    sync.Mutex
	m     map[string]*entry
}

func (s *store) key(id string) string {
	switch s.fault {
	case truncateIDs:
		return id[:min(len(id), 16)]
	case foldCase:
		return strings.ToLower(id)
	}
	return id
}

func (s *store) check(ctx context.Context, id string) error {
	if s.fault != ignoreCtx {
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	if id == "" && s.fault != acceptEmptyID {
		return errors.New("empty session id")
	}
	return nil
}

// get returns the live entry under key, with s.mu held.
func (s *store) get(key string) *entry {
	e := s.m[key]
	if e != nil && !s.now().Before(e.expires) {
		delete(s.m, key)
		return nil
	}
	return e
}

func (s *store) Load(ctx context.Context, id string) ([]byte, error) {
	if err := s.check(ctx, id); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.get(s.key(id))
	if e == nil {
		return nil, nil
	}
	if s.fault == aliasLoad {
		return e.state, nil
	}
	return bytes.Clone(e.state), nil
}

func (s *store) Update(ctx context.Context, id string, ttl time.Duration, fn func([]byte) ([]byte, error)) error {
	if err := s.check(ctx, id); err != nil {
		return err
	}
	if ttl <= 0 && s.fault != acceptBadTTL {
		return errors.New("ttl must be positive")
	}
	if fn == nil {
		return errors.New("no fn")
	}
	key := s.key(id)
	switch s.fault {
	case nonAtomic:
		old, _ := s.Load(ctx, id)
		goruntime.Gosched()
		state, err := fn(old)
		if err != nil {
			return err
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.write(key, s.get(key), ttl, state)
	case counterVersion:
		for {
			s.mu.Lock()
			e := s.get(key)
			var old []byte
			ver := 0
			if e != nil {
				old, ver = bytes.Clone(e.state), e.ver
			}
			s.mu.Unlock()
			time.Sleep(time.Duration(rand.N(50)) * time.Microsecond)
			state, err := fn(old)
			if err != nil {
				return err
			}
			s.mu.Lock()
			e = s.get(key)
			cur := 0
			if e != nil {
				cur = e.ver
			}
			if cur != ver {
				s.mu.Unlock()
				continue
			}
			err = s.write(key, e, ttl, state)
			if ne := s.m[key]; ne != nil {
				ne.ver = ver + 1
			}
			s.mu.Unlock()
			return err
		}
	case staleRerun:
		// Runs fn on the current state, then, as if it had lost a race,
		// again on the state before it, and writes that.
		s.mu.Lock()
		defer s.mu.Unlock()
		e := s.get(key)
		if e == nil || e.prev == nil {
			break
		}
		if _, err := fn(bytes.Clone(e.state)); err != nil {
			return err
		}
		state, err := fn(bytes.Clone(e.prev))
		if err != nil {
			return err
		}
		return s.write(key, e, ttl, state)
	}
	if s.fault != staleRerun {
		s.mu.Lock()
		defer s.mu.Unlock()
	}
	e := s.get(key)
	var old []byte
	if e != nil {
		old = bytes.Clone(e.state)
	}
	state, err := fn(old)
	if err != nil {
		switch {
		case s.fault == writeOnError && state != nil:
			_ = s.write(key, e, ttl, state)
		case s.fault == refreshOnError && e != nil:
			e.expires = s.now().Add(ttl)
		}
		return err
	}
	return s.write(key, e, ttl, state)
}

// write stores state under key, with s.mu held; e is the live entry or nil.
func (s *store) write(key string, e *entry, ttl time.Duration, state []byte) error {
	if len(state) == 0 && !(s.fault == keepEmpty && state != nil) {
		delete(s.m, key)
		return nil
	}
	switch s.fault {
	case keepFnSlice:
	case truncateLarge:
		state = bytes.Clone(state[:min(len(state), 1<<20)])
	default:
		state = bytes.Clone(state)
	}
	expires := s.now().Add(ttl)
	switch {
	case s.fault == noExpiry:
		expires = s.now().Add(1000 * time.Hour)
	case s.fault == noRefresh && e != nil:
		expires = e.expires
	case s.fault == longestTTL && e != nil && e.expires.After(expires):
		expires = e.expires
	}
	ne := &entry{state: state, expires: expires}
	if e != nil {
		ne.prev = e.state
	}
	s.m[key] = ne
	return nil
}

func config(f fault) sessiontest.Config {
	clk := &clock{t: time.Unix(1_800_000_000, 0)}
	return sessiontest.Config{
		New:     func() runtime.SessionStore { return &store{fault: f, now: clk.now, m: map[string]*entry{}} },
		Advance: clk.advance,
		TTL:     time.Minute,
	}
}

// recorder is a sessiontest.TB that notes failures instead of failing.
type recorder struct {
	mu   sync.Mutex
	msgs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	goruntime.Goexit()
}

// failures runs check ch on a store with fault f and returns what it reported.
func failures(ch sessiontest.Check, f fault) []string {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		ch.Run(r, config(f))
	}()
	<-done
	return r.msgs
}

func check(t *testing.T, name string) sessiontest.Check {
	for _, ch := range sessiontest.Checks {
		if ch.Name == name {
			return ch
		}
	}
	t.Fatalf("no check named %q", name)
	return sessiontest.Check{}
}

// TestReferenceStorePasses: the checks do not fail a store that keeps the
// contract.
func TestReferenceStorePasses(t *testing.T) {
	sessiontest.Run(t, config(correct))
	for _, ch := range sessiontest.Checks {
		if msgs := failures(ch, correct); len(msgs) > 0 {
			t.Errorf("%s failed the reference store: %s", ch.Name, msgs[0])
		}
	}
}

// TestBrokenStoresFail: each way of breaking the contract is caught by the
// check meant for it.
func TestBrokenStoresFail(t *testing.T) {
	tests := []struct {
		desc  string
		fault fault
		check string
	}{
		{"read-modify-write without the lock loses updates", nonAtomic, "concurrent updates of one id lose none"},
		{"Load handing out the stored slice", aliasLoad, "the store keeps its own copies"},
		{"keeping the slice fn returned", keepFnSlice, "the store keeps its own copies"},
		{"writing when fn fails", writeOnError, "an error of fn writes nothing"},
		{"extending the ttl when fn fails", refreshOnError, "expiry and its refresh"},
		{"no ttl refresh on update", noRefresh, "expiry and its refresh"},
		{"no expiry", noExpiry, "expiry and its refresh"},
		{"a shorter ttl ignored", longestTTL, "expiry and its refresh"},
		{"keeping an empty state", keepEmpty, "nil or empty state deletes"},
		{"ids cut to 16 bytes", truncateIDs, "ids of any bytes are distinct"},
		{"ids folded to lower case", foldCase, "ids of any bytes are distinct"},
		{"the empty id allowed", acceptEmptyID, "bad arguments"},
		{"a ttl of zero allowed", acceptBadTTL, "bad arguments"},
		{"the context ignored", ignoreCtx, "cancelled context"},
		{"large states cut", truncateLarge, "states of a few MiB"},
		{"fn run again on a stale state", staleRerun, "concurrent updates of one id lose none"},
		{"a compare-and-set on a counter taken in by a delete (ABA)", counterVersion, "concurrent updates and deletes keep one history"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			msgs := failures(check(t, tt.check), tt.fault)
			if len(msgs) == 0 {
				t.Fatalf("check %q passed a store with this fault", tt.check)
			}
			t.Logf("%s: %s", tt.check, msgs[0])
		})
	}
}
