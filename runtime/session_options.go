package runtime

import "time"

// SessionOption configures a Session.
type SessionOption func(*Session)

// SessionSender names who speaks in the conversation (a user, a channel);
// policies see it as CallOptions.Sender.
func SessionSender(sender string) SessionOption { return func(s *Session) { s.sender = sender } }

// SessionAutonomy sets the agent's autonomy level in the session (default the
// registry's, WithDefaultAutonomy).
func SessionAutonomy(a Autonomy) SessionOption { return func(s *Session) { s.autonomy = a } }

// SessionTrust adds rules that approve calls without asking the user.
func SessionTrust(rules ...TrustRule) SessionOption {
	return func(s *Session) { s.trust = append(s.trust, rules...) }
}

// SessionTaintScope sets how long outside content keeps the session tainted
// (default TaintTurn).
func SessionTaintScope(t TaintScope) SessionOption { return func(s *Session) { s.taintScope = t } }

// SessionPromotionTurns sets for how many turns a hidden tool found by a
// search stays listed (default DefaultPromotionTurns). Calling it starts
// the count again.
func SessionPromotionTurns(n int) SessionOption { return func(s *Session) { s.promoteTurns = n } }

// SessionUndoTool offers the model the built-in tool undo_last_actions, which
// reverts its last actions in the session (see Session.Undo).
func SessionUndoTool(on bool) SessionOption { return func(s *Session) { s.undoTool = on } }

// SessionProviderSearch lists hidden tools to the model's provider as
// deferred tools, for the provider's own tool search (export.DeferHidden
// renders them), instead of offering toolcat's search tools: the model may
// call any hidden tool, and none is promoted.
func SessionProviderSearch(on bool) SessionOption { return func(s *Session) { s.providerSide = on } }

// SessionJournalLimit bounds the undo journal: at most n calls (default
// DefaultJournalCalls) and bytes bytes of arguments and results (default
// DefaultJournalBytes). Older calls are forgotten, and can no longer be
// undone; a call too large to keep is journaled as one that cannot be
// undone.
func SessionJournalLimit(n, bytes int) SessionOption {
	return func(s *Session) { s.journalMax, s.journalBytes = n, bytes }
}

// TaintScope is how long outside content keeps a session tainted.
type TaintScope uint8

const (
	// TaintTurn: until the turn ends (Session.EndTurn).
	TaintTurn TaintScope = iota
	// TaintSession: for the rest of the session.
	TaintSession
)

// Session defaults.
const (
	DefaultPromotionTurns = 5
	DefaultJournalCalls   = 50
	DefaultJournalBytes   = 1 << 20
	// MaxPendingCalls is how many calls may wait for approval in one
	// session; more answer approval_required without waiting.
	MaxPendingCalls = 20
	// DefaultSessionTTL is how long a session's state is kept after its
	// last change, unless WithSessionTTL says otherwise.
	DefaultSessionTTL = 24 * time.Hour
)

// TrustRule approves calls of one tool without asking the user, when Allow
// (if set) accepts the call's arguments, as the tool's Validator returned
// them (a pointer to its generated Args struct). A rule applies only to
// tools with a dry run (no preview, no trust), and never to a call that
// needs approval because the session is tainted.
type TrustRule struct {
	Tool  string
	Allow func(args any) bool
}

// TrustArgs is a TrustRule whose predicate takes the tool's argument type.
func TrustArgs[T any](tool string, allow func(*T) bool) TrustRule {
	return TrustRule{Tool: tool, Allow: func(a any) bool {
		t, ok := a.(*T)
		return ok && allow(t)
	}}
}
