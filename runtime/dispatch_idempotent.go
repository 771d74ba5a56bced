package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"
)

// idempotent runs a call that carries an idempotency key: one execution per
// key and arguments, replays after it, conflicts for other arguments, and
// no execution at all when the store cannot be reached.
func (r *Registry) idempotent(ctx context.Context, e *entry, raw []byte, args any, opts *CallOptions, key string) Result {
	m := e.meta
	fp, err := fingerprint(m.Name, args)
	if err != nil {
		return r.fail(e, Internal("the arguments of "+m.Name+" cannot be encoded: "+err.Error()))
	}
	if r.unflushedN.Load() > 0 {
		if res, ok := r.flush(ctx, e, key, fp); ok {
			return res
		}
	}
	lease := 10 * r.lease
	if e.deadline > 0 {
		lease = e.deadline + r.lease
	}
	claim, err := r.store.Acquire(ctx, key, fp, lease)
	if err != nil {
		if ctx.Err() != nil {
			te := Timeout("gave up waiting for the call in flight with the same idempotency key: " + ctx.Err().Error()).
				WithSuggestion("Retry the same call with the same idempotency key to get its result.")
			te.internal = true
			return r.fail(e, te)
		}
		return r.storeDown(ctx, e, err)
	}
	switch {
	case claim.Record != nil:
		if claim.Record.Fingerprint != fp {
			return r.conflict(e, key, false)
		}
		return r.replay(e, claim.Record)
	case claim.PendingFingerprint != "":
		return r.conflict(e, key, true)
	}
	tok := claim.Token
	// The retry guard comes after the replay: a stored result is always
	// served.
	if ex := r.guard.blocked(opts.StepID, m.Name, r.now()); ex != nil {
		if err := r.store.Release(context.WithoutCancel(ctx), key, tok); err != nil {
			r.log.LogAttrs(ctx, slog.LevelWarn, "toolcat: releasing idempotency key",
				slog.String("tool", m.Name), slog.Any("err", err))
		}
		return r.fail(e, ex)
	}
	// Settle the claim once the tool has answered, even late (detached).
	settle := func(data any, te *ToolError, at time.Time) (Record, bool) {
		bg := context.WithoutCancel(ctx)
		if te != nil {
			if err := r.store.Release(bg, key, tok); err != nil {
				r.log.LogAttrs(ctx, slog.LevelWarn, "toolcat: releasing idempotency key",
					slog.String("tool", m.Name), slog.Any("err", err))
			}
			return Record{}, false
		}
		b, err := json.Marshal(data)
		if err != nil {
			_ = r.store.Release(bg, key, tok)
			return Record{}, false
		}
		rec := Record{Fingerprint: fp, Data: b, At: at, Source: r.sourceOf(e, data)}
		if err := r.store.Complete(bg, key, tok, rec, r.ttl); err != nil {
			if errors.Is(err, ErrLeaseLost) {
				r.log.LogAttrs(ctx, slog.LevelWarn, "toolcat: idempotency claim ran out before the tool answered",
					slog.String("tool", m.Name), slog.Duration("lease", lease))
			} else {
				r.log.LogAttrs(ctx, slog.LevelError, "toolcat: storing an idempotent result failed; it is kept in memory and written on the next use of the key",
					slog.String("tool", m.Name), slog.Any("err", err))
				r.unflushedM.Lock()
				if _, ok := r.unflushed[key]; !ok {
					r.unflushedN.Add(1)
				}
				r.unflushed[key] = unflushedResult{token: tok, rec: rec}
				r.unflushedM.Unlock()
			}
		}
		return rec, true
	}
	data, te, detached := r.execute(withIdempotencyKey(ctx, key), e, e.tool.Execute, args, func(d any, t *ToolError) { settle(d, t, r.now()) })
	if detached {
		// The detached tool still runs and settles the claim itself.
		return r.failed(e, raw, opts, te)
	}
	rec, ok := settle(data, te, r.now())
	if te != nil {
		return r.failed(e, raw, opts, te)
	}
	if !ok {
		return r.fail(e, Internal("tool "+m.Name+" returned data that cannot be encoded as JSON"))
	}
	r.guard.success(opts.StepID, m.Name)
	if m.ReturnsUntrusted {
		return r.untrusted(e, data, rec.Data, rec.At, false)
	}
	return Result{Success: true, Data: data, Tool: m.Name}
}

func (r *Registry) replay(e *entry, rec *Record) Result {
	if e.meta.ReturnsUntrusted {
		return r.untrustedFrom(e, rec.Source, rec.Data, rec.At, true)
	}
	return Result{Success: true, Data: rec.Data, Replayed: true, Tool: e.meta.Name}
}

func (r *Registry) conflict(e *entry, key string, pending bool) Result {
	msg := "idempotency key " + key + " was already used for a call with other arguments"
	if pending {
		msg = "idempotency key " + key + " is held by a call in flight with other arguments"
	}
	te := IdempotencyConflict(msg).WithDetail("idempotency_key", key)
	te.internal = true
	return r.fail(e, te)
}

func (r *Registry) storeDown(ctx context.Context, e *entry, err error) Result {
	r.log.LogAttrs(ctx, slog.LevelError, "toolcat: idempotency store unreachable",
		slog.String("tool", e.meta.Name), slog.Any("err", err))
	te := DependencyUnavailable("the idempotency store is unreachable, so "+e.meta.Name+
		" did not run: a call with an idempotency key runs only when it can be recorded").
		WithSuggestion("Retry the same call with the same idempotency key in a little while; if it keeps failing, tell the user the action could not be done safely.").
		WithDetail("idempotency_store", "unavailable").
		WithCause(err)
	te.internal = true
	return r.fail(e, te)
}

// flush writes a result whose Complete failed before the key is used again,
// then answers from it.
func (r *Registry) flush(ctx context.Context, e *entry, key, fp string) (Result, bool) {
	r.unflushedM.Lock()
	defer r.unflushedM.Unlock()
	u, ok := r.unflushed[key]
	if !ok {
		return Result{}, false
	}
	err := r.store.Complete(context.WithoutCancel(ctx), key, u.token, u.rec, r.ttl)
	if err != nil && !errors.Is(err, ErrLeaseLost) {
		return r.storeDown(ctx, e, err), true
	}
	delete(r.unflushed, key)
	r.unflushedN.Add(-1)
	if u.rec.Fingerprint != fp {
		return r.conflict(e, key, false), true
	}
	rec := u.rec
	return r.replay(e, &rec), true
}

// Flush writes the results whose storing failed while the idempotency store
// was unreachable. Calls do it for their own key; a host may call Flush
// periodically or before exiting.
func (r *Registry) Flush(ctx context.Context) error {
	r.unflushedM.Lock()
	defer r.unflushedM.Unlock()
	var errs []error
	for key, u := range r.unflushed {
		err := r.store.Complete(ctx, key, u.token, u.rec, r.ttl)
		if err != nil && !errors.Is(err, ErrLeaseLost) {
			errs = append(errs, err)
			continue
		}
		delete(r.unflushed, key)
		r.unflushedN.Add(-1)
	}
	return errors.Join(errs...)
}
