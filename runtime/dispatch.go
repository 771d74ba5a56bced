package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// Call runs the tool name with the raw JSON arguments and returns the
// envelope; it never panics and never returns a Go error. The steps, in
// order: look up; autonomy and policy gate; validate and apply defaults;
// idempotency; retry guard; deadline; execute (panics become internal);
// result size cap and result check; untrusted wrapping. A tool disabled or
// blocked (DisableTool) answers permission_denied after the look-up.
func (r *Registry) Call(ctx context.Context, name string, rawArgs []byte, opts CallOptions) Result {
	return r.callNamed(ctx, r.tools.Load().byName[name], name, rawArgs, opts)
}

// callNamed is Call of e, the tool named name (nil: none is), looked up.
func (r *Registry) callNamed(ctx context.Context, e *entry, name string, rawArgs []byte, opts CallOptions) Result {
	if w := r.obs.w.Load(); w != nil {
		return r.observed(ctx, w, e, name, rawArgs, opts)
	}
	return r.callEntry(ctx, e, name, rawArgs, opts)
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
	var args any
	var te *ToolError
	var text []byte // the call arena's room, when the validator made one
	if e.arena != nil {
		args, text, te = e.arena.validateArena(raw)
	} else {
		args, te = e.tool.Validator.Validate(raw)
	}
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
	if ex := r.guard.blocked(opts.StepID, m.Name, r.now); ex != nil {
		return r.fail(e, ex)
	}
	data, te, _ := r.execute(ctx, e, e.tool.Execute, args, nil)
	if te != nil {
		return r.failed(e, raw, opts, te)
	}
	res, te := r.succeed(ctx, e, data, nil, time.Time{}, text)
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
		te = ApprovalRequired(e.meta.approvalWhy() + ": the user must approve this call")
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
	res, te := r.succeed(ctx, e, data, nil, time.Time{}, nil)
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

// revert is Revert without the hook.
func (r *Registry) revert(ctx context.Context, name string, rawArgs []byte, result json.RawMessage, opts CallOptions) (res Result) {
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
		b, n, over, _ := encodeJSON("", data, "", e.maxResult, false, &e.resultEnc)
		if over {
			return r.fail(e, r.tooLargeAtLeast(ctx, e, n)) // refused before it is encoded whole
		}
		raw = b
	}
	if e.maxResult > 0 && len(raw) > e.maxResult { // the size cap; the result schema is not the revert's
		return r.fail(e, r.tooLarge(ctx, e, len(raw)))
	}
	if e.meta.ReturnsUntrusted {
		return r.untrusted(e, data, raw, r.now(), false)
	}
	return Result{Success: true, Data: data, Tool: name}
}
