package runtime

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Func is the signature of a tool's Execute and DryRun: it receives the
// arguments its Validator returned and returns the data of a successful
// envelope, or an error (a *ToolError, or any error, which becomes
// internal).
type Func func(ctx context.Context, args any) (any, error)

// RevertFunc undoes a call, given its arguments (as its Validator returned
// them) and the JSON of the data it returned.
type RevertFunc func(ctx context.Context, args any, result json.RawMessage) (any, error)

// Tool binds a catalog entry to its code. Generated code builds one per tool
// from the user's implementation, with a typed adapter around each function
// (see Bind and BindRevert):
//
//	Execute: runtime.Bind(impl.Execute),
type Tool struct {
	Meta Meta
	// Validator checks and decodes the arguments; nil means a
	// SchemaValidator built from Meta at registration.
	Validator Validator
	// Execute does the work. Required.
	Execute Func
	// DryRun previews the work without side effects, returning a Preview
	// (or any data). Nil when the tool has none: a dry run of a tool
	// without side effects then executes it, and one with side effects
	// answers unsupported.
	DryRun Func
	// Revert undoes the work; nil when the tool is not revertible.
	Revert RevertFunc
}

// CallOptions carries what the host knows about a call besides its
// arguments.
type CallOptions struct {
	// IdempotencyKey identifies the operation across retries; see
	// IdempotencyKey. Required by tools with IdempotencyRequired.
	IdempotencyKey string
	// KeyScope scopes the model's idempotency_key argument (tools with
	// Meta.IdempotencyKeyArg): the call's key becomes KeyScope + "/" + the
	// model's key, so that two conversations whose models pick the same key
	// never replay each other's results. Set it to the conversation's id.
	// It does not change IdempotencyKey, which the host makes itself.
	KeyScope string
	// StepID scopes the retry guard: failures of one tool within one step
	// are counted. Empty disables the guard for the call.
	StepID string
	// DryRun asks for a preview instead of the work.
	DryRun bool
	// Sender identifies who asked (a user, a channel), for policies.
	Sender string
	// Autonomy is the agent's autonomy level; zero means the registry's
	// default.
	Autonomy Autonomy
	// Approved says the user approved this call, for tools that need
	// approval under AutonomySupervised.
	Approved bool
}

// Policy is an extra gate run before validation, after the autonomy gate,
// for checks such as capabilities or per-sender rules. A non-nil error
// refuses the call (use PermissionDenied or ApprovalRequired).
type Policy func(ctx context.Context, m *Meta, opts *CallOptions) *ToolError

// Option configures a Registry.
type Option func(*Registry)

// WithIdempotencyStore sets the store of idempotency keys; the default is a
// MemoryStore. Use runtime/redisstore to share keys between processes.
func WithIdempotencyStore(s IdempotencyStore) Option { return func(r *Registry) { r.store = s } }

// WithIdempotencyTTL sets how long results are kept for replay (default
// 24h; zero or less means the default). The default MemoryStore also holds
// at most DefaultMaxEntries keys, evicting the least recently used result
// first; see WithMaxEntries.
func WithIdempotencyTTL(d time.Duration) Option { return func(r *Registry) { r.ttl = d } }

// WithIdempotencyLease sets how long a claim on a key outlives the call's
// deadline (default 30s), or lasts when the tool has no SLA (default 5m);
// after it a crashed holder's key can be claimed again.
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
// (default 10m).
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

// Registry holds tools and dispatches calls to them. It is safe for
// concurrent use; tools may be registered while calls run.
type Registry struct {
	mu    sync.Mutex // serialises Register
	tools atomic.Pointer[toolSet]

	store        IdempotencyStore
	mem          *MemoryStore // store, when it is a MemoryStore (see storeCtx)
	ttl, lease   time.Duration
	storeTO      time.Duration
	log          *slog.Logger
	slaFactor    float64
	autoFallback bool
	now          func() time.Time
	rnd          io.Reader
	autonomy     Autonomy
	policies     []Policy
	guard        *retryGuard
	detach       bool
	maxResult    int         // cap on a result's JSON for tools that set none; 0: none
	resultCheck  ResultCheck // whether results are checked against their schema
	apart        bool
	workers      chan *toolWorker
	sessions     SessionStore
	sessionTTL   time.Duration
	index        atomic.Pointer[toolIndex] // the discovery index of tools, made on first search
	states       ToolStateStore            // where tools switched off are kept
	ts           toolStates                // the tools switched off, applied
	obs          observers                 // told of every call (Observe)

	// results whose Complete failed, written before the key is used again.
	unflushedN atomic.Int64
	unflushedM sync.Mutex
	unflushed  map[string]unflushedResult
}

