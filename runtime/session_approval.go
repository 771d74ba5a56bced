package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// PendingStatus is where a pending call stands.
type PendingStatus string

// The statuses of a pending call.
const (
	PendingWaiting  PendingStatus = "waiting"
	PendingApproved PendingStatus = "approved"
	PendingDenied   PendingStatus = "denied"
)

// NoPreview is the summary of a pending call of a tool without a dry run.
const NoPreview = "(no preview available)"

// PendingCall is a call that waits for the user's approval. The host shows
// Preview (and Reason), then calls Session.Approve or Session.Deny with ID.
type PendingCall struct {
	ID   string          `json:"id"`
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"` // exactly as the model sent them; Approve runs these
	// Preview is the tool's dry run of the call, or NoPreview.
	Preview Preview `json:"preview"`
	// Reason says why the call needs approval; Tainted that outside
	// content in the conversation is the reason.
	Reason  string        `json:"reason"`
	Tainted bool          `json:"tainted,omitempty"`
	Turn    int           `json:"turn"`
	At      time.Time     `json:"at"`
	Status  PendingStatus `json:"status"`
	// Denial is the user's reason, for a denied call.
	Denial string `json:"denial,omitempty"`

	// What the call runs with once approved: its idempotency key (the
	// host's, or one made for it, so that approving twice runs it once),
	// its retry-guard step and sender.
	Key    string `json:"key"`
	Step   string `json:"step"`
	Sender string `json:"sender,omitempty"`
}

type pendingState struct {
	Calls []PendingCall `json:"calls"`
}

// maxResolved is how many approved or denied calls a session remembers,
// so that approving or denying one again gives the same answer.
const maxResolved = 20

func decodePending(b []byte) (*pendingState, error) {
	p := &pendingState{}
	if b == nil {
		return p, nil
	}
	if err := json.Unmarshal(b, p); err != nil {
		return nil, fmt.Errorf("%w: the stored pending calls are not valid: %v", ErrSessionState, err)
	}
	return p, nil
}

func (s *Session) loadPending(ctx context.Context) (*pendingState, error) {
	b, err := s.r.sessionStore().Load(ctx, s.id+pendingPart)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSessionState, err)
	}
	return decodePending(b)
}

func (s *Session) updatePending(ctx context.Context, fn func(p *pendingState) error) error {
	return s.update(ctx, pendingPart, func(b []byte) ([]byte, error) {
		p, err := decodePending(b)
		if err != nil {
			return nil, err
		}
		if err := fn(p); err != nil {
			return nil, err
		}
		return json.Marshal(p)
	})
}

// Pending returns the calls waiting for approval, oldest first.
func (s *Session) Pending(ctx context.Context) ([]PendingCall, error) {
	p, err := s.loadPending(ctx)
	if err != nil {
		return nil, err
	}
	var out []PendingCall
	for _, pc := range p.Calls {
		if pc.Status == PendingWaiting {
			out = append(out, pc)
		}
	}
	return out, nil
}

// hold keeps a call pending with its preview and answers
// approval_required; the envelope's Pending is the call.
// A dry run that fails with a code the model can act on (not_found,
// invalid_args) answers the call at once with that failure: no user is
// asked to approve a call that cannot run as it is.
func (s *Session) hold(ctx context.Context, e *entry, raw []byte, opts CallOptions, why *approval, st *coreState) Result {
	preview, failed := s.preview(ctx, e, raw, opts)
	if failed != nil && (failed.Error.Code == CodeNotFound || failed.Error.Code == CodeInvalidArgs) {
		return *failed
	}
	pc := PendingCall{
		ID:      s.newCallID(),
		Tool:    e.meta.Name,
		Args:    append(json.RawMessage(nil), raw...),
		Preview: preview,
		Reason:  why.reason,
		Tainted: why.tainted,
		At:      s.r.now().UTC(),
		Status:  PendingWaiting,
		Key:     opts.IdempotencyKey,
		Step:    opts.StepID,
		Sender:  opts.Sender,
		Turn:    st.Turn,
	}
	if pc.Key == "" && e.meta.IdempotencyKeyArg {
		// The model's key, as the registry would scope it: the same
		// operation sent again replays once approved.
		if _, k, te := takeIdempotencyKey(raw); te == nil && k != "" {
			pc.Key = k
			if opts.KeyScope != "" {
				pc.Key = opts.KeyScope + "/" + k
			}
		}
	}
	if pc.Key == "" {
		pc.Key = "approval/" + s.id + "/" + pc.ID
	}
	return s.keep(ctx, pc, why.reason, func(te *ToolError) Result { return s.r.fail(e, te) },
		func(err error) Result { return s.stateFailed(ctx, e, err) })
}

