package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"
)

// idempotent runs a call that carries an idempotency key: one execution per
// key and arguments, replays after it, conflicts for other arguments, and
// no execution at all when the store cannot be reached.
//
// Every store operation is bounded (see storeTimeout), and every way out of
// a successful Acquire, a panic included, settles the claim: Complete,
// Release, or the unflushed results written on the next use of the key.
func (r *Registry) idempotent(ctx context.Context, e *entry, raw []byte, args any, opts *CallOptions, key string) Result {
	m := e.meta
	fp, err := fingerprint(m.Name, args, &e.argsEnc)
	if err != nil {
		return r.fail(e, Internal("the arguments of "+m.Name+" cannot be encoded: "+err.Error()))
	}
	if r.unflushedN.Load() > 0 {
		if res, ok := r.flush(ctx, e, key, fp, opts.KeyScope); ok {
			return res
		}
	}
	lease := 10 * r.lease
	if e.deadline > 0 {
		lease = e.deadline + r.lease
	}
	actx, sc := r.storeCtx(ctx, e, false)
	claim, err := r.storeAcquire(actx, m.Name, key, fp, lease, r.storeTimeout(e))
	late := sc != nil && ended(sc)
	sc.release()
	if err != nil {
		return r.acquireFailed(ctx, e, err, late)
	}
	switch {
	case claim.Record != nil:
		if claim.Record.Fingerprint != fp {
			return r.conflict(e, key, opts.KeyScope, false)
		}
		return r.replay(e, claim.Record)
	case claim.PendingFingerprint != "":
		return r.conflict(e, key, opts.KeyScope, true)
	}
	h := &held{r: r, e: e, ctx: ctx, key: key, token: claim.Token, fp: fp, lease: lease}
	defer h.abandon()
	// The retry guard comes after the replay: a stored result is always
	// served.
	if ex := r.guard.blocked(opts.StepID, m.Name, r.now); ex != nil {
		h.settle(nil, ex, time.Time{})
		return r.fail(e, ex)
	}
	data, te, detached := r.execute(withIdempotencyKey(ctx, key), e, e.tool.Execute, args, func(d any, t *ToolError) { h.settle(d, t, r.now()) })
	if detached {
		// The tool answered late, or still runs: the late path settles
		// the claim.
		h.late = true
		return r.failed(e, raw, opts, te)
	}
	rec, ok := h.settle(data, te, r.now())
	if te != nil {
		return r.failed(e, raw, opts, te)
	}
	if !ok {
		return r.fail(e, Internal("tool "+m.Name+" returned data that cannot be encoded as JSON"))
	}
	if rec.Oversize > 0 {
		return r.failed(e, raw, opts, r.tooLargeAtLeast(ctx, e, rec.Oversize))
	}
	res, te := r.succeed(ctx, e, data, rec.Data, rec.At, nil)
	if te != nil {
		return r.failed(e, raw, opts, te)
	}
	r.guard.success(opts.StepID, m.Name)
	return res
}

// held is a claim on a key, settled exactly once.
type held struct {
	r     *Registry
	e     *entry
	ctx   context.Context
	key   string
	token string
	fp    string
	lease time.Duration

	settled atomic.Bool
	late    bool // the late path of execute settles the claim
}

// settle stores a success (or, when it cannot be stored now, keeps it for
// the next use of the key) and releases the key after a failure. It never
// panics: a result whose encoding panics, or a store that panics, releases
// the key. ok reports that the result was encoded.
func (h *held) settle(data any, te *ToolError, at time.Time) (rec Record, ok bool) {
	if !h.settled.CompareAndSwap(false, true) {
		return Record{}, false
	}
	r, m := h.r, h.e.meta
	defer func() {
		if p := recover(); p != nil {
			r.log.LogAttrs(h.ctx, slog.LevelError, "toolcat: panic while storing an idempotent result; the key is released",
				slog.String("tool", m.Name), slog.Any("panic", p), slog.String("stack", string(debug.Stack())))
			h.release()
			rec, ok = Record{}, false
		}
	}()
	if te != nil {
		h.release()
		return Record{}, false
	}
	rec = Record{Fingerprint: h.fp, At: at, Source: r.sourceOf(h.e, data)}
	if n, over := h.e.surelyOverCap(data); over {
		rec.Oversize = n // kept by its size, never encoded whole
	}
	if rec.Oversize == 0 {
		b, err := json.Marshal(data)
		if err != nil {
			h.release()
			return Record{}, false
		}
		rec.Data, rec.encoded = b, b
	}
	if b := rec.Data; h.e.maxResult > 0 && len(b) > h.e.maxResult {
		// A result the model may not read is not worth storing: its size
		// is, so that a retry answers the same without running again.
		rec.Data, rec.Oversize = nil, len(b)
	}
	sctx, sc := r.storeCtx(h.ctx, h.e, true)
	defer sc.release()
	if err := r.storeComplete(sctx, m.Name, h.key, h.token, rec); err != nil {
		if errors.Is(err, ErrLeaseLost) {
			r.log.LogAttrs(h.ctx, slog.LevelWarn, "toolcat: idempotency claim ran out before the tool answered",
				slog.String("tool", m.Name), slog.Duration("lease", h.lease))
		} else {
			r.log.LogAttrs(h.ctx, slog.LevelError, "toolcat: storing an idempotent result failed; it is kept in memory and written on the next use of the key",
				slog.String("tool", m.Name), slog.Any("err", err))
			r.unflushedM.Lock()
			if _, ok := r.unflushed[h.key]; !ok {
				r.unflushedN.Add(1)
			}
			r.unflushed[h.key] = unflushedResult{token: h.token, rec: rec}
			r.unflushedM.Unlock()
		}
	}
	return rec, true
}