type unflushedResult struct {
	token string
	rec   Record
}

type toolSet struct {
	byName map[string]*entry
	sorted []*entry
	names  []string
}

type entry struct {
	tool     Tool
	meta     *Meta
	need     Autonomy
	approval bool
	deadline time.Duration
	// maxResult caps the JSON of a result (0: no cap); results checks it
	// against the result schema (nil: not checked).
	maxResult int
	results   *SchemaValidator
}

// New returns an empty registry.
func New(opts ...Option) *Registry {
	r := &Registry{
		ttl:       24 * time.Hour,
		lease:     30 * time.Second,
		log:       slog.Default(),
		slaFactor: 1,
		now:       time.Now,
		rnd:       rand.Reader,
		autonomy:  AutonomyFull,
		guard:     newRetryGuard(10 * time.Minute),
		unflushed: map[string]unflushedResult{},
		maxResult: DefaultMaxResultBytes,
	}
	for _, o := range opts {
		o(r)
	}
	if r.ttl <= 0 {
		r.ttl = 24 * time.Hour
	}
	if r.lease <= 0 {
		r.lease = 30 * time.Second
	}
	if r.apart {
		r.workers = make(chan *toolWorker, idleWorkers)
	}
	if r.store == nil {
		r.store = NewMemoryStore(WithMemoryClock(r.now))
	}
	r.mem, _ = r.store.(*MemoryStore)
	if r.sessions == nil {
		r.sessions = NewMemorySessionStore(WithSessionClock(r.now))
	}
	if r.autonomy == AutonomyDefault {
		r.autonomy = AutonomyFull
	}
	if r.states == nil {
		r.states = NewMemoryToolStateStore()
	}
	r.tools.Store(&toolSet{byName: map[string]*entry{}})
	return r
}

// Register adds a tool. It checks the metadata, builds a SchemaValidator
// when the tool has no Validator (compiling the schema once), and refuses a
// second tool of the same name.
func (r *Registry) Register(t Tool) error { return r.RegisterTools(t) }

// RegisterTools adds tools as Register does, all at once: either every one
// is registered or, on the first that Register would refuse, none is. The
// registry's tool set is rebuilt once and OnToolsChanged hooks run once, so
// registering a catalog of thousands of tools takes time linear in their
// number.
func (r *Registry) RegisterTools(tools ...Tool) error {
	entries := make([]entry, len(tools))
	for i := range tools {
		if err := r.newEntry(&entries[i], tools[i]); err != nil {
			return err
		}
	}
	r.mu.Lock()
	old := r.tools.Load()
	ns := &toolSet{byName: make(map[string]*entry, len(old.byName)+len(entries))}
	for k, v := range old.byName {
		ns.byName[k] = v
	}
	for i := range entries {
		e := &entries[i]
		name := e.meta.Name
		if _, dup := ns.byName[name]; dup {
			r.mu.Unlock()
			return fmt.Errorf("tool %s is already registered", name)
		}
		alias := e.meta.OriginalName
		if alias == name {
			alias = ""
		}
		if _, dup := ns.byName[alias]; dup && alias != "" {
			r.mu.Unlock()
			return fmt.Errorf("tool %s: original name %s is already registered", name, alias)
		}
		ns.byName[name] = e
		if alias != "" {
			ns.byName[alias] = e // a call by the wire name finds the tool
		}
	}
	ns.sorted = slices.Grow(slices.Clone(old.sorted), len(entries))
	for i := range entries {
		ns.sorted = append(ns.sorted, &entries[i])
	}
	slices.SortFunc(ns.sorted, func(a, b *entry) int { return strings.Compare(a.meta.Name, b.meta.Name) })
	ns.names = make([]string, len(ns.sorted))
	for i, s := range ns.sorted {
		ns.names[i] = s.meta.Name
	}
	r.tools.Store(ns)
	r.mu.Unlock()
	r.restop() // a tool switched off before it was registered, or one depending on it
	r.toolsChanged()
	return nil
}