// keep adds pc to the calls waiting for approval and answers
// approval_required, with fail making the envelope of the tool (or
// built-in tool) called; failed answers when the session's state is
// unavailable.
func (s *Session) keep(ctx context.Context, pc PendingCall, reason string, fail func(*ToolError) Result, failed func(error) Result) Result {
	err := s.updatePending(ctx, func(p *pendingState) error {
		waiting := 0
		for _, c := range p.Calls {
			if c.Status == PendingWaiting {
				waiting++
			}
		}
		if waiting >= MaxPendingCalls {
			return sessionErrorf("%d calls already wait for the user's approval", waiting)
		}
		p.Calls = append(p.Calls, pc)
		p.prune()
		return nil
	})
	if err != nil {
		if isSessionError(err) {
			te := ApprovalRequired(reason + "; " + err.Error()).
				WithSuggestion("Wait for the user to answer the calls already waiting before asking for more.")
			te.internal = true
			return fail(te)
		}
		return failed(err)
	}
	te := ApprovalRequired(reason).
		WithSuggestion("The call waits for the user's approval as " + pc.ID + ", and the user is shown a preview of it. " +
			"Tell the user what it would do and wait for their answer; do not call it again.").
		WithRetryAllowed(false)
	te.internal = true
	te.Details = map[string]any{"call_id": pc.ID, "preview": pc.Preview.Summary}
	if effects := clipEffects(pc.Preview.Effects); len(effects) > 0 {
		te.Details["effects"] = effects
	}
	res := fail(te)
	res.Pending = &pc
	if h := s.r.approvalHook(); h != nil {
		h.ApprovalRequested(ctx, pc)
	}
	return res
}

// maxEchoEffects bounds the effects of a preview an approval_required
// envelope repeats; the pending call keeps them all.
const maxEchoEffects = 20

// clipEffects returns the first effects of a preview, each clipped, for
// the model to tell the user what the call would change.
func clipEffects(effects []string) []string {
	if len(effects) == 0 {
		return nil
	}
	out := make([]string, 0, min(len(effects), maxEchoEffects+1))
	for i, e := range effects {
		if i == maxEchoEffects {
			out = append(out, fmt.Sprintf("(%d more)", len(effects)-i))
			break
		}
		out = append(out, clip(e, maxEchoText))
	}
	return out
}

// prune forgets the oldest resolved calls beyond maxResolved.
func (p *pendingState) prune() {
	resolved := 0
	for _, c := range p.Calls {
		if c.Status != PendingWaiting {
			resolved++
		}
	}
	if resolved <= maxResolved {
		return
	}
	drop := resolved - maxResolved
	kept := p.Calls[:0]
	for _, c := range p.Calls {
		if c.Status != PendingWaiting && drop > 0 {
			drop--
			continue
		}
		kept = append(kept, c)
	}
	p.Calls = kept
}

// preview runs the tool's dry run of a call for the user to see; failed
// is the dry run's envelope when it failed.
func (s *Session) preview(ctx context.Context, e *entry, raw []byte, opts CallOptions) (p Preview, failed *Result) {
	if e.tool.DryRun == nil {
		return Preview{DryRun: true, Summary: NoPreview}, nil
	}
	opts.DryRun = true
	opts.StepID = ""                                            // a preview that fails uses up none of the call's attempts
	res := s.r.Call(withoutCallID(ctx), e.meta.Name, raw, opts) // the session's call, not the model's
	if !res.Success {
		return Preview{DryRun: true, Summary: NoPreview + ": the dry run failed: " + clip(res.Error.Message, maxEchoText)}, &res
	}
	switch d := res.Data.(type) {
	case *Preview:
		if d != nil {
			return *d, nil
		}
	case Preview:
		return d, nil
	case json.RawMessage: // untrusted output: the tool's plain data
		var p Preview
		if json.Unmarshal(d, &p) == nil && p.Summary != "" {
			p.DryRun = true
			return p, nil
		}
	}
	return Preview{DryRun: true, Summary: "(the dry run returned data, not a summary)", Data: res.Data}, nil
}

