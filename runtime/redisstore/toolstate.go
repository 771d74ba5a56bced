package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolcat/toolcat/runtime"
)

// ToolStateStore is a runtime.ToolStateStore in Redis: the tools operators
// switched off, shared by every replica using the same Redis and prefix.
//
//	states := redisstore.NewToolStateStore(rdb)
//	reg := runtime.New(runtime.WithToolStateStore(states))
//	go reg.WatchToolStates(ctx)
//
// The settings are one hash (PREFIX + "state", a field per tool switched
// off, its value the JSON of a runtime.ToolSetting) and a version
// (PREFIX + "version"); Save changes both and publishes the version on
// PREFIX + "changed" in one script. Watch subscribes to that channel and
// also reads the version every poll interval, so that a message lost
// while the connection was down is caught: a change reaches the other
// replicas within milliseconds, and at worst after one poll interval
// (default 5s) plus a load.
//
// A field that does not decode reads as the tool switched off, with a
// reason saying so: a corrupt record never turns a tool on.
type ToolStateStore struct {
	c      redis.UniversalClient
	guard  bool // c does not keep deadlines: within does
	prefix string
	poll   time.Duration
}

// ToolStateStoreOption configures ToolStateStore.
type ToolStateStoreOption func(*ToolStateStore)

// ToolStateStorePrefix sets the prefix of the Redis keys and channel
// (default "toolcat:tools:").
func ToolStateStorePrefix(p string) ToolStateStoreOption {
	return func(s *ToolStateStore) { s.prefix = p }
}

// ToolStateStorePoll sets how often Watch reads the version besides
// listening on the channel (default 5s; zero or less means the default).
func ToolStateStorePoll(d time.Duration) ToolStateStoreOption {
	return func(s *ToolStateStore) { s.poll = d }
}

// NewToolStateStore returns ToolStateStore using c. Give it a client configured as
// the package doc says (ContextTimeoutEnabled and timeouts).
func NewToolStateStore(c redis.UniversalClient, opts ...ToolStateStoreOption) *ToolStateStore {
	s := &ToolStateStore{c: c, guard: !keepsDeadlines(c), prefix: "toolcat:tools:", poll: 5 * time.Second}
	for _, o := range opts {
		o(s)
	}
	if s.poll <= 0 {
		s.poll = 5 * time.Second
	}
	return s
}

// saveScript sets or deletes a tool's field, bumps the version and
// publishes it. KEYS: hash, version; ARGV: channel, tool, value ("" to
// delete).
var saveScript = redis.NewScript(`
if ARGV[3] == '' then
  redis.call('HDEL', KEYS[1], ARGV[2])
else
  redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
end
local v = redis.call('INCR', KEYS[2])
redis.call('PUBLISH', ARGV[1], v)
return v
`)

// Save implements runtime.ToolStateStore.
func (s *ToolStateStore) Save(ctx context.Context, tool string, st runtime.ToolSetting) error {
	value := ""
	if !st.Enabled {
		b, err := json.Marshal(st)
		if err != nil {
			return err
		}
		value = string(b)
	}
	keys := []string{s.prefix + "state", s.prefix + "version"}
	_, err := within(ctx, s.guard, func(ctx context.Context) (any, error) {
		return nil, saveScript.Run(ctx, s.c, keys, s.prefix+"changed", tool, value).Err()
	})
	return err
}

// Load implements runtime.ToolStateStore.
func (s *ToolStateStore) Load(ctx context.Context) (map[string]runtime.ToolSetting, error) {
	m, err := within(ctx, s.guard, func(ctx context.Context) (map[string]string, error) {
		return s.c.HGetAll(ctx, s.prefix+"state").Result()
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string]runtime.ToolSetting, len(m))
	for tool, v := range m {
		var st runtime.ToolSetting
		if err := json.Unmarshal([]byte(v), &st); err != nil || st.Enabled {
			st = runtime.ToolSetting{Reason: "its state in the store cannot be read; an operator must set it again"}
		}
		out[tool] = st
	}
	return out, nil
}

// Watch implements runtime.ToolStateStore: it listens on the channel and
// reads the version every poll interval, reconnecting as go-redis does,
// until ctx ends.
func (s *ToolStateStore) Watch(ctx context.Context, changed func()) error {
	ps := s.c.Subscribe(ctx, s.prefix+"changed")
	defer ps.Close()
	// Wait for the subscription (or give up on it for now: the poll still
	// runs and the channel reconnects by itself).
	sub, cancel := context.WithTimeout(ctx, s.poll)
	_, _ = ps.Receive(sub)
	cancel()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	msgs := ps.Channel()
	last, _ := s.version(ctx)
	changed()
	tick := time.NewTicker(s.poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case _, ok := <-msgs:
			if !ok {
				return errors.New("tool states: subscription closed")
			}
			last, _ = s.version(ctx)
			changed()
		case <-tick.C:
			v, err := s.version(ctx)
			if err != nil || v == last {
				continue
			}
			last = v
			changed()
		}
	}
}

// version reads the settings' version ("" when none was written).
func (s *ToolStateStore) version(ctx context.Context) (string, error) {
	v, err := within(ctx, s.guard, func(ctx context.Context) (string, error) {
		return s.c.Get(ctx, s.prefix+"version").Result()
	})
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading the tool states' version: %w", err)
	}
	return v, nil
}