// newEntry checks t and makes e the registry's entry of it.
func (r *Registry) newEntry(e *entry, t Tool) error {
	if err := t.Meta.check(); err != nil {
		return err
	}
	if t.Execute == nil {
		return fmt.Errorf("tool %s: no Execute function", t.Meta.Name)
	}
	if t.Validator == nil {
		v, err := NewSchemaValidator(&t.Meta)
		if err != nil {
			return err
		}
		t.Validator = v
	}
	e.tool = t
	e.meta = &e.tool.Meta
	e.need = e.meta.requiredAutonomy()
	e.approval = e.meta.needsApproval()
	if r.slaFactor > 0 && e.meta.SLA > 0 {
		e.deadline = time.Duration(float64(e.meta.SLA) * r.slaFactor)
	}
	e.maxResult = r.maxResult
	if e.meta.MaxResultBytes > 0 {
		e.maxResult = e.meta.MaxResultBytes
	}
	if r.resultCheck != ResultCheckOff {
		v, err := newResultValidator(e.meta)
		if err != nil {
			return err
		}
		e.results = v
	}
	return nil
}

// MustRegister is Register that panics on error, for generated code
// registering a catalog already checked at build time.
func (r *Registry) MustRegister(t Tool) {
	if err := r.Register(t); err != nil {
		panic(err)
	}
}

// Get returns the tool named name. Its Meta must not be changed.
func (r *Registry) Get(name string) (Tool, bool) {
	e, ok := r.tools.Load().byName[name]
	if !ok {
		return Tool{}, false
	}
	return e.tool, true
}

// List returns every tool, sorted by name.
func (r *Registry) List() []Tool {
	ts := r.tools.Load()
	out := make([]Tool, len(ts.sorted))
	for i, e := range ts.sorted {
		out[i] = e.tool
	}
	return out
}

// Names returns the names of every tool, sorted. The slice must not be
// changed.
func (r *Registry) Names() []string { return r.tools.Load().names }

// Visible returns the tools to show a model at autonomy level a, sorted by
// name: core tools (not hidden) that a may call, and that are not disabled
// or blocked (see DisableTool). Tools that need approval are included; the
// call answers approval_required until approved.
func (r *Registry) Visible(a Autonomy) []Tool {
	if a == AutonomyDefault {
		a = r.autonomy
	}
	var out []Tool
	for _, e := range r.tools.Load().sorted {
		if e.meta.Exposure == ExposureHidden || a < e.need || r.isStopped(e) {
			continue
		}
		out = append(out, e.tool)
	}
	return out
}

// Call runs the tool name with the raw JSON arguments and returns the
// envelope; it never panics and never returns a Go error. The steps, in
// order: look up; autonomy and policy gate; validate and apply defaults;
// idempotency; retry guard; deadline; execute (panics become internal);
// result size cap and result check; untrusted wrapping. A tool disabled or
// blocked (DisableTool) answers permission_denied after the look-up.
func (r *Registry) Call(ctx context.Context, name string, rawArgs []byte, opts CallOptions) (res Result) {
	e := r.tools.Load().byName[name]
	if fns := r.obs.fns.Load(); fns != nil {
		return r.observed(ctx, *fns, e, name, rawArgs, opts)
	}
	// callEntry's body, repeated here: one call frame less on every call.
	if e == nil {
		return r.notFound(name)
	}
	if p := r.ts.stops.Load(); p != nil && (*p)[e.meta.Name] != nil {
		return r.fail(e, stoppedError((*p)[e.meta.Name]))
	}
	defer r.recoverCall(ctx, e, &res)
	if len(e.meta.Dependencies) > 0 {
		if ctx, f := r.enter(ctx, e, &opts); f != nil {
			return r.carryTaint(e, f, r.dispatch(ctx, e, rawArgs, opts))
		}
	}
	return r.dispatch(ctx, e, rawArgs, opts)
}