// abandon releases a claim left unsettled, as when the call panicked.
func (h *held) abandon() {
	if h.late || !h.settled.CompareAndSwap(false, true) {
		return
	}
	h.release()
}

func (h *held) release() {
	sctx, sc := h.r.storeCtx(h.ctx, h.e, true)
	defer sc.release()
	if err := h.r.storeRelease(sctx, h.e.meta.Name, h.key, h.token); err != nil {
		h.r.log.LogAttrs(h.ctx, slog.LevelWarn, "toolcat: releasing idempotency key",
			slog.String("tool", h.e.meta.Name), slog.Any("err", err))
	}
}

// storeCtx bounds one store operation by storeTimeout. Operations after the
// tool ran (afterTool) do not end with the caller's context, so that its
// result is stored; the others end with it too. The context makes a timer
// only if the store waits on Done; release sc when the operation is over.
//
// The registry's own MemoryIdempotencyStore gets ctx as it is and a nil sc: it waits
// only for a call in flight, and bounds that wait itself (storeAcquire), so
// a replay costs no context.
func (r *Registry) storeCtx(ctx context.Context, e *entry, afterTool bool) (_ context.Context, sc *slaCtx) {
	if r.mem != nil {
		return ctx, nil
	}
	if afterTool {
		ctx = context.WithoutCancel(ctx)
	}
	sc = newSLACtx(ctx, r.storeTimeout(e))
	return sc, sc
}

// storeTimeout is how long one store operation may take, waiting for a
// call in flight with the same key included: WithIdempotencyStoreTimeout,
// else the tool's deadline, else defaultStoreTimeout.
func (r *Registry) storeTimeout(e *entry) time.Duration {
	switch {
	case r.storeTO > 0:
		return r.storeTO
	case e.deadline > 0:
		return e.deadline
	}
	return defaultStoreTimeout
}

// defaultStoreTimeout bounds store operations for tools without an SLA.
const defaultStoreTimeout = 10 * time.Second

// The store is called only through these, which turn a panic into an error.

// storeAcquire bounds the memory store's wait for a call in flight by
// within; other stores get a bounded ctx from storeCtx.
func (r *Registry) storeAcquire(ctx context.Context, tool, key, fp string, lease, within time.Duration) (c Claim, err error) {
	defer r.storePanicked(ctx, tool, "Acquire", &err)
	if r.mem != nil {
		return r.mem.acquire(ctx, key, fp, lease, within)
	}
	return r.store.Acquire(ctx, key, fp, lease)
}

func (r *Registry) storeComplete(ctx context.Context, tool, key, token string, rec Record) (err error) {
	defer r.storePanicked(ctx, tool, "Complete", &err)
	return r.store.Complete(ctx, key, token, rec, r.ttl)
}

func (r *Registry) storeRelease(ctx context.Context, tool, key, token string) (err error) {
	defer r.storePanicked(ctx, tool, "Release", &err)
	return r.store.Release(ctx, key, token)
}

func (r *Registry) storePanicked(ctx context.Context, tool, op string, err *error) {
	if p := recover(); p != nil {
		r.log.LogAttrs(ctx, slog.LevelError, "toolcat: idempotency store panicked",
			slog.String("tool", tool), slog.String("op", op), slog.Any("panic", p), slog.String("stack", string(debug.Stack())))
		*err = fmt.Errorf("idempotency store %s panicked: %v", op, p)
	}
}

