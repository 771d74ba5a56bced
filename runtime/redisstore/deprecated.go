package redisstore

import (
	"time"

	"github.com/redis/go-redis/v9"
)

// The names below are earlier names, kept so that code written against
// them compiles. Each store is named after the runtime interface it
// implements, and each option after the store it configures.

// Deprecated: use IdempotencyStore.
type Store = IdempotencyStore

// Deprecated: use IdempotencyStoreOption.
type Option = IdempotencyStoreOption

// Deprecated: use NewIdempotencyStore.
func New(c redis.UniversalClient, opts ...IdempotencyStoreOption) *IdempotencyStore {
	return NewIdempotencyStore(c, opts...)
}

// Deprecated: use IdempotencyStorePrefix.
func WithPrefix(p string) IdempotencyStoreOption { return IdempotencyStorePrefix(p) }

// Deprecated: use IdempotencyStorePollInterval.
func WithPollInterval(first, longest time.Duration) IdempotencyStoreOption {
	return IdempotencyStorePollInterval(first, longest)
}

// Deprecated: use SessionStoreOption; runtime.SessionOption configures a
// session, not a store.
type SessionOption = SessionStoreOption

// Deprecated: use SessionStorePrefix.
func WithSessionPrefix(p string) SessionStoreOption { return SessionStorePrefix(p) }

// Deprecated: use SessionStoreRetries.
func WithSessionRetries(attempts int, first, longest time.Duration) SessionStoreOption {
	return SessionStoreRetries(attempts, first, longest)
}

// Deprecated: use ToolStateStore.
type ToolStates = ToolStateStore

// Deprecated: use ToolStateStoreOption.
type ToolStatesOption = ToolStateStoreOption

// Deprecated: use NewToolStateStore.
func NewToolStates(c redis.UniversalClient, opts ...ToolStateStoreOption) *ToolStateStore {
	return NewToolStateStore(c, opts...)
}

// Deprecated: use ToolStateStorePrefix.
func WithToolStatesPrefix(p string) ToolStateStoreOption { return ToolStateStorePrefix(p) }

// Deprecated: use ToolStateStorePoll.
func WithToolStatesPoll(d time.Duration) ToolStateStoreOption { return ToolStateStorePoll(d) }