// callEntry is Call of e (nil: no tool is named name) without the
// observers.
func (r *Registry) callEntry(ctx context.Context, e *entry, name string, rawArgs []byte, opts CallOptions) (res Result) {
	if e == nil {
		return r.notFound(name)
	}
	if te := r.stopped(e); te != nil {
		return r.fail(e, te)
	}
	defer r.recoverCall(ctx, e, &res)
	if len(e.meta.Dependencies) > 0 {
		if ctx, f := r.enter(ctx, e, &opts); f != nil {
			return r.carryTaint(e, f, r.dispatch(ctx, e, rawArgs, opts))
		}
	}
	return r.dispatch(ctx, e, rawArgs, opts)
}

// dispatch is Call past the look-up: the call, and its fallback.
func (r *Registry) dispatch(ctx context.Context, e *entry, rawArgs []byte, opts CallOptions) Result {
	res := r.call(ctx, e, rawArgs, &opts)
	if !res.Success && r.autoFallback && res.Error.Code == CodeDependencyUnavailable && !res.Error.internal {
		if fb := r.fallback(ctx, e, rawArgs, opts); fb != nil {
			return *fb
		}
	}
	return res
}

// recoverCall turns a panic outside the tool's own code (a validator, a
// policy, a store) into an internal error envelope.
func (r *Registry) recoverCall(ctx context.Context, e *entry, res *Result) {
	if p := recover(); p != nil {
		r.log.LogAttrs(ctx, slog.LevelError, "toolcat: panic while dispatching",
			slog.String("tool", e.meta.Name), slog.Any("panic", p), slog.String("stack", string(debug.Stack())))
		te := Internal("the call of " + e.meta.Name + " failed unexpectedly")
		te.internal = true
		*res = r.fail(e, te)
	}
}

func (r *Registry) notFound(name string) Result {
	names := r.Names()
	if p := r.ts.stops.Load(); p != nil { // never point to a tool switched off
		names = slices.DeleteFunc(slices.Clone(names), func(n string) bool { return (*p)[n] != nil })
	}
	closest := ClosestN(name, names, 3)
	msg := "no tool is named " + quoteClipped(name, maxEchoName)
	var sug string
	if len(closest) > 0 {
		msg += "; the closest are " + strings.Join(closest, ", ")
		sug = "Call " + closest[0] + " if that is what you meant; use only the tools listed to you."
	} else {
		sug = "Use only the tools listed to you."
	}
	te := NotFound(msg).WithSuggestion(sug).WithRetryAllowed(true)
	te.internal = true
	te.Details = map[string]any{"tool": clipName(name), "closest": closest}
	return Result{Error: te, Tool: name}
}

// fallback runs e's fallback tool when the arguments fit it.
func (r *Registry) fallback(ctx context.Context, e *entry, raw []byte, opts CallOptions) *Result {
	fb, ok := r.tools.Load().byName[e.meta.FallbackTool]
	if !ok || r.isStopped(fb) {
		return nil
	}
	if e.meta.IdempotencyKeyArg {
		// call took the model's key from raw into opts.
		if raw, _, _ = takeIdempotencyKey(raw); raw == nil {
			return nil
		}
	}
	if _, te := fb.tool.Validator.Validate(raw); te != nil {
		return nil
	}
	if opts.IdempotencyKey != "" {
		opts.IdempotencyKey += "/fallback:" + fb.meta.Name
	}
	r.log.LogAttrs(ctx, slog.LevelInfo, "toolcat: calling fallback tool",
		slog.String("tool", e.meta.Name), slog.String("fallback", fb.meta.Name))
	res := r.call(ctx, fb, raw, &opts)
	return &res
}

