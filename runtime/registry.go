package runtime

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
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

// Registry holds tools and dispatches calls to them. It is safe for
// concurrent use; tools may be registered while calls run.
type Registry struct {
	mu    sync.Mutex // serialises Register
	tools atomic.Pointer[toolSet]

	store        IdempotencyStore
	mem          *MemoryIdempotencyStore // store, when it is a MemoryIdempotencyStore (see storeCtx)
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
	// resultEnc and argsEnc remember the encoders of the tool's results
	// and arguments.
	resultEnc, argsEnc encoderCache
	// arena is the tool's Validator when it decodes into a call arena.
	arena arenaValidator
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
		guard:     newRetryGuard(DefaultRetryWindow),
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
		r.store = NewMemoryIdempotencyStore(IdempotencyStoreClock(r.now))
	}
	r.mem, _ = r.store.(*MemoryIdempotencyStore)
	if r.sessions == nil {
		r.sessions = NewMemorySessionStore(SessionStoreClock(r.now))
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
	e.arena, _ = t.Validator.(arenaValidator)
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
