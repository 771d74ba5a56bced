package redisstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolcat/toolcat/runtime"
)

// SessionStore implements runtime.SessionStore on a go-redis client, so that
// replicas serving one conversation share its state.
//
// Session id is the hash at prefix+id (default prefix "toolcat:session:")
// with two fields: "state", the bytes the session wrote, and "ver", a random
// token that changes on every write. The key's TTL (PEXPIRE) is the session's:
// Redis forgets a session no one updates.
//
// Update reads state and version (HMGET), runs fn, and writes with a Lua
// script that sets the new state, a new version and the TTL only if the
// version is still the one read; otherwise another writer got in first and
// Update reads again and reruns fn, after a short jittered wait, up to a
// bounded number of attempts (SessionStoreRetries), then returns
// runtime.ErrSessionConflict. This is a compare-and-set rather than
// WATCH/MULTI/EXEC: it takes two round trips instead of three and holds no
// connection out of the pool while fn runs (WATCH pins one to the
// transaction); each call names one key, so it runs on a Redis Cluster too.
// The version is random rather than a counter so that a session deleted or
// expired and written again never matches a version read before (no ABA).
//
// An Update whose script got no answer (a timeout, a dropped connection)
// returns an error although Redis may still apply the write when it
// answers again.
type SessionStore struct {
	c        redis.UniversalClient
	guard    bool // c does not keep deadlines: within does
	prefix   string
	attempts int
	first    time.Duration
	longest  time.Duration
}

var _ runtime.SessionStore = (*SessionStore)(nil)

// SessionStoreOption configures a SessionStore.
type SessionStoreOption func(*SessionStore)

// SessionStorePrefix sets the prefix of the Redis keys (default
// "toolcat:session:"). Give it a prefix no other data uses.
func SessionStorePrefix(p string) SessionStoreOption { return func(s *SessionStore) { s.prefix = p } }

// SessionStoreRetries sets how many times Update tries to write before it
// returns runtime.ErrSessionConflict (default 50), and the first and the
// longest bound of the random wait between two tries (default 1ms and
// 50ms; the bound doubles after each lost try). attempts below 1 means 1.
func SessionStoreRetries(attempts int, first, longest time.Duration) SessionStoreOption {
	return func(s *SessionStore) { s.attempts, s.first, s.longest = max(attempts, 1), first, max(longest, first) }
}

// NewSessionStore returns a SessionStore using c. Give c the options the
// package doc shows (ContextTimeoutEnabled above all), so that a hung Redis
// cannot hold a call past its context's deadline.
func NewSessionStore(c redis.UniversalClient, opts ...SessionStoreOption) *SessionStore {
	s := &SessionStore{c: c, guard: !keepsDeadlines(c), prefix: "toolcat:session:", attempts: 50, first: time.Millisecond, longest: 50 * time.Millisecond}
	for _, o := range opts {
		o(s)
	}
	return s
}

// casScript writes session KEYS[1] if its version is still ARGV[1] (""
// for none): the state ARGV[3] with version ARGV[2] and a TTL of ARGV[4]
// milliseconds, or, when ARGV[2] is "", deletes it. It returns 1 when it
// wrote, 0 when the version had changed.
var casScript = redis.NewScript(`
local v = redis.call('HGET', KEYS[1], 'ver') or ''
if v ~= ARGV[1] then
  return 0
end
if ARGV[2] == '' then
  redis.call('DEL', KEYS[1])
  return 1
end
redis.call('HSET', KEYS[1], 'state', ARGV[3], 'ver', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`)

// redisErr wraps err of Redis doing what; when ctx ended meanwhile, the
// error wraps ctx.Err() too: go-redis reports a deadline on the socket as
// an i/o timeout, which can fire before the context's own timer marks it
// done.
func redisErr(ctx context.Context, what string, err error) error {
	cerr := ctx.Err()
	if dl, ok := ctx.Deadline(); ok && cerr == nil && !time.Now().Before(dl) {
		cerr = context.DeadlineExceeded
	}
	if cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("redis: %s: %w (%w)", what, cerr, err)
	}
	return fmt.Errorf("redis: %s: %w", what, err)
}

// Load implements runtime.SessionStore.
func (s *SessionStore) Load(ctx context.Context, id string) ([]byte, error) {
	if err := runtime.CheckSessionLoad(ctx, id); err != nil {
		return nil, err
	}
	b, err := within(ctx, s.guard, func(ctx context.Context) ([]byte, error) {
		return s.c.HGet(ctx, s.prefix+id, "state").Bytes()
	})
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, redisErr(ctx, "loading session", err)
	}
	if len(b) == 0 {
		return nil, nil
	}
	return b, nil
}

// Update implements runtime.SessionStore.
func (s *SessionStore) Update(ctx context.Context, id string, ttl time.Duration, fn func(old []byte) ([]byte, error)) error {
	if err := runtime.CheckSessionUpdate(ctx, id, ttl, fn); err != nil {
		return err
	}
	ms := ttl.Milliseconds()
	if time.Duration(ms)*time.Millisecond < ttl {
		ms++ // Redis counts in milliseconds: round up
	}
	key := s.prefix + id
	bound := s.first
	for attempt := 1; ; attempt++ {
		vals, err := within(ctx, s.guard, func(ctx context.Context) ([]any, error) {
			return s.c.HMGet(ctx, key, "state", "ver").Result()
		})
		if err != nil {
			return redisErr(ctx, "reading session", err)
		}
		if len(vals) != 2 {
			return fmt.Errorf("redis: reading session: HMGET returned %d values, want 2", len(vals))
		}
		var old []byte
		if v, ok := vals[0].(string); ok && v != "" {
			old = []byte(v)
		}
		ver, _ := vals[1].(string)
		state, err := fn(old)
		if err != nil {
			return err
		}
		next := ""
		if len(state) > 0 {
			next = runtime.NewToken()
		}
		n, err := within(ctx, s.guard, func(ctx context.Context) (int, error) {
			return casScript.Run(ctx, s.c, []string{key}, ver, next, state, ms).Int()
		})
		if err != nil {
			return redisErr(ctx, "writing session", err)
		}
		if n == 1 {
			return nil
		}
		if attempt >= s.attempts {
			return fmt.Errorf("redis: session lost %d tries to other writers: %w", attempt, runtime.ErrSessionConflict)
		}
		if bound > 0 {
			t := time.NewTimer(time.Duration(rand.Int64N(int64(bound))) + 1)
			select {
			case <-ctx.Done():
				t.Stop()
				return fmt.Errorf("redis: waiting to write session again: %w", ctx.Err())
			case <-t.C:
			}
			bound = min(bound*2, s.longest)
		}
	}
}
