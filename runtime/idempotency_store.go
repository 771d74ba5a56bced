package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// DefaultMaxIdempotencyEntries is how many keys a MemoryIdempotencyStore holds at most unless
// IdempotencyStoreMaxEntries says otherwise.
const DefaultMaxIdempotencyEntries = 100_000

// ErrStoreFull is returned by MemoryIdempotencyStore when every one of its entries is a
// call in flight, so that no completed result can make room for a new key.
var ErrStoreFull = errors.New("idempotency store is full: every entry is a call in flight")

// ErrInFlight is wrapped, together with the context's error, by the error
// IdempotencyStore.Acquire returns when its context ends while another call
// holds the key for the same fingerprint. The registry tells the model it
// gave up waiting for that call only then; any other context error means
// the store itself did not answer in time.
var ErrInFlight = errors.New("another call with the same idempotency key is in flight")

// MemoryIdempotencyStore is the in-process IdempotencyStore, the default. Expired
// entries are removed as the store is used, at a constant cost per
// operation. It holds at most DefaultMaxIdempotencyEntries keys (see IdempotencyStoreMaxEntries):
// when full, the least recently used completed result makes room; calls in
// flight are never evicted, and when only they remain a new key is refused
// with ErrStoreFull.
type MemoryIdempotencyStore struct {
	mu      sync.Mutex
	entries map[string]*memEntry
	now     func() time.Time
	max     int
	ops     int      // operations since the last sweep
	next    int      // operations before the next sweep
	lru     memEntry // sentinel of the completed entries, least recently used first
}

type memEntry struct {
	key     string
	fp      string
	token   string // set while pending
	rec     *Record
	expires time.Time
	done    chan struct{} // closed when a pending claim ends

	prev, next *memEntry // in the LRU list, completed entries only
}

// MemoryIdempotencyStoreOption configures a MemoryIdempotencyStore.
type MemoryIdempotencyStoreOption func(*MemoryIdempotencyStore)

// IdempotencyStoreMaxEntries bounds how many keys the store holds (default
// DefaultMaxIdempotencyEntries; zero or less means the default).
func IdempotencyStoreMaxEntries(n int) MemoryIdempotencyStoreOption {
	return func(s *MemoryIdempotencyStore) { s.max = n }
}

// IdempotencyStoreClock sets the store's clock (for tests). The registry's default
// store uses the registry's clock (WithClock).
func IdempotencyStoreClock(now func() time.Time) MemoryIdempotencyStoreOption {
	return func(s *MemoryIdempotencyStore) { s.now = now }
}

// NewMemoryIdempotencyStore returns an empty MemoryIdempotencyStore.
func NewMemoryIdempotencyStore(opts ...MemoryIdempotencyStoreOption) *MemoryIdempotencyStore {
	s := &MemoryIdempotencyStore{entries: map[string]*memEntry{}, now: time.Now, next: minSweep}
	for _, o := range opts {
		o(s)
	}
	if s.max <= 0 {
		s.max = DefaultMaxIdempotencyEntries
	}
	s.lru.prev, s.lru.next = &s.lru, &s.lru
	return s
}

// Len returns how many keys the store holds, expired ones not yet removed
// included.
func (s *MemoryIdempotencyStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.entries)
}

// Acquire implements IdempotencyStore.
func (s *MemoryIdempotencyStore) Acquire(ctx context.Context, key, fp string, lease time.Duration) (Claim, error) {
	return s.acquire(ctx, key, fp, lease, 0)
}