// fail builds the envelope of a failure. An error carrying the text of a
// tool that returns untrusted output is wrapped like its data.
func (r *Registry) fail(e *entry, te *ToolError) Result {
	res := Result{Error: finish(te, e.meta), Tool: e.meta.Name}
	if te.toolText && e.meta.ReturnsUntrusted {
		b, err := json.Marshal(res.Error)
		if err != nil {
			return Result{Error: finish(Internal("the error of "+e.meta.Name+" cannot be encoded as JSON"), e.meta), Tool: e.meta.Name}
		}
		return r.wrap(e, res, r.sourceOf(e, nil), r.now(), b)
	}
	return res
}

func (r *Registry) call(ctx context.Context, e *entry, raw []byte, opts *CallOptions) Result {
	m := e.meta
	// Gate.
	if te := r.gate(ctx, e, opts); te != nil {
		return r.fail(e, te)
	}
	// Validate and apply defaults.
	if m.IdempotencyKeyArg {
		rest, te := modelKey(raw, opts)
		if te != nil {
			return r.failed(e, raw, opts, te)
		}
		raw = rest
	}
	args, te := e.tool.Validator.Validate(raw)
	if te != nil {
		return r.failed(e, raw, opts, te)
	}
	if opts.DryRun {
		return r.dryRun(ctx, e, raw, args, opts)
	}
	// Idempotency.
	key := opts.IdempotencyKey
	if key == "" && m.IdempotencyRequired {
		return r.fail(e, missingKey(m))
	}
	if key != "" {
		return r.idempotent(ctx, e, raw, args, opts, key)
	}
	// Retry guard.
	if ex := r.guard.blocked(opts.StepID, m.Name, r.now()); ex != nil {
		return r.fail(e, ex)
	}
	data, te, _ := r.execute(ctx, e, e.tool.Execute, args, nil)
	if te != nil {
		return r.failed(e, raw, opts, te)
	}
	res, te := r.succeed(ctx, e, data, nil, time.Time{}, false)
	if te != nil {
		return r.failed(e, raw, opts, te)
	}
	r.guard.success(opts.StepID, m.Name)
	return res
}

// failed records a failure with the retry guard and builds its envelope.
func (r *Registry) failed(e *entry, raw []byte, opts *CallOptions, te *ToolError) Result {
	if ex := r.guard.failure(opts.StepID, e.meta.Name, raw, te, e.meta.MaxRetries, r.now()); ex != nil {
		return r.fail(e, ex)
	}
	return r.fail(e, te)
}

func (r *Registry) gate(ctx context.Context, e *entry, opts *CallOptions) *ToolError {
	a := opts.Autonomy
	if a == AutonomyDefault {
		a = r.autonomy
	}
	// A dry run has no side effects: read-only agents may preview.
	harmless := opts.DryRun && e.tool.DryRun != nil
	var te *ToolError
	switch {
	case a < e.need && !harmless:
		te = PermissionDenied(fmt.Sprintf("tool %s needs autonomy %s or more; this agent runs at %s", e.meta.Name, e.need, a)).
			WithSuggestion("Do not retry. Tell the user this action is outside what you may do, and what it would do.")
	case a == AutonomySupervised && e.approval && !opts.Approved && !opts.DryRun:
		te = ApprovalRequired(fmt.Sprintf("tool %s is %s risk and has side effects: the user must approve this call", e.meta.Name, e.meta.Risk))
		if e.tool.DryRun != nil {
			te.Suggestion = "Call it again as a dry run to get a preview, show the preview to the user and ask for approval."
		}
	}
	if te != nil {
		te.internal = true
		return te
	}
	for _, p := range r.policies {
		o := *opts // a copy, so that opts stays on the caller's stack
		if te := p(ctx, e.meta, &o); te != nil {
			return te
		}
	}
	return nil
}

