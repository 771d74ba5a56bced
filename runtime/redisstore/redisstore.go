// Package redisstore keeps in Redis what agent replicas must share: Store is
// a runtime.IdempotencyStore (one execution per key across every process
// using the same Redis), SessionStore a runtime.SessionStore (the state of a
// conversation, whichever replica serves its next turn).
//
//	rdb := redis.NewClient(&redis.Options{
//		Addr:                  "localhost:6379",
//		ContextTimeoutEnabled: true,        // the call's deadline reaches the socket
//		DialTimeout:           time.Second, // each a bound when the context has none
//		ReadTimeout:           time.Second,
//		WriteTimeout:          time.Second,
//		PoolTimeout:           time.Second,
//		MaxRetries:            -1, // the registry answers; the model retries
//	})
//	reg := runtime.New(runtime.WithIdempotencyStore(redisstore.NewIdempotencyStore(rdb)))
//	sessions := redisstore.NewSessionStore(rdb)
//
// Give the stores a client with these options. Without ContextTimeoutEnabled
// (go-redis's default), go-redis ignores context deadlines on the socket, so a
// hung Redis would hold a command for ReadTimeout (5s by default) times its
// retries; the stores then keep the deadline themselves (the command runs on a
// goroutine of its own and the store answers when the context ends), but the
// connection stays busy until go-redis gives up. The registry bounds every
// store operation by the caller's deadline and the tool's SLA
// (runtime.WithIdempotencyStoreTimeout).
// A claim whose SET got no answer may still be written when Redis answers;
// the Store takes it over on the key's next use, and other processes wait
// until its lease ends.
//
// A claim is one key written with SET NX and a lease (PX); completing and
// releasing check the claim's token in a script, so a holder whose lease ran
// out cannot overwrite the next holder. Waiters poll with backoff. When Redis
// cannot be reached every method returns an error, and the registry then
// refuses to run the tool (fails closed).
//
// A session is a hash at "toolcat:session:"+id (SessionStorePrefix) holding
// its state and a version, with the session's TTL on the key; Update writes
// it with a compare-and-set script on the version and retries, with a
// jittered wait, when another replica wrote first (see SessionStore). Load
// and Update honour their context's deadline with the client above.
//
// Results and sessions survive a Redis restart only if Redis persists its
// data (RDB or AOF); without persistence a restart forgets completed keys and
// sessions. The stores need Redis 7.0 or later (SET with both NX and GET).
package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolcat/toolcat/runtime"
)

// IdempotencyStore implements runtime.IdempotencyStore on a go-redis client.
type IdempotencyStore struct {
	c       redis.UniversalClient
	guard   bool // c does not keep deadlines: within does
	prefix  string
	minPoll time.Duration
	maxPoll time.Duration

	// claims whose SET failed without an answer, by Redis key: Redis may
	// still have written them, and then they are this store's to take over.
	doubtM sync.Mutex
	doubt  map[string]string
}

// maxDoubt bounds the claims in doubt a Store remembers.
const maxDoubt = 10_000

// IdempotencyStoreOption configures a Store.
type IdempotencyStoreOption func(*IdempotencyStore)

// IdempotencyStorePrefix sets the prefix of the Redis keys (default "toolcat:idem:").
func IdempotencyStorePrefix(p string) IdempotencyStoreOption {
	return func(s *IdempotencyStore) { s.prefix = p }
}

// IdempotencyStorePollInterval sets the first and the longest wait between two looks at
// a key another process holds (default 2ms and 50ms).
func IdempotencyStorePollInterval(first, longest time.Duration) IdempotencyStoreOption {
	return func(s *IdempotencyStore) { s.minPoll, s.maxPoll = first, longest }
}

// NewIdempotencyStore returns a Store using c.
func NewIdempotencyStore(c redis.UniversalClient, opts ...IdempotencyStoreOption) *IdempotencyStore {
	s := &IdempotencyStore{c: c, guard: !keepsDeadlines(c), prefix: "toolcat:idem:", minPoll: 2 * time.Millisecond, maxPoll: 50 * time.Millisecond, doubt: map[string]string{}}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Values: a claim is "P" + token + fingerprint; a result is "D" + JSON.
type stored struct {
	Fingerprint string          `json:"fp"`
	Data        json.RawMessage `json:"data"`
	At          time.Time       `json:"at"`
	Source      string          `json:"src,omitempty"`
	Oversize    int             `json:"over,omitempty"`
}

// completeScript stores a result if the claim is still ours or the key is
// free (it expired, or Redis lost it).
var completeScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v == false or string.sub(v, 1, string.len(ARGV[1])) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0
`)

// releaseScript deletes the key if the claim is still ours.
var releaseScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v ~= false and string.sub(v, 1, string.len(ARGV[1])) == ARGV[1] then
  redis.call('DEL', KEYS[1])
end
return 0
`)