// acquireFailed answers a call whose key could not be claimed, saying
// what happened: the wait for a call in flight with the same key ended,
// the caller's context ended before the store answered, the store did not
// answer within its bound (late), or it failed.
func (r *Registry) acquireFailed(ctx context.Context, e *entry, err error, late bool) Result {
	name := e.meta.Name
	if errors.Is(err, ErrInFlight) {
		msg := fmt.Sprintf("gave up waiting for the call in flight with the same idempotency key after %v", r.storeTimeout(e))
		if ended(ctx) {
			msg = "gave up waiting for the call in flight with the same idempotency key: the call's context ended"
		}
		te := Timeout(msg).WithSuggestion("Retry the same call with the same idempotency key to get its result.")
		te.internal = true
		return r.fail(e, te)
	}
	if ended(ctx) {
		r.log.LogAttrs(ctx, slog.LevelWarn, "toolcat: the call ended before the idempotency store answered",
			slog.String("tool", name), slog.Any("err", err))
		cause := context.DeadlineExceeded
		if err := ctx.Err(); err != nil {
			cause = err
		}
		te := Timeout("the call ended before the idempotency store answered ("+cause.Error()+"), so "+name+" did not run").
			WithSuggestion("Retry the same call with the same idempotency key.").
			WithDetail("idempotency_store", "timeout")
		te.internal = true
		return r.fail(e, te)
	}
	if late {
		return r.storeDown(ctx, e, err, fmt.Sprintf("the idempotency store did not answer in time (within %v), so %s did not run", r.storeTimeout(e), name))
	}
	return r.storeDown(ctx, e, err, "")
}

func (r *Registry) replay(e *entry, rec *Record) Result {
	if rec.Oversize > 0 {
		return r.fail(e, r.tooLargeAtLeast(context.Background(), e, rec.Oversize))
	}
	if e.meta.ReturnsUntrusted {
		if te := r.checkResult(context.Background(), e, rec.Data); te != nil {
			return r.fail(e, te)
		}
		return r.untrustedFrom(e, rec.Source, rec.Data, rec.At, true)
	}
	if te := r.checkResult(context.Background(), e, rec.Data); te != nil {
		return r.fail(e, te)
	}
	res, te := r.replayed(e, rec)
	if te != nil {
		return r.fail(e, te)
	}
	return res
}

// conflict answers idempotency_conflict for key. The message and details
// name the key as the model sent it: without the session's scope (see
// CallOptions.KeyScope), which is the server's, not the model's.
func (r *Registry) conflict(e *entry, key, scope string, pending bool) Result {
	if scope != "" {
		key = strings.TrimPrefix(key, scope+"/")
	}
	key = clipName(key)
	msg := "idempotency key " + key + " was already used for a call with other arguments"
	if pending {
		msg = "idempotency key " + key + " is held by a call in flight with other arguments"
	}
	te := IdempotencyConflict(msg).WithDetail("idempotency_key", key)
	te.internal = true
	return r.fail(e, te)
}

// ended reports whether ctx has ended or its deadline has passed: a socket
// deadline set from ctx can expire just before ctx's own timer fires.
func ended(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	dl, ok := ctx.Deadline()
	return ok && !time.Now().Before(dl)
}

// storeDown answers a call that did not run because the store failed; msg
// says how (by default, that it is unreachable).
func (r *Registry) storeDown(ctx context.Context, e *entry, err error, msg string) Result {
	r.log.LogAttrs(ctx, slog.LevelError, "toolcat: idempotency store failed",
		slog.String("tool", e.meta.Name), slog.Any("err", err))
	if msg == "" {
		msg = "the idempotency store is unreachable, so " + e.meta.Name + " did not run"
		if errors.Is(err, ErrStoreFull) {
			msg = "the idempotency store is full of calls in flight, so " + e.meta.Name + " did not run"
		}
	}
	te := DependencyUnavailable(msg+": a call with an idempotency key runs only when it can be recorded").
		WithSuggestion("Retry the same call with the same idempotency key in a little while; if it keeps failing, tell the user the action could not be done safely.").
		WithDetail("idempotency_store", "unavailable").
		WithCause(err)
	te.internal = true
	return r.fail(e, te)
}

// flush writes a result whose Complete failed before the key is used again,
// then answers from it.
func (r *Registry) flush(ctx context.Context, e *entry, key, fp, scope string) (Result, bool) {
	r.unflushedM.Lock()
	defer r.unflushedM.Unlock()
	u, ok := r.unflushed[key]
	if !ok {
		return Result{}, false
	}
	sctx, sc := r.storeCtx(ctx, e, false)
	err := r.storeComplete(sctx, e.meta.Name, key, u.token, u.rec)
	sc.release()
	if err != nil && !errors.Is(err, ErrLeaseLost) {
		return r.storeDown(ctx, e, err, ""), true
	}
	delete(r.unflushed, key)
	r.unflushedN.Add(-1)
	if u.rec.Fingerprint != fp {
		return r.conflict(e, key, scope, false), true
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
		err := r.storeComplete(ctx, "", key, u.token, u.rec)
		if err != nil && !errors.Is(err, ErrLeaseLost) {
			errs = append(errs, err)
			continue
		}
		delete(r.unflushed, key)
		r.unflushedN.Add(-1)
	}
	return errors.Join(errs...)
}