func (r *Registry) dryRun(ctx context.Context, e *entry, raw []byte, args any, opts *CallOptions) Result {
	m := e.meta
	fn := e.tool.DryRun
	if fn == nil {
		if m.HasSideEffects {
			te := Unsupported("tool " + m.Name + " has side effects and no dry run").
				WithSuggestion("Describe to the user what the call would do and ask for approval before calling it for real.")
			te.internal = true
			return r.fail(e, te)
		}
		fn = e.tool.Execute // no side effects: the real call is its own preview
	}
	data, te, _ := r.execute(ctx, e, fn, args, nil)
	if te != nil {
		return r.failed(e, raw, opts, te)
	}
	if p, ok := data.(*Preview); ok && p != nil {
		p.DryRun = true
	} else if p, ok := data.(Preview); ok {
		p.DryRun = true
		data = p
	}
	res, te := r.succeed(ctx, e, data, nil, time.Time{}, false)
	if te != nil {
		return r.failed(e, raw, opts, te)
	}
	return res
}

// execute runs fn under the tool's deadline, turning panics and errors into
// a *ToolError. A tool that answers after its deadline gets a timeout; its
// late result goes to onLate (when set) and detached is true.
func (r *Registry) execute(ctx context.Context, e *entry, fn Func, args any, onLate func(any, *ToolError)) (data any, te *ToolError, detached bool) {
	if e.deadline <= 0 {
		if r.apart {
			data, te = r.runApart(ctx, e, fn, args)
		} else {
			data, te = r.protect(ctx, e, fn, args)
		}
		if te != nil && te.Code != CodeTimeout && ctx.Err() == context.DeadlineExceeded &&
			(errors.Is(te, context.DeadlineExceeded) || te.Code == CodeInternal) {
			te = callerTimeout(e) // the caller's budget, an outer tool's SLA, ran out
		}
		return data, te, false
	}
	sc := newSLACtx(ctx, e.deadline)
	switch {
	case !r.detach && !r.apart:
		data, te = r.protect(sc, e, fn, args)
	case !r.detach:
		data, te = r.runApart(sc, e, fn, args)
	default:
		ch := make(chan toolOut, 1)
		var state atomic.Int32 // 0 running, 1 answered the caller, 2 abandoned
		go func() {
			var d any
			var t *ToolError
			exited := true
			defer func() { // also when fn calls runtime.Goexit
				if exited {
					d, t = nil, r.goexitErr(ctx, e)
				}
				if state.CompareAndSwap(0, 1) {
					ch <- toolOut{d, t}
				} else {
					sc.release()
					if onLate != nil {
						onLate(d, t)
					}
				}
			}()
			d, t = r.protect(sc, e, fn, args)
			exited = false
		}()
		select {
		case o := <-ch:
			data, te = o.data, o.te
		case <-sc.Done():
			if state.CompareAndSwap(0, 2) {
				return nil, r.timeoutErr(sc, e), true
			}
			o := <-ch // the tool answered at the same moment
			data, te = o.data, o.te
		}
	}
	if te != nil && te.Code != CodeTimeout && sc.Err() != nil {
		// An error that says the context ended, or that came after the
		// deadline (such as a dependency's, called with CallTool), is the
		// deadline's.
		if errors.Is(te, context.DeadlineExceeded) || errors.Is(te, context.Canceled) || te.Code == CodeInternal || sc.expired() {
			te = r.timeoutErr(sc, e)
		}
	}
	if te == nil && sc.expired() {
		// The tool ignored its context and answered late: the answer is
		// still timeout, as in detached mode; the late result goes to onLate.
		te = r.timeoutErr(sc, e)
		sc.release()
		r.log.LogAttrs(ctx, slog.LevelWarn, "toolcat: tool answered after its deadline",
			slog.String("tool", e.meta.Name), slog.Duration("deadline", e.deadline))
		if onLate != nil {
			onLate(data, nil)
		}
		return nil, te, true
	}
	sc.release()
	return data, te, false
}

func (r *Registry) timeoutErr(sc *slaCtx, e *entry) *ToolError {
	if sc.expired() {
		te := Timeout(fmt.Sprintf("tool %s did not answer within its deadline of %v", e.meta.Name, e.deadline)).
			WithDetail("deadline_ms", e.deadline.Milliseconds())
		if e.meta.HasSideEffects {
			te.Suggestion = "The action may still have taken effect. Check before repeating it, " +
				"or retry with the same idempotency key, which returns its result if it completed."
		}
		return te
	}
	if sc.Context.Err() == context.DeadlineExceeded {
		return callerTimeout(e)
	}
	return Timeout("the call was cancelled: " + sc.Err().Error())
}

