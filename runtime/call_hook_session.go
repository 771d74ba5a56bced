package runtime

import (
	"context"
	"encoding/json"
)

// Answer runs fn as the answer to a call of the tool meta describes that
// the session's host answers itself rather than the registry, as code
// mode does for execute_code. The registry's CallHook and observers are
// told of it as of the session's built-in tools (CallEvent.Session): fn
// runs with the context BeforeCall returned, so that the calls it makes
// through the session nest under the call's span; they do not inherit the
// model's call id (ContextWithCallID). meta must not be
// modified, and should be the same value for every call of that tool: a
// hook may keep what it derives from it (a span's attributes) by it. opts
// are the call's options as the host has them, for the hook. With a nil
// meta, fn runs and nobody is told.
func (s *Session) Answer(ctx context.Context, meta *Meta, raw []byte, opts CallOptions, fn func(context.Context) Result) Result {
	if meta == nil {
		return fn(ctx)
	}
	return s.answer(ctx, meta.Name, meta, raw, opts, fn)
}

// answer runs fn, the session's own answer to a call of name (meta nil:
// no tool has that name), with the hook and observers around it.
func (s *Session) answer(ctx context.Context, name string, meta *Meta, raw []byte, opts CallOptions, fn func(context.Context) Result) Result {
	w := s.r.obs.w.Load()
	if w == nil {
		return fn(ctx)
	}
	return s.r.answered(ctx, w, name, meta, raw, opts, false, fn)
}

// refuse answers a call of e with refusal, the session's own refusal
// of it before the registry runs it, with the hook and observers around it.
func (s *Session) refuse(ctx context.Context, e *entry, raw []byte, opts CallOptions, refusal func() Result) Result {
	w := s.r.obs.w.Load()
	if w == nil {
		return refusal()
	}
	return s.r.answered(ctx, w, e.meta.Name, e.meta, raw, opts, false, func(context.Context) Result { return refusal() })
}

// Revert undoes an earlier call of tool name, given that call's raw
// arguments and the JSON of the data it returned. It runs through the same
// gate, validation, deadline and panic recovery as Call; a tool without a
// Revert function answers unsupported, a disabled or blocked one
// permission_denied. The registry's CallHook runs around it (CallStart and
// CallEvent have Revert set); observers are not told of it.
func (r *Registry) Revert(ctx context.Context, name string, rawArgs []byte, result json.RawMessage, opts CallOptions) Result {
	w := r.obs.w.Load()
	if w == nil || w.hook == nil {
		return r.revert(ctx, name, rawArgs, result, opts)
	}
	var meta *Meta
	if e := r.tools.Load().byName[name]; e != nil {
		meta = e.meta
	}
	return r.answered(ctx, w, name, meta, rawArgs, opts, true, func(ctx context.Context) Result {
		return r.revert(ctx, name, rawArgs, result, opts)
	})
}

// answered runs fn, an answer to a call of name that is not a Registry.Call
// (a session's own, or a revert), with the hook around it, and tells the
// observers of it unless it is a revert.
func (r *Registry) answered(ctx context.Context, w *watchers, name string, meta *Meta, raw []byte, opts CallOptions, revert bool, fn func(context.Context) Result) Result {
	tool := name
	if meta == nil {
		tool = clipName(name)
	}
	if w.hook != nil {
		ctx = w.hook.BeforeCall(ctx, CallStart{Tool: tool, Meta: meta, Args: raw, Options: opts,
			CallID: CallIDFrom(ctx), Revert: revert})
	}
	start := r.now()
	res := fn(withoutCallID(ctx)) // what fn calls is not the model's call
	ev := CallEvent{Tool: tool, Unknown: meta == nil, Duration: r.now().Sub(start), DryRun: opts.DryRun,
		Replayed: res.Replayed, Session: !revert, Revert: revert}
	if res.Error != nil {
		ev.Code = res.Error.Code
	}
	if meta != nil && meta.SLA > 0 && (ev.Duration > meta.SLA || ev.Code == CodeTimeout) {
		ev.SLAMiss = true
	}
	if !revert {
		for _, fn := range w.fns {
			(*fn)(ev)
		}
	}
	if w.hook != nil {
		w.hook.AfterCall(ctx, ev, res)
	}
	return res
}
