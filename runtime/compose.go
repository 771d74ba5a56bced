package runtime

import (
	"context"
	"slices"
	"strconv"
	"sync"
)

// Composition: a tool's body calls other tools of the registry with
// CallTool, through the session its own call runs in. The call inherits
// the outer call's retry-guard step, its deadline (the outer SLA is the
// budget), its approval, and an idempotency key derived from the outer
// one; untrusted content a called tool returns taints the session and
// wraps the outer tool's result too. A tool may call only the tools its
// catalog entry lists in dependencies: the declared graph is a contract.

// frame is one call running in a session.
type frame struct {
	sess     *Session
	entry    *entry
	step     string
	approved bool
	parent   *frame

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

func (f *frame) untrustedSource() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.untrusted
}

// CallTool calls tool name with the raw JSON arguments from the body of
// another tool, in the session that tool's call runs in (ctx is the
// context the body was given). Outside a session call it answers internal.
func CallTool(ctx context.Context, name string, raw []byte) Result {
	f := frameFrom(ctx)
	if f == nil {
		te := Internal("tool " + quoteClipped(name, maxEchoName) + " was called from a tool body outside a session: call the outer tool through Session.Call")
		te.internal = true
		return Result{Error: finish(te, nil), Tool: name}
	}
	return f.sess.child(ctx, f, name, raw, CallOptions{})
}

// child is a call of tool name made by the body of f's tool.
func (s *Session) child(ctx context.Context, f *frame, name string, raw []byte, opts CallOptions) Result {
	e, ok := s.r.tools.Load().byName[name]
	if !ok {
		return s.r.notFound(name)
	}
	parent := f.entry.meta
	if !slices.Contains(parent.Dependencies, name) {
		te := PermissionDenied("tool "+parent.Name+" called "+name+", which is not among its dependencies in the catalog").
			WithSuggestion("Do not retry: the tool "+parent.Name+" is faulty. Tell the user it failed.").
			WithRetryAllowed(false).WithDetail("missing_dependency", name)
		te.internal = true
		return s.r.fail(e, te)
	}
	st, err := s.load(ctx)
	if err != nil {
		return s.stateFailed(ctx, e, err)
	}
	opts.StepID = f.step
	if opts.IdempotencyKey == "" {
		if k := IdempotencyKeyFrom(ctx); k != "" {
			opts.IdempotencyKey = k + "/" + name + "#" + strconv.Itoa(f.next(name))
		}
	}
	opts.Approved = opts.Approved || f.approved
	s.fill(&opts, st)
	res := s.run(ctx, e, raw, opts, st, f)
	if res.Untrusted != nil {
		f.sawUntrusted(res.Untrusted.Source)
	}
	return res
}

// carryTaint wraps the successful result of e, a tool whose body took in
// untrusted content through CallTool, as untrusted from source.
func (s *Session) carryTaint(e *entry, res Result, source string) Result {
	raw, err := dataJSON(res)
	if err != nil {
		return s.r.fail(e, Internal("the output of "+e.meta.Name+" cannot be encoded as JSON"))
	}
	return s.r.untrustedFrom(e, source, raw, s.r.now(), res.Replayed)
}
