package runtime

import (
	"io"
	"log/slog"
	"time"
)

// Option configures a Registry.
type Option func(*Registry)

// WithIdempotencyStore sets the store of idempotency keys; the default is a
// MemoryIdempotencyStore. Use runtime/redisstore to share keys between processes.
func WithIdempotencyStore(s IdempotencyStore) Option { return func(r *Registry) { r.store = s } }

// WithIdempotencyTTL sets how long results are kept for replay (default
// 24h; zero or less means the default). The default MemoryIdempotencyStore also holds
// at most DefaultMaxIdempotencyEntries keys, evicting the least recently used result
// first; see IdempotencyStoreMaxEntries.
func WithIdempotencyTTL(d time.Duration) Option { return func(r *Registry) { r.ttl = d } }

// WithIdempotencyLease sets d, how long a claim on a key outlives the
// call's deadline (default 30s; zero or less means the default). A tool
// without an SLA has no deadline: its claim lasts 10×d (5m by default).
// After the claim a crashed holder's key can be claimed again.
func WithIdempotencyLease(d time.Duration) Option { return func(r *Registry) { r.lease = d } }

// WithIdempotencyStoreTimeout bounds each operation on the idempotency
// store, waiting for a call in flight with the same key included (default
// the tool's deadline, sla_ms × WithSLAFactor, or 10s for a tool without
// one). A store that does not answer in time gets dependency_unavailable
// and the tool does not run; a result that cannot be stored in time is kept
// in memory and written on the next use of its key.
func WithIdempotencyStoreTimeout(d time.Duration) Option { return func(r *Registry) { r.storeTO = d } }

// WithLogger sets the host's logger: panics (with their stacks), store
// failures and SLA overruns go there, never to the model. The default is
// slog.Default().
func WithLogger(l *slog.Logger) Option { return func(r *Registry) { r.log = l } }

// WithSLAFactor multiplies every tool's SLA to get its deadline (default 1;
// 0 disables deadlines).
func WithSLAFactor(f float64) Option { return func(r *Registry) { r.slaFactor = f } }

// WithAutoFallback makes the registry call a tool's fallback_tool itself when
// the tool answers dependency_unavailable and the arguments fit the
// fallback's schema.
func WithAutoFallback(on bool) Option { return func(r *Registry) { r.autoFallback = on } }

// WithClock sets the clock (for tests).
func WithClock(now func() time.Time) Option { return func(r *Registry) { r.now = now } }

// WithRand sets the source of the untrusted markers (default crypto/rand).
func WithRand(rnd io.Reader) Option { return func(r *Registry) { r.rnd = rnd } }

// WithDefaultAutonomy sets the level used when CallOptions.Autonomy is zero
// (default AutonomyFull).
func WithDefaultAutonomy(a Autonomy) Option { return func(r *Registry) { r.autonomy = a } }

// WithPolicy adds a gate run on every call.
func WithPolicy(p Policy) Option { return func(r *Registry) { r.policies = append(r.policies, p) } }

// WithRetryWindow sets how long the retry guard remembers a step's failures
// (default DefaultRetryWindow, 10m; zero or less means the default). The
// guard itself is off for calls without a CallOptions.StepID.
func WithRetryWindow(d time.Duration) Option {
	return func(r *Registry) { r.guard = newRetryGuard(d) }
}

// WithDetachOnTimeout runs tools with a deadline on their own goroutine and
// answers timeout as soon as the deadline passes, even if the tool ignores
// its context. By default the tool runs on the caller's goroutine, which is
// cheaper: its context is cancelled at the deadline all the same, and an
// answer after the deadline is a timeout too, but it comes only when the
// tool returns. Either way a late result is stored for an idempotency key.
func WithDetachOnTimeout(on bool) Option { return func(r *Registry) { r.detach = on } }

// WithToolGoroutine runs every tool on a goroutine of its own (idle ones are
// kept for reuse), so that a tool calling runtime.Goexit (as testing's
// FailNow does) answers internal. By default a tool runs on the caller's
// goroutine, which is cheaper, and Goexit there ends the caller's goroutine
// as it would anywhere, so Call does not return; the registry logs it and
// releases the call's idempotency key. WithDetachOnTimeout runs tools with
// a deadline apart too, and answers internal as well.
func WithToolGoroutine(on bool) Option { return func(r *Registry) { r.apart = on } }

// WithSessionStore sets where sessions keep their state (default a
// MemorySessionStore). Use runtime/redisstore's SessionStore to share
// sessions between replicas.
func WithSessionStore(s SessionStore) Option { return func(r *Registry) { r.sessions = s } }

// WithSessionTTL sets how long a session's state is kept after its last
// change (default DefaultSessionTTL).
func WithSessionTTL(d time.Duration) Option { return func(r *Registry) { r.sessionTTL = d } }

// WithToolStateStore sets where the tools operators switch off are kept
// (default a MemoryToolStateStore of this registry's own). With a store
// shared by replicas, run Registry.WatchToolStates, which loads the
// settings and follows the changes other replicas make.
func WithToolStateStore(s ToolStateStore) Option { return func(r *Registry) { r.states = s } }

// WithMaxResultBytes sets the cap on the JSON of a result for tools whose
// Meta.MaxResultBytes is zero (default DefaultMaxResultBytes); zero or less
// means no cap for them. A result above its cap answers unsupported, and the
// host's logger gets its size.
func WithMaxResultBytes(n int) Option {
	return func(r *Registry) { r.maxResult = max(n, 0) }
}

// WithResultCheck sets whether results are checked against their tool's
// result schema (default ResultCheckOff). The schemas are compiled once, at
// Register; tools without one are not checked.
func WithResultCheck(c ResultCheck) Option { return func(r *Registry) { r.resultCheck = c } }

// WithObserver adds fn to the functions told of every call the registry
// answers (see Registry.Observe).
func WithObserver(fn func(CallEvent)) Option {
	return func(r *Registry) { r.Observe(fn) }
}

// WithCallHook sets h, run around every call the registry or a session
// answers (see CallHook), such as runtime/telemetry's Hook. A registry has one hook;
// the last set wins.
func WithCallHook(h CallHook) Option {
	return func(r *Registry) { r.obs.setHook(h) }
}
