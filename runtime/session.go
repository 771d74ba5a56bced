package runtime

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
)

// Session is one conversation with one agent: who speaks (the sender), how
// much the agent may do alone (its autonomy), the turn, the hidden tools it
// has found, whether outside content has entered it (taint), what it can
// undo (the journal) and the calls that wait for the user's approval.
//
// Its state lives in the registry's SessionStore (WithSessionStore), so that
// replicas serving the same conversation share it: a Session value holds
// only the id and options, and is cheap to make for each request with
// Registry.Session. It is safe for concurrent use.
type Session struct {
	r  *Registry
	id string

	sender       string
	autonomy     Autonomy
	trust        []TrustRule
	taintScope   TaintScope
	promoteTurns int
	undoTool     bool
	providerSide bool
	journalMax   int
	journalBytes int

	mem atomic.Pointer[memSession] // its state in a MemorySessionStore, when read before
}

// Session returns the session id, with its state as the registry's
// SessionStore holds it (a new session when there is none).
func (r *Registry) Session(id string, opts ...SessionOption) *Session {
	s := &Session{r: r, id: id, autonomy: r.autonomy, promoteTurns: DefaultPromotionTurns,
		journalMax: DefaultJournalCalls, journalBytes: DefaultJournalBytes}
	for _, o := range opts {
		o(s)
	}
	if s.autonomy == AutonomyDefault {
		s.autonomy = r.autonomy
	}
	if s.promoteTurns <= 0 {
		s.promoteTurns = DefaultPromotionTurns
	}
	if s.journalMax <= 0 {
		s.journalMax = DefaultJournalCalls
	}
	if s.journalBytes <= 0 {
		s.journalBytes = DefaultJournalBytes
	}
	return s
}

// ID returns the session's id.
func (s *Session) ID() string { return s.id }

// ErrSessionState wraps the errors of the session's store.
var ErrSessionState = errors.New("session state unavailable")

// Call runs tool name in the session and returns its envelope, as
// Registry.Call does, with what the session adds:
//   - built-in tools (search_tools_by_keywords, search_tools_by_regex,
//     undo_last_actions) run in the session;
//   - a hidden tool answers not_found until a search has promoted it;
//   - the call's step (the retry guard's) is the session's turn, its key
//     scope the session, its sender and autonomy the session's;
//   - a side-effect call that needs the user's approval is kept pending
//     with a preview, and answers approval_required (see Approve); the
//     same call made again with the same host idempotency key
//     (CallOptions.IdempotencyKey) and arguments, once the user has
//     answered, is not asked again: approved, it replays the approved run;
//     denied, it answers the denial;
//   - untrusted output taints the session, and executed side-effect calls
//     go into the undo journal.
//
// opts may set IdempotencyKey, DryRun and Approved (the host approved the
// call beforehand); fields it leaves empty come from the session.
func (s *Session) Call(ctx context.Context, name string, raw []byte, opts CallOptions) Result {
	e, ok := s.r.tools.Load().byName[name]
	if !ok {
		if b := s.builtin(name); b != nil {
			return s.answer(ctx, name, &b.meta, raw, opts, func(ctx context.Context) Result { return b.run(s, ctx, b, raw) })
		}
		return s.answer(ctx, name, nil, raw, opts, func(ctx context.Context) Result { return s.notFound(ctx, name) })
	}
	st, err := s.load(ctx)
	if err != nil {
		return s.answer(ctx, name, e.meta, raw, opts, func(ctx context.Context) Result { return s.stateFailed(ctx, e, err) })
	}
	if e.meta.Exposure == ExposureHidden && !s.providerSide && !st.promoted(name) {
		return s.answer(ctx, name, e.meta, raw, opts, func(context.Context) Result { return s.notPromoted(e) })
	}
	s.fill(&opts, st)
	if !e.meta.HasSideEffects && !s.r.isStopped(e) {
		return s.exec(ctx, e, raw, opts, st.Turn) // run's path for a call that needs no approval
	}
	return s.run(ctx, e, raw, opts, st, nil)
}

// fill completes opts from the session.
func (s *Session) fill(opts *CallOptions, st *coreState) {
	if opts.Sender == "" {
		opts.Sender = s.sender
	}
	if opts.Autonomy == AutonomyDefault {
		opts.Autonomy = s.autonomy
	}
	if opts.KeyScope == "" {
		opts.KeyScope = s.id
	}
	if opts.StepID == "" {
		opts.StepID = st.step
		if opts.StepID == "" {
			opts.StepID = stepOf(s.id, st.Turn)
		}
	}
}