// Approve runs the pending call id with exactly the arguments that were
// previewed, and returns its envelope for the model. Approving a call
// again runs it no second time: it answers with the first run's result,
// replayed from the idempotency store. It is an error to approve a call
// that is not pending in the session or was denied.
func (s *Session) Approve(ctx context.Context, id string) (Result, error) {
	var first bool
	pc, err := s.resolve(ctx, id, func(c *PendingCall) error {
		if c.Status == PendingDenied {
			return sessionErrorf("call %s of %s was denied; it cannot be approved", id, c.Tool)
		}
		first = c.Status == PendingWaiting
		c.Status = PendingApproved
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	s.resolved(ctx, pc, first)
	e, ok := s.r.tools.Load().byName[pc.Tool]
	if !ok && pc.Tool == UndoLastActions {
		return s.approvedUndo(ctx, pc), nil
	}
	if !ok {
		return s.r.notFound(pc.Tool), nil
	}
	opts := CallOptions{IdempotencyKey: pc.Key, KeyScope: s.id, StepID: pc.Step, Sender: pc.Sender,
		Autonomy: s.autonomy, Approved: true}
	turn := pc.Turn // the turn it runs in, for the journal
	if st, err := s.load(ctx); err == nil {
		turn = st.Turn
	}
	return s.exec(ctx, e, pc.Args, opts, turn), nil
}

// Deny refuses the pending call id and returns the envelope that tells
// the model so, with the user's reason. Denying a call again gives the same
// envelope; denying an approved call is an error.
func (s *Session) Deny(ctx context.Context, id, reason string) (Result, error) {
	var first bool
	pc, err := s.resolve(ctx, id, func(c *PendingCall) error {
		if c.Status == PendingApproved {
			return sessionErrorf("call %s of %s was approved; it cannot be denied", id, c.Tool)
		}
		first = c.Status == PendingWaiting
		if first {
			c.Status, c.Denial = PendingDenied, reason
		}
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	s.resolved(ctx, pc, first)
	return s.denied(s.r.tools.Load().byName[pc.Tool], pc), nil
}

// denied is the envelope of a call the user denied; e may be nil.
func (s *Session) denied(e *entry, pc PendingCall) Result {
	msg := "the user denied the call " + pc.ID + " of " + pc.Tool
	if pc.Denial != "" {
		msg += ": " + clip(pc.Denial, maxEchoText)
	}
	te := PermissionDenied(msg).
		WithSuggestion("Do not make this call again; tell the user you did not do it and ask what they want instead.").
		WithRetryAllowed(false).WithDetail("call_id", pc.ID)
	te.internal = true
	if e == nil {
		return Result{Error: finish(te, nil), Tool: pc.Tool}
	}
	return s.r.fail(e, te)
}

// decided returns the call the user approved or denied that a call of e
// with raw and the host's idempotency key repeats (same tool, key and
// arguments), or nil. Such a call is not asked again: approved, it runs
// under its key, which replays the approved run; denied, it answers the
// denial. Without a key nothing repeats.
func (s *Session) decided(ctx context.Context, e *entry, raw []byte, key string) (*PendingCall, error) {
	if key == "" {
		return nil, nil
	}
	p, err := s.loadPending(ctx)
	if err != nil {
		return nil, err
	}
	for i := len(p.Calls) - 1; i >= 0; i-- {
		c := &p.Calls[i]
		if c.Key == key && c.Tool == e.meta.Name && c.Status != PendingWaiting && bytes.Equal(c.Args, raw) {
			return c, nil
		}
	}
	return nil, nil
}

// resolve applies decide to the pending call id, in one update of the
// session's pending calls, and returns the call as decide left it.
func (s *Session) resolve(ctx context.Context, id string, decide func(c *PendingCall) error) (PendingCall, error) {
	var pc PendingCall
	err := s.updatePending(ctx, func(p *pendingState) error {
		for i := range p.Calls {
			if c := &p.Calls[i]; c.ID == id {
				if err := decide(c); err != nil {
					return err
				}
				pc = *c
				return nil
			}
		}
		return sessionErrorf("no call %s waits for approval in session %s", id, s.id)
	})
	return pc, err
}

// approvalHook is the registry's CallHook when it is an ApprovalHook.
func (r *Registry) approvalHook() ApprovalHook {
	if w := r.obs.w.Load(); w != nil {
		h, _ := w.hook.(ApprovalHook)
		return h
	}
	return nil
}

// resolved tells the ApprovalHook that pc was approved or denied, when this
// resolution was the first.
func (s *Session) resolved(ctx context.Context, pc PendingCall, first bool) {
	if !first {
		return
	}
	if h := s.r.approvalHook(); h != nil {
		h.ApprovalResolved(ctx, pc, s.r.now())
	}
}