// Acquire implements runtime.IdempotencyStore.
func (s *IdempotencyStore) Acquire(ctx context.Context, key, fp string, lease time.Duration) (runtime.Claim, error) {
	rkey := s.prefix + key
	tok := runtime.NewToken()
	claim := "P" + tok + fp
	wait := s.minPoll
	held := false // another call held the key at the last look
	for {
		old, err := within(ctx, s.guard, func(ctx context.Context) (string, error) {
			return s.c.SetArgs(ctx, rkey, claim, redis.SetArgs{Mode: "NX", TTL: lease, Get: true}).Result()
		})
		if errors.Is(err, redis.Nil) {
			s.forget(rkey)
			return runtime.Claim{Token: tok}, nil
		}
		if err != nil {
			s.remember(rkey, claim)
			if held && ctx.Err() != nil {
				// The context ended while this store looked again at a
				// key another call holds: it is still in flight, as far
				// as anyone knows.
				return runtime.Claim{}, fmt.Errorf("%w: %w", runtime.ErrInFlight, ctx.Err())
			}
			return runtime.Claim{}, fmt.Errorf("redis: claiming idempotency key: %w", err)
		}
		switch {
		case s.takeOver(rkey, old, fp):
			// A claim this store wrote without hearing back (a timeout):
			// nobody runs it.
			return runtime.Claim{Token: old[1:33]}, nil
		case strings.HasPrefix(old, "D"):
			var st stored
			if err := json.Unmarshal([]byte(old[1:]), &st); err != nil {
				return runtime.Claim{}, fmt.Errorf("redis: idempotency record %s is corrupt: %w", rkey, err)
			}
			return runtime.Claim{Record: &runtime.Record{Fingerprint: st.Fingerprint, Data: st.Data, At: st.At, Source: st.Source, Oversize: st.Oversize}}, nil
		case old == claim:
			// A retry of this very SET (a client with MaxRetries) found
			// the claim the first attempt wrote.
			return runtime.Claim{Token: tok}, nil
		case strings.HasPrefix(old, "P") && len(old) > 33:
			if pfp := old[33:]; pfp != fp {
				return runtime.Claim{PendingFingerprint: pfp}, nil
			}
		default:
			return runtime.Claim{}, fmt.Errorf("redis: idempotency key %s holds an unknown value", rkey)
		}
		// Another call with the same arguments holds the key: wait for it.
		held = true
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return runtime.Claim{}, fmt.Errorf("%w: %w", runtime.ErrInFlight, ctx.Err())
		case <-t.C:
		}
		wait = min(wait*2, s.maxPoll)
	}
}

// remember notes a claim that Redis may have written although the SET got
// no answer.
func (s *IdempotencyStore) remember(rkey, claim string) {
	s.doubtM.Lock()
	defer s.doubtM.Unlock()
	if len(s.doubt) < maxDoubt {
		s.doubt[rkey] = claim
	}
}

func (s *IdempotencyStore) forget(rkey string) {
	s.doubtM.Lock()
	delete(s.doubt, rkey)
	s.doubtM.Unlock()
}

// takeOver reports whether old is a claim in doubt of this store for the
// fingerprint fp, and then forgets it.
func (s *IdempotencyStore) takeOver(rkey, old, fp string) bool {
	s.doubtM.Lock()
	defer s.doubtM.Unlock()
	c, ok := s.doubt[rkey]
	switch {
	case !ok:
		return false
	case c != old:
		delete(s.doubt, rkey) // Redis holds something else
		return false
	case len(old) <= 33 || old[33:] != fp:
		return false // a call with other arguments: it conflicts
	}
	delete(s.doubt, rkey)
	return true
}

// Complete implements runtime.IdempotencyStore.
func (s *IdempotencyStore) Complete(ctx context.Context, key, token string, rec runtime.Record, ttl time.Duration) error {
	b, err := json.Marshal(stored{Fingerprint: rec.Fingerprint, Data: rec.Data, At: rec.At, Source: rec.Source, Oversize: rec.Oversize})
	if err != nil {
		return err
	}
	n, err := within(ctx, s.guard, func(ctx context.Context) (int, error) {
		return completeScript.Run(ctx, s.c, []string{s.prefix + key}, "P"+token, "D"+string(b), ttl.Milliseconds()).Int()
	})
	if err != nil {
		return fmt.Errorf("redis: storing idempotent result: %w", err)
	}
	if n == 0 {
		return runtime.ErrLeaseLost
	}
	return nil
}

// Release implements runtime.IdempotencyStore.
func (s *IdempotencyStore) Release(ctx context.Context, key, token string) error {
	_, err := within(ctx, s.guard, func(ctx context.Context) (any, error) {
		return nil, releaseScript.Run(ctx, s.c, []string{s.prefix + key}, "P"+token).Err()
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("redis: releasing idempotency key: %w", err)
	}
	return nil
}