// runApart runs fn through protect on a goroutine of its own, for
// WithToolGoroutine: an idle one kept for reuse (no allocation), or a new
// one.
func (r *Registry) runApart(ctx context.Context, e *entry, fn Func, args any) (any, *ToolError) {
	var w *toolWorker
	select {
	case w = <-r.workers:
	default:
		w = &toolWorker{jobs: make(chan toolJob), out: make(chan toolOut, 1)}
		go r.work(w)
	}
	w.jobs <- toolJob{ctx, e, fn, args}
	o := <-w.out
	return o.data, o.te
}

// idleWorkers is how many idle tool goroutines a registry keeps.
const idleWorkers = 64

type toolWorker struct {
	jobs chan toolJob
	out  chan toolOut
}

type toolJob struct {
	ctx  context.Context
	e    *entry
	fn   Func
	args any
}

type toolOut struct {
	data any
	te   *ToolError
}

// work runs jobs until the registry has enough idle workers, or a tool
// calls runtime.Goexit, which ends this goroutine.
func (r *Registry) work(w *toolWorker) {
	for j := range w.jobs {
		r.protectTo(w.out, j.ctx, j.e, j.fn, j.args)
		select {
		case r.workers <- w:
		default:
			return
		}
	}
}

// protectTo sends protect's answer, or internal when fn called
// runtime.Goexit.
func (r *Registry) protectTo(ch chan<- toolOut, ctx context.Context, e *entry, fn Func, args any) {
	exited := true
	defer func() {
		if exited {
			ch <- toolOut{te: r.goexitErr(ctx, e)}
		}
	}()
	d, t := r.protect(ctx, e, fn, args)
	exited = false
	ch <- toolOut{d, t}
}

func (r *Registry) goexitErr(ctx context.Context, e *entry) *ToolError {
	r.log.LogAttrs(ctx, slog.LevelError, "toolcat: tool called runtime.Goexit",
		slog.String("tool", e.meta.Name))
	te := Internal("tool " + e.meta.Name + " failed unexpectedly")
	te.internal = true
	return te
}

// callerTimeout is the answer of a tool whose caller's deadline passed
// before its own: the budget of an outer tool's SLA, or the host's.
func callerTimeout(e *entry) *ToolError {
	te := Timeout("tool " + e.meta.Name + " did not finish before the deadline of the call that made it")
	if e.meta.HasSideEffects {
		te.Suggestion = "The action may still have taken effect. Check before repeating it, " +
			"or retry with the same idempotency key, which returns its result if it completed."
	}
	return te
}

// protect runs fn, recovering a panic as internal and logging its stack.
// When fn calls runtime.Goexit its goroutine ends all the same, which
// protect cannot stop: it logs it, and the callers that run fn on a
// goroutine of their own answer internal.
func (r *Registry) protect(ctx context.Context, e *entry, fn Func, args any) (data any, te *ToolError) {
	returned := false
	defer func() {
		if p := recover(); p != nil {
			r.log.LogAttrs(ctx, slog.LevelError, "toolcat: tool panicked",
				slog.String("tool", e.meta.Name), slog.Any("panic", p), slog.String("stack", string(debug.Stack())))
			data, te = nil, Internal("tool "+e.meta.Name+" failed unexpectedly")
			te.internal = true
		} else if !returned {
			r.log.LogAttrs(ctx, slog.LevelError, "toolcat: tool called runtime.Goexit; its goroutine ends",
				slog.String("tool", e.meta.Name), slog.String("stack", string(debug.Stack())))
		}
	}()
	d, err := fn(ctx, args)
	returned = true
	if err != nil {
		// Whatever the error says, the tool wrote it: mark a copy (the
		// tool may return a shared value) so that fail wraps it.
		cp := *AsToolError(err)
		cp.toolText = true
		return nil, &cp
	}
	return d, nil
}

