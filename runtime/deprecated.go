package runtime

import "time"

// The names below are earlier names of options and stores, kept so that
// code written against them compiles. Options now say what they configure:
// a Registry's are With<Setting>, every other receiver's <Receiver><Setting>
// (SessionSender, IdempotencyStoreMaxEntries, SessionStoreClock), and an
// implementation of a store interface is <Backend><Interface>
// (MemoryIdempotencyStore, MemorySessionStore, MemoryToolStateStore).

// Deprecated: use SessionSender.
func WithSender(sender string) SessionOption { return SessionSender(sender) }

// Deprecated: use SessionAutonomy; WithDefaultAutonomy is the registry's.
func WithAutonomy(a Autonomy) SessionOption { return SessionAutonomy(a) }

// Deprecated: use SessionTrust.
func WithTrust(rules ...TrustRule) SessionOption { return SessionTrust(rules...) }

// Deprecated: use SessionTaintScope.
func WithTaintScope(t TaintScope) SessionOption { return SessionTaintScope(t) }

// Deprecated: use SessionPromotionTurns.
func WithPromotionTurns(n int) SessionOption { return SessionPromotionTurns(n) }

// Deprecated: use SessionUndoTool.
func WithUndoTool(on bool) SessionOption { return SessionUndoTool(on) }

// Deprecated: use SessionProviderSearch.
func WithProviderSearch(on bool) SessionOption { return SessionProviderSearch(on) }

// Deprecated: use SessionJournalLimit.
func WithJournalLimit(n, bytes int) SessionOption { return SessionJournalLimit(n, bytes) }

// Deprecated: use MemoryIdempotencyStore.
type MemoryStore = MemoryIdempotencyStore

// Deprecated: use MemoryIdempotencyStoreOption.
type MemoryOption = MemoryIdempotencyStoreOption

// Deprecated: use NewMemoryIdempotencyStore.
func NewMemoryStore(opts ...MemoryIdempotencyStoreOption) *MemoryIdempotencyStore {
	return NewMemoryIdempotencyStore(opts...)
}

// Deprecated: use IdempotencyStoreMaxEntries.
func WithMaxEntries(n int) MemoryIdempotencyStoreOption { return IdempotencyStoreMaxEntries(n) }

// Deprecated: use IdempotencyStoreClock.
func WithMemoryClock(now func() time.Time) MemoryIdempotencyStoreOption {
	return IdempotencyStoreClock(now)
}

// Deprecated: use DefaultMaxIdempotencyEntries.
const DefaultMaxEntries = DefaultMaxIdempotencyEntries

// Deprecated: use MemorySessionStoreOption.
type MemorySessionOption = MemorySessionStoreOption

// Deprecated: use SessionStoreMaxSessions.
func WithMaxSessions(n int) MemorySessionStoreOption { return SessionStoreMaxSessions(n) }

// Deprecated: use SessionStoreClock.
func WithSessionClock(now func() time.Time) MemorySessionStoreOption { return SessionStoreClock(now) }