// acquire is Acquire whose wait for a call in flight also ends after
// within, when within is positive, with ErrInFlight.
func (s *MemoryIdempotencyStore) acquire(ctx context.Context, key, fp string, lease, within time.Duration) (Claim, error) {
	var giveUp time.Time
	for {
		s.mu.Lock()
		now := s.now()
		s.sweep(now)
		e := s.entries[key]
		if e != nil && !now.Before(e.expires) {
			s.remove(e)
			e = nil
		}
		switch {
		case e == nil:
			if !s.makeRoom(now) {
				s.mu.Unlock()
				return Claim{}, ErrStoreFull
			}
			tok := NewToken()
			s.entries[key] = &memEntry{key: key, fp: fp, token: tok, expires: now.Add(lease), done: make(chan struct{})}
			s.mu.Unlock()
			return Claim{Token: tok}, nil
		case e.rec != nil:
			rec := e.rec
			s.unlink(e)
			s.pushBack(e)
			s.mu.Unlock()
			return Claim{Record: rec}, nil
		case e.fp != fp:
			s.mu.Unlock()
			return Claim{PendingFingerprint: e.fp}, nil
		}
		done, wait := e.done, e.expires.Sub(now)
		s.mu.Unlock()
		if within > 0 {
			if giveUp.IsZero() {
				giveUp = time.Now().Add(within)
			}
			left := time.Until(giveUp)
			if left <= 0 {
				return Claim{}, fmt.Errorf("%w: %w", ErrInFlight, context.DeadlineExceeded)
			}
			wait = min(wait, left)
		}
		t := time.NewTimer(wait)
		select {
		case <-done:
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return Claim{}, fmt.Errorf("%w: %w", ErrInFlight, ctx.Err())
		}
		t.Stop()
	}
}

// Complete implements IdempotencyStore.
func (s *MemoryIdempotencyStore) Complete(_ context.Context, key, token string, rec Record, ttl time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.sweep(now)
	e := s.entries[key]
	if e != nil && !now.Before(e.expires) {
		s.remove(e)
		e = nil
	}
	if e != nil && e.token != token {
		return ErrLeaseLost
	}
	if e == nil && !s.makeRoom(now) {
		return ErrStoreFull
	}
	r := rec
	if e == nil {
		e = &memEntry{key: key}
		s.entries[key] = e
	} else {
		// The pending claim becomes the record: its waiters wake and find it.
		if e.done != nil {
			close(e.done)
		}
		e.done, e.token = nil, ""
	}
	e.fp, e.rec, e.expires = rec.Fingerprint, &r, now.Add(ttl)
	s.pushBack(e)
	return nil
}

// Release implements IdempotencyStore.
func (s *MemoryIdempotencyStore) Release(_ context.Context, key, token string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entries[key]
	if e == nil || e.rec != nil || e.token != token {
		return nil
	}
	s.remove(e)
	return nil
}

// minSweep is the fewest operations between two sweeps.
const minSweep = 1024

// sweep drops expired entries once as many operations have passed as the
// store held entries after the previous sweep (at least minSweep): each
// operation adds at most one entry, so a sweep visits at most twice as many
// entries as operations passed since the last, a constant cost per
// operation. s.mu is held.
func (s *MemoryIdempotencyStore) sweep(now time.Time) {
	s.ops++
	if s.ops < s.next {
		return
	}
	s.sweepNow(now)
}

func (s *MemoryIdempotencyStore) sweepNow(now time.Time) {
	for _, e := range s.entries {
		if !now.Before(e.expires) {
			s.remove(e)
		}
	}
	s.ops = 0
	s.next = max(minSweep, len(s.entries))
}

// makeRoom reports whether a new key fits, evicting the least recently used
// completed result when the store is full; calls in flight stay. s.mu is
// held.
func (s *MemoryIdempotencyStore) makeRoom(now time.Time) bool {
	if len(s.entries) < s.max {
		return true
	}
	if s.lru.next == &s.lru {
		s.sweepNow(now) // only claims: drop those whose lease ran out
		return len(s.entries) < s.max
	}
	s.remove(s.lru.next)
	return true
}

// remove deletes e, ending its claim if it is pending. s.mu is held.
func (s *MemoryIdempotencyStore) remove(e *memEntry) {
	if s.entries[e.key] == e {
		delete(s.entries, e.key)
	}
	if e.rec == nil && e.done != nil {
		close(e.done)
		e.done = nil
	}
	s.unlink(e)
}

func (s *MemoryIdempotencyStore) pushBack(e *memEntry) {
	e.prev, e.next = s.lru.prev, &s.lru
	s.lru.prev.next = e
	s.lru.prev = e
}

func (s *MemoryIdempotencyStore) unlink(e *memEntry) {
	if e.prev == nil {
		return
	}
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
}