// untrusted wraps data for the model. raw, when set, is data's JSON.
func (r *Registry) untrusted(e *entry, data any, raw json.RawMessage, at time.Time, replayed bool) Result {
	source := r.sourceOf(e, data)
	if raw == nil {
		b, err := marshalNoEscape(data)
		if err != nil {
			return r.fail(e, Internal("tool "+e.meta.Name+" returned data that cannot be encoded as JSON"))
		}
		raw = b
	}
	return r.untrustedFrom(e, source, raw, at, replayed)
}

// sourceOf names where data came from, for the untrusted wrapper.
func (r *Registry) sourceOf(e *entry, data any) string {
	if !e.meta.ReturnsUntrusted {
		return ""
	}
	if s, ok := data.(UntrustedSourcer); ok {
		if src := s.UntrustedSource(); src != "" {
			return src
		}
	}
	if e.meta.UntrustedSource != "" {
		return e.meta.UntrustedSource
	}
	return "tool:" + e.meta.Name
}

// untrustedFrom builds the wrapped success envelope of raw, the tool's
// data as JSON; Data stays that plain JSON.
func (r *Registry) untrustedFrom(e *entry, source string, raw json.RawMessage, at time.Time, replayed bool) Result {
	if source == "" {
		source = "tool:" + e.meta.Name
	}
	return r.wrap(e, Result{Success: true, Data: raw, Replayed: replayed, Tool: e.meta.Name}, source, at, raw)
}

// wrap puts the envelope res, whose tool-written part encodes as content,
// in one untrusted block with a marker drawn afresh.
func (r *Registry) wrap(e *entry, res Result, source string, at time.Time, content []byte) Result {
	u, err := NewUntrusted(r.rnd, source, at, content)
	if err != nil {
		r.log.Error("toolcat: wrapping untrusted output", slog.String("tool", e.meta.Name), slog.Any("err", err))
		te := Internal("the output of " + e.meta.Name + " could not be wrapped as untrusted data")
		te.internal = true
		return Result{Error: finish(te, e.meta), Tool: e.meta.Name}
	}
	res.Untrusted = u
	return res
}

// Revert undoes an earlier call of tool name, given that call's raw
// arguments and the JSON of the data it returned. It runs through the same
// gate, validation, deadline and panic recovery as Call; a tool without a
// Revert function answers unsupported, a disabled or blocked one
// permission_denied.
func (r *Registry) Revert(ctx context.Context, name string, rawArgs []byte, result json.RawMessage, opts CallOptions) (res Result) {
	e, ok := r.tools.Load().byName[name]
	if !ok {
		return r.notFound(name)
	}
	defer r.recoverCall(ctx, e, &res)
	if te := r.stopped(e); te != nil {
		return r.fail(e, te)
	}
	if e.tool.Revert == nil {
		te := Unsupported("tool " + name + " cannot be reverted")
		te.internal = true
		return r.fail(e, te)
	}
	opts.DryRun = false
	if te := r.gate(ctx, e, &opts); te != nil {
		return r.fail(e, te)
	}
	if e.meta.IdempotencyKeyArg {
		// The arguments as the model sent them: the key is not the tool's.
		rest, te := modelKey(rawArgs, &opts)
		if te != nil {
			return r.fail(e, te)
		}
		rawArgs = rest
	}
	args, te := e.tool.Validator.Validate(rawArgs)
	if te != nil {
		return r.fail(e, te)
	}
	fn := func(ctx context.Context, a any) (any, error) { return e.tool.Revert(ctx, a, result) }
	data, te, _ := r.execute(ctx, e, fn, args, nil)
	if te != nil {
		return r.fail(e, te)
	}
	var raw json.RawMessage // data's JSON, encoded once for the cap and the wrapper
	if e.maxResult > 0 || e.meta.ReturnsUntrusted {
		raw, _ = marshalNoEscape(data)
	}
	if e.maxResult > 0 && len(raw) > e.maxResult { // the size cap; the result schema is not the revert's
		return r.fail(e, r.tooLarge(ctx, e, len(raw)))
	}
	if e.meta.ReturnsUntrusted {
		return r.untrusted(e, data, raw, r.now(), false)
	}
	return Result{Success: true, Data: data, Tool: name}
}