// run is a call of e past the session's visibility checks: approval, the
// call itself in a frame of its own, and what the session keeps of it.
func (s *Session) run(ctx context.Context, e *entry, raw []byte, opts CallOptions, st *coreState, parent *frame) Result {
	if te := s.r.stopped(e); te != nil {
		return s.refuse(ctx, e, raw, opts, func() Result { return s.r.fail(e, te) }) // switched off: not kept pending either
	}
	if !opts.DryRun && !opts.Approved {
		if why := s.approvalReason(e, st, opts.Autonomy); why != nil {
			args, te := s.validate(e, raw)
			if te != nil {
				return s.refuse(ctx, e, raw, opts, func() Result { return s.r.failed(e, raw, &opts, te) })
			}
			if why.tainted || !s.trusted(e, args) {
				if parent != nil {
					return s.refuse(ctx, e, raw, opts, func() Result { return s.r.fail(e, why.childError(e, parent)) })
				}
				pc, err := s.decided(ctx, e, raw, opts.IdempotencyKey)
				switch {
				case err != nil:
					return s.refuse(ctx, e, raw, opts, func() Result { return s.stateFailed(ctx, e, err) })
				case pc == nil:
					return s.hold(ctx, e, raw, opts, why, st)
				case pc.Status == PendingDenied:
					return s.refuse(ctx, e, raw, opts, func() Result { return s.denied(e, *pc) })
				}
			}
			opts.Approved = true
		}
	}
	return s.exec(ctx, e, raw, opts, st.Turn)
}

// exec calls e through the registry and keeps what the session must. A
// tool that depends on others, or that is called by another, runs in a
// frame of its own, through which its body may call (CallTool).
func (s *Session) exec(ctx context.Context, e *entry, raw []byte, opts CallOptions, turn int) Result {
	if opts.Approved && opts.Autonomy < e.need && opts.Autonomy >= AutonomySupervised {
		opts.Autonomy = e.need // the user's approval stands in for autonomy
	}
	ti := s.r.toolIndex()
	if !ti.composite[e.meta.Name] && frameFrom(ctx) == nil {
		res := s.r.callNamed(ctx, e, e.meta.Name, raw, opts) // looked up by Call
		s.record(ctx, e, raw, &opts, &res, turn)
		return res
	}
	f := &frame{r: s.r, sess: s, entry: e, opts: opts, untrustedVia: ti.untrustedVia[e.meta.Name]}
	res := s.r.carryTaint(e, f, s.r.Call(withFrame(ctx, f), e.meta.Name, raw, opts))
	s.record(ctx, e, raw, &opts, &res, turn)
	return res
}

// approval says why a call needs the user's approval.
type approval struct {
	tainted bool
	reason  string
}

// approvalReason returns why a call of e by an agent at autonomy a needs
// approval in the session's state, or nil.
func (s *Session) approvalReason(e *entry, st *coreState, a Autonomy) *approval {
	m := e.meta
	if !m.HasSideEffects || a < AutonomySupervised {
		return nil // read-only agents are refused by the registry's gate
	}
	if m.Risk == RiskHigh && st.tainted(s.taintScope) {
		return &approval{tainted: true, reason: fmt.Sprintf(
			"tool %s is high risk and has side effects, and content from outside (%s) entered this conversation %s: the user must approve this call",
			m.Name, clip(st.TaintSource, maxEchoName), s.taintWhen())}
	}
	if a == AutonomySupervised && (e.approval || e.need > AutonomySupervised) {
		return &approval{reason: m.approvalWhy() + ": the user must approve this call"}
	}
	return nil
}

func riskName(r Risk) string {
	if r == "" {
		return string(RiskLow)
	}
	return string(r)
}

func (s *Session) taintWhen() string {
	if s.taintScope == TaintSession {
		return "earlier"
	}
	return "this turn"
}

// childError is the answer to a composite's call of a tool that needs
// approval the composite's own call did not get.
func (a *approval) childError(e *entry, parent *frame) *ToolError {
	te := ApprovalRequired(a.reason + "; it was called by " + parent.entry.meta.Name + ", whose call was not approved").
		WithSuggestion("Tell the user what you were doing and that it needs their approval; do not retry.")
	te.internal = true
	return te
}

