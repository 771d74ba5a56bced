package runtime

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// SessionStore keeps the state of sessions (promotions of hidden tools,
// taint, the undo journal, pending approvals, the turn), encoded, so that
// replicas serving one conversation see the same state. MemorySessionStore
// keeps it in the process; runtime/redisstore's SessionStore in Redis.
type SessionStore interface {
	// Load returns the state of session id, or nil when there is none:
	// never written, deleted or expired.
	Load(ctx context.Context, id string) ([]byte, error)
	// Update replaces the state of session id with what fn returns given
	// the current state (nil when there is none), atomically with respect
	// to every other Update of id, and keeps it for ttl from now. fn may
	// run more than once, when another writer got in first: it must
	// depend only on its argument, and must not keep or change it. When fn
	// returns an error nothing is written and Update returns that error;
	// when it returns nil or empty state the session is deleted.
	//
	// An empty id, a ttl of zero or less and a nil fn are errors, as is a
	// context already done (the error wraps ctx.Err()); fn does not run then.
	Update(ctx context.Context, id string, ttl time.Duration, fn func(old []byte) ([]byte, error)) error
}

// ErrSessionConflict is returned by a SessionStore's Update that kept
// losing the race for a session to other writers.
var ErrSessionConflict = errors.New("session state: too many concurrent updates")

// CheckSessionLoad is what every SessionStore checks before a Load: the
// context is live and the id not empty. Stores return its error as is.
func CheckSessionLoad(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("session store: %w", err)
	}
	if id == "" {
		return errors.New("session store: the session id is empty")
	}
	return nil
}

// CheckSessionUpdate is what every SessionStore checks before an Update:
// CheckSessionLoad, a positive ttl and a function.
func CheckSessionUpdate(ctx context.Context, id string, ttl time.Duration, fn func([]byte) ([]byte, error)) error {
	if err := CheckSessionLoad(ctx, id); err != nil {
		return err
	}
	if ttl <= 0 {
		return fmt.Errorf("session store: ttl %v is not positive", ttl)
	}
	if fn == nil {
		return errors.New("session store: Update without a function")
	}
	return nil
}

// DefaultMaxSessions is how many sessions a MemorySessionStore holds at
// most unless SessionStoreMaxSessions says otherwise.
const DefaultMaxSessions = 10_000

// MemorySessionStore is a SessionStore in the process's memory. A session
// expires ttl after its last update; the store holds at most
// DefaultMaxSessions sessions (SessionStoreMaxSessions), and when full forgets the
// least recently used one. It is safe for concurrent use.
type MemorySessionStore struct {
	mu        sync.Mutex
	now       func() time.Time
	realClock bool // now is time.Now
	max       int
	byID      map[string]*list.Element
	order     *list.List // of *memSession, most recently used first
}

type memSession struct {
	id      string
	state   []byte
	expires time.Time
	decoded any           // what a reader decoded of state, kept until state changes (see read)
	el      *list.Element // its place in order; nil once removed
}

// MemorySessionStoreOption configures a MemorySessionStore.
type MemorySessionStoreOption func(*MemorySessionStore)

// SessionStoreMaxSessions bounds how many sessions the store holds (default
// DefaultMaxSessions; zero or less means the default).
func SessionStoreMaxSessions(n int) MemorySessionStoreOption {
	return func(s *MemorySessionStore) { s.max = n }
}

// SessionStoreClock sets the store's clock (for tests).
func SessionStoreClock(now func() time.Time) MemorySessionStoreOption {
	return func(s *MemorySessionStore) { s.now, s.realClock = now, false }
}

// NewMemorySessionStore returns an empty store.
func NewMemorySessionStore(opts ...MemorySessionStoreOption) *MemorySessionStore {
	s := &MemorySessionStore{now: time.Now, realClock: true, byID: map[string]*list.Element{}, order: list.New()}
	for _, o := range opts {
		o(s)
	}
	if s.max <= 0 {
		s.max = DefaultMaxSessions
	}
	return s
}

// Len returns how many sessions the store holds, expired ones included
// until they are next looked at or pushed out.
func (s *MemorySessionStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.order.Len()
}

// Load returns a copy of the state of session id.
func (s *MemorySessionStore) Load(ctx context.Context, id string) ([]byte, error) {
	if err := CheckSessionLoad(ctx, id); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ms := s.get(id)
	if ms == nil {
		return nil, nil
	}
	return append([]byte(nil), ms.state...), nil
}

// read gives fn the state of session id (nil when there is none) under
// the store's lock, without a copy, and with it the slot where a decoding
// of that state is kept until the state changes (nil without a state): fn
// must not keep or change the state, and what it keeps in the slot must
// never change either.
//
// last remembers the session the reader read before: while it is held,
// it is found without a look-up by id.
func (s *MemorySessionStore) read(ctx context.Context, id string, last *atomic.Pointer[memSession], fn func(state []byte, decoded *any)) error {
	if err := CheckSessionLoad(ctx, id); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ms := last.Load()
	switch {
	case ms != nil && ms.el != nil && ms.id == id:
		if s.expired(ms) {
			s.remove(ms.el)
			ms = nil
		} else {
			s.order.MoveToFront(ms.el)
		}
	default:
		if ms = s.get(id); ms != nil {
			last.Store(ms)
		}
	}
	if ms != nil {
		fn(ms.state, &ms.decoded)
	} else {
		fn(nil, nil)
	}
	return nil
}

// Update runs fn under the store's lock: it runs once.
func (s *MemorySessionStore) Update(ctx context.Context, id string, ttl time.Duration, fn func(old []byte) ([]byte, error)) error {
	if err := CheckSessionUpdate(ctx, id, ttl, fn); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ms := s.get(id)
	var old []byte
	if ms != nil {
		old = append([]byte(nil), ms.state...)
	}
	state, err := fn(old)
	if err != nil {
		return err
	}
	if len(state) == 0 {
		if ms != nil {
			s.remove(s.byID[id])
		}
		return nil
	}
	state = append([]byte(nil), state...)
	expires := s.now().Add(ttl)
	if ms != nil {
		ms.state, ms.expires, ms.decoded = state, expires, nil
		return nil
	}
	for s.order.Len() >= s.max {
		s.remove(s.order.Back())
	}
	ms = &memSession{id: id, state: state, expires: expires}
	ms.el = s.order.PushFront(ms)
	s.byID[id] = ms.el
	return nil
}

// get returns the live session id, marking it used, or nil.
func (s *MemorySessionStore) get(id string) *memSession {
	el, ok := s.byID[id]
	if !ok {
		return nil
	}
	ms := el.Value.(*memSession)
	if s.expired(ms) {
		s.remove(el)
		return nil
	}
	s.order.MoveToFront(el)
	return ms
}

// expired reports whether ms has expired; on the real clock it reads only
// the monotonic one (time.Until).
func (s *MemorySessionStore) expired(ms *memSession) bool {
	if s.realClock {
		return time.Until(ms.expires) <= 0
	}
	return !s.now().Before(ms.expires)
}

func (s *MemorySessionStore) remove(el *list.Element) {
	ms := el.Value.(*memSession)
	delete(s.byID, ms.id)
	s.order.Remove(el)
	ms.el = nil
}
