package runtime

import (
	"context"
	"slices"
	"strconv"
	"sync"
)

// Composition: a tool's body calls other tools of the registry with
// CallTool. The call inherits the outer call's retry-guard step, its
// deadline (the outer SLA is the budget), its approval, sender and
// autonomy, whether it is a dry run (a preview acts nowhere), and an
// idempotency key derived from the outer one; untrusted
// content a called tool returns wraps the outer tool's result too (and, in
// a session, taints it). A tool may call only the tools its catalog entry
// lists in dependencies: the declared graph is a contract. Calls made in a
// session go through it (approval, journal, taint); calls made through
// Registry.Call go through the registry.

// frame is one call of a tool that may call others.
type frame struct {
	r     *Registry
	sess  *Session // nil for a call made through Registry.Call
	entry *entry
	opts  CallOptions // the outer call's: step, approval, sender, autonomy
	// untrustedVia names a returns_untrusted tool the outer tool's
	// dependencies lead to, for replays: they call nothing, yet the first
	// run took that tool's content in.
	untrustedVia string

	mu        sync.Mutex
	calls     map[string]int // calls made so far, by tool
	untrusted string         // source of the last untrusted content a called tool returned
}

type frameName struct{}

// frameCtx carries a frame in one allocation.
type frameCtx struct {
	context.Context
	f *frame
}

func (c *frameCtx) Value(k any) any {
	if _, ok := k.(frameName); ok {
		return c.f
	}
	return c.Context.Value(k)
}

func withFrame(ctx context.Context, f *frame) context.Context { return &frameCtx{ctx, f} }

func frameFrom(ctx context.Context) *frame {
	f, _ := ctx.Value(frameName{}).(*frame)
	return f
}

// enter gives a call of e a frame when e depends on other tools and the
// session has not made one already; f is nil otherwise.
func (r *Registry) enter(ctx context.Context, e *entry, opts *CallOptions) (context.Context, *frame) {
	ti := r.toolIndex()
	if !ti.composite[e.meta.Name] {
		return ctx, nil
	}
	if f := frameFrom(ctx); f != nil && f.entry == e {
		return ctx, nil // made by Session.exec, which carries the taint itself
	}
	f := &frame{r: r, entry: e, opts: *opts, untrustedVia: ti.untrustedVia[e.meta.Name]}
	return withFrame(ctx, f), f
}

// next counts a call of tool from the frame and returns its ordinal.
func (f *frame) next(tool string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.calls == nil {
		f.calls = map[string]int{}
	}
	f.calls[tool]++
	return f.calls[tool]
}

func (f *frame) sawUntrusted(source string) {
	f.mu.Lock()
	f.untrusted = source
	f.mu.Unlock()
}

// untrustedSource is the source to wrap the outer tool's result res with,
// or "".
func (f *frame) untrustedSource(res Result) string {
	f.mu.Lock()
	src := f.untrusted
	f.mu.Unlock()
	if src == "" && res.Replayed && f.untrustedVia != "" {
		src = "tool:" + f.untrustedVia
	}
	return src
}

// CallTool calls tool name with the raw JSON arguments from the body of
// another tool (ctx is the context the body was given), in the session
// that tool's call runs in, if any. The outer tool must list name in its
// catalog dependencies; a call from anywhere else answers internal.
func CallTool(ctx context.Context, name string, raw []byte) Result {
	f := frameFrom(ctx)
	if f == nil {
		te := Internal("tool " + quoteClipped(name, maxEchoName) + " was called with CallTool outside the body of a tool that depends on it")
		te.internal = true
		return Result{Error: finish(te, nil), Tool: name}
	}
	ctx = withoutCallID(ctx)
	if f.sess != nil {
		return f.sess.child(ctx, f, name, raw)
	}
	e, fail := f.callee(ctx, name)
	if fail != nil {
		return *fail
	}
	opts := f.childOptions(ctx, name)
	cf := &frame{r: f.r, entry: e, opts: opts, untrustedVia: f.r.toolIndex().untrustedVia[name]}
	res := f.r.carryTaint(e, cf, f.r.Call(withFrame(ctx, cf), name, raw, opts))
	f.took(res)
	return res
}

// callee looks up the tool f's tool calls, and checks that it is declared.
func (f *frame) callee(_ context.Context, name string) (*entry, *Result) {
	e, ok := f.r.tools.Load().byName[name]
	if !ok {
		res := f.r.notFound(name)
		return nil, &res
	}
	outer := f.entry.meta
	if !slices.Contains(outer.Dependencies, name) {
		te := PermissionDenied("tool "+outer.Name+" called "+name+", which is not among its dependencies in the catalog").
			WithSuggestion("Do not retry: the tool "+outer.Name+" is faulty. Tell the user it failed.").
			WithRetryAllowed(false).WithDetail("missing_dependency", name)
		te.internal = true
		res := f.r.fail(e, te)
		return nil, &res
	}
	return e, nil
}

// childOptions are the options of a call f's tool makes of tool name.
func (f *frame) childOptions(ctx context.Context, name string) CallOptions {
	opts := CallOptions{StepID: f.opts.StepID, Approved: f.opts.Approved, Sender: f.opts.Sender,
		Autonomy: f.opts.Autonomy, KeyScope: f.opts.KeyScope, DryRun: f.opts.DryRun} // a dry run's dependencies run dry too
	if k := IdempotencyKeyFrom(ctx); k != "" {
		opts.IdempotencyKey = k + "/" + name + "#" + strconv.Itoa(f.next(name))
	}
	return opts
}

// took notes untrusted content in the result of a call f's tool made.
func (f *frame) took(res Result) {
	if res.Untrusted != nil {
		f.sawUntrusted(res.Untrusted.Source)
	}
}

// carryTaint wraps the successful result of e, whose body took in
// untrusted content through CallTool, as untrusted.
func (r *Registry) carryTaint(e *entry, f *frame, res Result) Result {
	if !res.Success || res.Untrusted != nil {
		return res
	}
	src := f.untrustedSource(res)
	if src == "" {
		return res
	}
	raw, err := dataJSON(res)
	if err != nil {
		return r.fail(e, Internal("the output of "+e.meta.Name+" cannot be encoded as JSON"))
	}
	return r.untrustedFrom(e, src, raw, r.now(), res.Replayed)
}

// child is a call of tool name made by the body of f's tool in a session.
func (s *Session) child(ctx context.Context, f *frame, name string, raw []byte) Result {
	e, fail := f.callee(ctx, name)
	if fail != nil {
		return *fail
	}
	st, err := s.load(ctx)
	if err != nil {
		return s.stateFailed(ctx, e, err)
	}
	opts := f.childOptions(ctx, name)
	s.fill(&opts, st)
	res := s.run(ctx, e, raw, opts, st, f)
	f.took(res)
	return res
}