// validate checks raw as the registry would, the model's idempotency key
// taken out, for the trust rules and before a call is kept pending.
func (s *Session) validate(e *entry, raw []byte) (any, *ToolError) {
	if e.meta.IdempotencyKeyArg {
		rest, _, te := takeIdempotencyKey(raw)
		if te != nil {
			te.internal = true
			return nil, te
		}
		raw = rest
	}
	return e.tool.Validator.Validate(raw)
}

// trusted reports whether a trust rule approves a call of e with args.
func (s *Session) trusted(e *entry, args any) bool {
	if e.tool.DryRun == nil {
		return false // no preview, no trust
	}
	for _, t := range s.trust {
		if t.Tool == e.meta.Name && (t.Allow == nil || t.Allow(args)) {
			return true
		}
	}
	return false
}

// notFound answers a call of a tool the registry does not have, naming the
// closest of the tools the session shows.
func (s *Session) notFound(ctx context.Context, name string) Result {
	tools, err := s.Tools(ctx)
	if err != nil {
		return s.r.notFound(name)
	}
	names := make([]string, len(tools))
	for i := range tools {
		names[i] = tools[i].Name
	}
	closest := ClosestN(name, names, 3)
	msg := "no tool is named " + quoteClipped(name, maxEchoName)
	sug := "Use only the tools listed to you."
	if len(closest) > 0 {
		msg += "; the closest are " + strings.Join(closest, ", ")
		sug = "Call " + closest[0] + " if that is what you meant; use only the tools listed to you."
	}
	if s.searchable() {
		sug += " To find a tool not listed, call " + SearchToolsByKeywords + "."
	}
	te := NotFound(msg).WithSuggestion(sug).WithRetryAllowed(true)
	te.internal = true
	te.Details = map[string]any{"tool": clipName(name), "closest": closest}
	return Result{Error: te, Tool: name}
}

// notPromoted answers a call of a hidden tool no search has found yet.
func (s *Session) notPromoted(e *entry) Result {
	te := NotFound("tool " + e.meta.Name + " is not listed to you yet").
		WithSuggestion("Call " + SearchToolsByKeywords + " with what you want to do; the tools it finds can be called from your next step.").
		WithRetryAllowed(true)
	te.internal = true
	return Result{Error: finish(te, e.meta), Tool: e.meta.Name}
}

// stateFailed answers a call when the session's state cannot be read.
func (s *Session) stateFailed(ctx context.Context, e *entry, err error) Result {
	if err == errNoSessionID {
		te := Internal("the assistant's host made this conversation without an id").
			WithSuggestion("Do not retry; tell the user the assistant is misconfigured.")
		te.internal = true
		s.r.log.LogAttrs(ctx, slog.LevelError, "toolcat: "+err.Error())
		return s.r.fail(e, te)
	}
	s.r.log.LogAttrs(ctx, slog.LevelError, "toolcat: session state", slog.String("session", s.id), slog.Any("err", err))
	te := DependencyUnavailable("the state of this conversation cannot be read right now").
		WithSuggestion("Retry in a moment; if it keeps failing, tell the user the assistant's session store is unavailable.")
	te.internal = true
	return s.r.fail(e, te)
}

// newCallID returns a fresh id for a pending or journaled call.
func (s *Session) newCallID() string {
	var b [8]byte
	if _, err := io.ReadFull(s.r.rnd, b[:]); err != nil {
		// The clock still makes ids distinct within the session.
		return "call_" + strconv.FormatInt(s.r.now().UnixNano(), 36)
	}
	return "call_" + hex.EncodeToString(b[:])
}

// dataJSON is the JSON of a result's data, as a Revert receives it.
func dataJSON(res Result) (json.RawMessage, error) {
	if raw, ok := res.Data.(json.RawMessage); ok {
		return raw, nil
	}
	return marshalNoEscape(res.Data)
}

// sortedPromotions orders promotions as Definitions lists them: by the turn
// they were made, then by name, so that a new promotion adds to the end of
// the list and leaves the rest (and a provider's prompt cache) as it was.
func sortedPromotions(ps []promotion) []promotion {
	out := slices.Clone(ps)
	slices.SortFunc(out, func(a, b promotion) int {
		if a.Since != b.Since {
			return a.Since - b.Since
		}
		return strings.Compare(a.Tool, b.Tool)
	})
	return out
}
