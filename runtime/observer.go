package runtime

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// CallEvent describes one call the registry or a session answered, for
// metrics: every Registry.Call, and so every tool call of a Session that
// reaches a tool, every call a tool's body makes with CallTool, and the
// calls a session answers itself (Session set): its built-in tools, a
// hidden tool no search has found yet, a name the registry does not have,
// its refusals before the registry runs a tool (its state cannot be read,
// the tool is switched off, the user denied the same call before, the
// arguments of a call that needs approval are invalid), and the calls its
// host answers with Session.Answer (code mode's execute_code). A call a session keeps
// pending for approval is not one (it has not run; an ApprovalHook hears
// of it), nor is a Registry.Revert (only the CallHook hears of it, with
// Revert set).
type CallEvent struct {
	// Tool is the tool called (at most 128 bytes of the name asked for,
	// when Unknown).
	Tool string
	// Unknown is set when the registry has no such tool: the call answered
	// not_found.
	Unknown bool
	// Code is the error code, "" for success.
	Code Code
	// Duration is how long the registry took to answer, from the
	// registry's clock (WithClock).
	Duration time.Duration
	// DryRun is set for a dry run.
	DryRun bool
	// Replayed is set when an idempotency key replayed a stored result.
	Replayed bool
	// Retry is set when the same tool failed earlier in the same step
	// (CallOptions.StepID), so this call retries it.
	Retry bool
	// RetryExhausted is set when the retry guard shaped the answer: the
	// failure that used up the step's attempts, or a call refused after it
	// with retry_exhausted.
	RetryExhausted bool
	// SLAMiss is set when the tool has an SLA (sla_ms) and the call took
	// longer, or answered timeout.
	SLAMiss bool
	// Fallback names the fallback tool that answered instead
	// (WithAutoFallback), or is empty.
	Fallback string
	// Session is set when the session answered the call itself, not the
	// registry; Duration is then the session's whole answer.
	Session bool
	// Revert is set for a Registry.Revert, which only the CallHook is told
	// of: observers count calls, and a revert is part of an undo.
	Revert bool
}

// observers is what is told of every call: the observer functions and the
// CallHook, replaced whole on change; nil when there are none.
type observers struct {
	mu   sync.Mutex
	w    atomic.Pointer[watchers]
	hook CallHook // under mu
}

type watchers struct {
	fns  []*func(CallEvent)
	hook CallHook
}

// set stores fns and the hook, nil when there are none; o.mu is held.
func (o *observers) set(fns []*func(CallEvent)) {
	if len(fns) == 0 && o.hook == nil {
		o.w.Store(nil)
		return
	}
	o.w.Store(&watchers{fns: fns, hook: o.hook})
}

// setHook makes h the registry's CallHook.
func (o *observers) setHook(h CallHook) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.hook = h
	var fns []*func(CallEvent)
	if w := o.w.Load(); w != nil {
		fns = w.fns
	}
	o.set(fns)
}

// Observe adds fn to the functions told of every call the registry
// answers, after it answered, on the caller's goroutine: fn must be quick
// and safe for concurrent use. A registry without observers measures
// nothing. The function returned removes fn.
func (r *Registry) Observe(fn func(CallEvent)) (remove func()) {
	p := &fn
	o := &r.obs
	o.mu.Lock()
	var fns []*func(CallEvent)
	if w := o.w.Load(); w != nil {
		fns = slices.Clone(w.fns)
	}
	o.set(append(fns, p))
	o.mu.Unlock()
	return func() {
		o.mu.Lock()
		defer o.mu.Unlock()
		w := o.w.Load()
		if w == nil {
			return
		}
		o.set(slices.DeleteFunc(slices.Clone(w.fns), func(q *func(CallEvent)) bool { return q == p }))
	}
}

// observed runs a call of name, with the hook around it, and tells the
// observers of it.
func (r *Registry) observed(ctx context.Context, w *watchers, e *entry, name string, raw []byte, opts CallOptions) Result {
	retry := e != nil && r.guard.failedBefore(opts.StepID, name, r.now())
	if w.hook != nil {
		c := CallStart{Tool: name, Args: raw, Options: opts, CallID: CallIDFrom(ctx), Retry: retry}
		if e != nil {
			c.Meta = e.meta
		} else {
			c.Tool = clipName(name)
		}
		ctx = w.hook.BeforeCall(ctx, c)
	}
	start := r.now()
	res := r.callEntry(ctx, e, name, raw, opts)
	ev := CallEvent{Tool: name, Duration: r.now().Sub(start), DryRun: opts.DryRun, Replayed: res.Replayed, Retry: retry}
	if e == nil {
		ev.Tool, ev.Unknown = clipName(name), true
	} else if e.meta.SLA > 0 && ev.Duration > e.meta.SLA {
		ev.SLAMiss = true
	}
	if res.Error != nil {
		ev.Code = res.Error.Code
		ev.RetryExhausted = ev.Code == CodeRetryExhausted || res.Error.lastTry
		if ev.Code == CodeTimeout && e != nil && e.meta.SLA > 0 {
			ev.SLAMiss = true
		}
	}
	if res.Tool != "" && res.Tool != name && e != nil {
		ev.Fallback = res.Tool
	}
	for _, fn := range w.fns {
		(*fn)(ev)
	}
	if w.hook != nil {
		w.hook.AfterCall(ctx, ev, res)
	}
	return res
}
