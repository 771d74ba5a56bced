package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/toolcat/toolcat/runtime/discovery"
)

// The names of the session's built-in tools. A registered tool of the same
// name takes the place of the built-in one.
const (
	SearchToolsByKeywords = "search_tools_by_keywords"
	SearchToolsByRegex    = "search_tools_by_regex"
	UndoLastActions       = "undo_last_actions"
)

// maxSearchResults bounds the limit argument of the search tools.
const maxSearchResults = 20

type builtinTool struct {
	meta Meta
	v    *SchemaValidator
	run  func(s *Session, ctx context.Context, b *builtinTool, raw []byte) Result
}

var builtins = sync.OnceValue(func() map[string]*builtinTool {
	tools := []*builtinTool{
		{meta: Meta{
			Name: SearchToolsByKeywords,
			Description: "Finds tools that are not listed to you yet, by what they do, and lists the best matches from your next step on.\n" +
				"Use when: no listed tool fits what the user asks; describe the action and its object in plain words.\n" +
				"Returns each match's name and what it does.",
			ArgsSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["query"],"properties":{` +
				`"query":{"type":"string","minLength":1,"maxLength":300,"description":"What you want to do, in plain words, such as \"cancel a calendar event\""},` +
				`"limit":{"type":"integer","minimum":1,"maximum":20,"default":5,"description":"How many tools at most"}}}`),
		}, run: (*Session).searchKeywords},
		{meta: Meta{
			Name: SearchToolsByRegex,
			Description: "Finds tools that are not listed to you yet whose name or description matches a regular expression (RE2 syntax, case-insensitive), and lists them from your next step on.\n" +
				"Use when: you know part of a tool's name, such as \"^calendar_\" or \"invoice\".",
			ArgsSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["pattern"],"properties":{` +
				`"pattern":{"type":"string","minLength":1,"maxLength":200,"description":"A regular expression matched against tool names and descriptions"},` +
				`"limit":{"type":"integer","minimum":1,"maximum":20,"default":5,"description":"How many tools at most"}}}`),
		}, run: (*Session).searchRegex},
		{meta: Meta{
			Name: UndoLastActions,
			Description: "Reverts your last actions in this conversation, newest first.\n" +
				"Use when: the user asks to undo or roll back what you just did.\n" +
				"It reverts nothing when an action among them cannot be undone, and says which.",
			Risk:           RiskMedium,
			HasSideEffects: true,
			ArgsSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"properties":{` +
				`"count":{"type":"integer","minimum":1,"maximum":20,"default":1,"description":"How many of your last actions to revert"}}}`),
		}, run: (*Session).runUndo},
	}
	out := map[string]*builtinTool{}
	for _, b := range tools {
		b.meta.Category = "toolcat"
		b.meta.Exposure = ExposureCore
		b.meta.Idempotent = !b.meta.HasSideEffects
		if b.meta.Risk == "" {
			b.meta.Risk = RiskLow
		}
		v, err := NewSchemaValidator(&b.meta)
		if err != nil {
			panic("toolcat: built-in tool " + b.meta.Name + ": " + err.Error())
		}
		b.v = v
		out[b.meta.Name] = b
	}
	return out
})

// builtin returns the built-in tool name when the session offers it.
func (s *Session) builtin(name string) *builtinTool {
	b := builtins()[name]
	switch {
	case b == nil:
		return nil
	case name == UndoLastActions && !s.undoTool:
		return nil
	case name != UndoLastActions && !s.searchable():
		return nil
	}
	return b
}

// builtinMetas are the built-in tools the session offers, in order.
func (s *Session) builtinMetas() []Meta {
	var out []Meta
	set := s.r.tools.Load().byName
	for _, name := range []string{SearchToolsByKeywords, SearchToolsByRegex, UndoLastActions} {
		if _, taken := set[name]; taken {
			continue
		}
		if b := s.builtin(name); b != nil {
			out = append(out, b.meta)
		}
	}
	return out
}

// searchable reports whether the session offers its search tools: it has
// hidden tools it may call, and searches them itself.
func (s *Session) searchable() bool {
	if s.providerSide {
		return false
	}
	return s.r.toolIndex().hiddenAt(s.autonomy)
}

// args decodes the arguments of a built-in after validating them.
func (b *builtinTool) args(raw []byte, into any) *ToolError {
	doc, te := b.v.Validate(raw)
	if te != nil {
		return te
	}
	enc, err := json.Marshal(doc)
	if err == nil {
		err = json.Unmarshal(enc, into)
	}
	if err != nil {
		return InvalidArgs("the arguments of " + b.meta.Name + " cannot be read: " + err.Error())
	}
	return nil
}

func (b *builtinTool) fail(te *ToolError) Result {
	return Result{Error: finish(te, &b.meta), Tool: b.meta.Name}
}

// ToolMatch is one tool a search found.
type ToolMatch struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Listed says the tool was already listed to the model.
	Listed bool `json:"listed,omitempty"`
}

// SearchResult is the data of the search tools' envelope.
type SearchResult struct {
	Matches []ToolMatch `json:"matches"`
	// Note tells the model when the tools it found can be called.
	Note string `json:"note"`
}

func (s *Session) searchKeywords(ctx context.Context, b *builtinTool, raw []byte) Result {
	var a struct {
		Query string `json:"query"`
		Limit int    `json:"limit"`
	}
	if te := b.args(raw, &a); te != nil {
		return b.fail(te)
	}
	ti := s.r.toolIndex()
	hits := ti.index().Search(a.Query, 4*a.Limit+10)
	var found []*entry
	for _, h := range hits {
		if e := ti.set.byName[h.Name]; e != nil && s.mayCall(e) {
			found = append(found, e)
			if len(found) == a.Limit {
				break
			}
		}
	}
	return s.found(ctx, b, found, "Try other words for the action or its object, or "+SearchToolsByRegex+" with part of a name.")
}

func (s *Session) searchRegex(ctx context.Context, b *builtinTool, raw []byte) Result {
	var a struct {
		Pattern string `json:"pattern"`
		Limit   int    `json:"limit"`
	}
	if te := b.args(raw, &a); te != nil {
		return b.fail(te)
	}
	re, err := regexp.Compile("(?i)" + a.Pattern)
	if err != nil {
		return b.fail(InvalidArgs("pattern is not a valid regular expression: "+clip(err.Error(), maxEchoText)).
			WithDetail("field", "/pattern").
			WithSuggestion("Use RE2 syntax (no look-arounds or back-references), such as \"^calendar_\" or \"invoice|bill\"."))
	}
	var byName, byText []*entry
	for _, e := range s.r.tools.Load().sorted {
		if !s.mayCall(e) {
			continue
		}
		switch {
		case re.MatchString(e.meta.Name):
			byName = append(byName, e)
		case len(byName) < a.Limit && re.MatchString(e.meta.Description):
			byText = append(byText, e)
		}
	}
	found := append(byName, byText...)
	if len(found) > a.Limit {
		found = found[:a.Limit]
	}
	return s.found(ctx, b, found, "Try a shorter pattern, or "+SearchToolsByKeywords+" with what you want to do.")
}

// found promotes the hidden tools among found and builds the search's
// envelope.
func (s *Session) found(ctx context.Context, b *builtinTool, found []*entry, retry string) Result {
	st, err := s.load(ctx)
	if err != nil {
		return b.fail(DependencyUnavailable("the state of this conversation cannot be read right now"))
	}
	out := SearchResult{Matches: []ToolMatch{}}
	var promote []string
	for _, e := range found {
		listed := e.meta.Exposure != ExposureHidden || st.promoted(e.meta.Name)
		out.Matches = append(out.Matches, ToolMatch{Name: e.meta.Name, Description: oneLine(e.meta.Description), Listed: listed})
		if e.meta.Exposure == ExposureHidden {
			promote = append(promote, e.meta.Name)
		}
	}
	// A host that ends turns (Session.EndTurn) has promotions count
	// down; one that never does, such as an MCP server, keeps them for
	// the session, and the note says only what holds for both.
	turns := false
	if len(promote) > 0 {
		if err := s.updateCore(ctx, func(st *coreState) error {
			st.promote(promote, s.promoteTurns)
			turns = st.Turn > 0
			return nil
		}); err != nil {
			return b.fail(DependencyUnavailable("the tools found cannot be listed to you right now"))
		}
	}
	switch {
	case len(out.Matches) == 0:
		out.Note = "No tool matched. " + retry
	case len(promote) > 0 && turns:
		out.Note = fmt.Sprintf("The tools found are listed to you from your next step on, for %d turns.", s.promoteTurns)
	case len(promote) > 0:
		out.Note = "The tools found are listed to you from your next step on."
	default:
		out.Note = "The tools found are already listed to you."
	}
	return Result{Success: true, Data: out, Tool: b.meta.Name}
}

// mayCall reports whether the session's agent may call e, perhaps with the
// user's approval: a read-only agent only tools without side effects, and
// no agent a tool disabled or blocked (Registry.DisableTool).
func (s *Session) mayCall(e *entry) bool {
	return (s.autonomy >= AutonomySupervised || e.need <= s.autonomy) && !s.r.isStopped(e)
}

// oneLine is the first line of a description, at most 200 bytes.
func oneLine(d string) string {
	d = strings.TrimSpace(d)
	if i := strings.IndexByte(d, '\n'); i >= 0 {
		d = strings.TrimSpace(d[:i])
	}
	return clip(d, 200)
}

// UndoOutcome is the data of undo_last_actions' envelope.
type UndoOutcome struct {
	Undone []UndoneCall `json:"undone"`
}

// UndoneCall is one call undo_last_actions reverted.
type UndoneCall struct {
	CallID string `json:"call_id"`
	Tool   string `json:"tool"`
}

func (s *Session) runUndo(ctx context.Context, b *builtinTool, raw []byte) Result {
	var a struct {
		Count int `json:"count"`
	}
	if te := b.args(raw, &a); te != nil {
		return b.fail(te)
	}
	calls, why, te := s.undoNeedsApproval(ctx, a.Count)
	if te != nil {
		return b.fail(te)
	}
	if why != nil && !slices.ContainsFunc(calls, func(c JournalEntry) bool { return !c.Revertible }) {
		return s.holdUndo(ctx, b, a.Count, calls, why)
	}
	// Nothing to approve, or an undo that cannot run (a call among them
	// cannot be undone): it answers, reverting nothing, before anyone is
	// asked.
	rep, err := s.undo(ctx, a.Count, nil, false)
	return s.undoResult(b, rep, err)
}

// undoResult is the envelope of undo_last_actions for what undo did.
func (s *Session) undoResult(b *builtinTool, rep UndoReport, err error) Result {
	if err != nil {
		var te *ToolError
		switch err := err.(type) {
		case *UndoError:
			te = Errorf(err.Result.Error.Code, "%s", err.Msg).WithRetryAllowed(false).
				WithSuggestion("Tell the user which actions were reverted and which was not, and why.")
		case *SessionError:
			te = Unsupported(err.Msg).WithSuggestion("Tell the user what cannot be undone; do not retry.")
		default:
			te = DependencyUnavailable("the journal of this conversation cannot be read right now")
		}
		return b.fail(te)
	}
	out := UndoOutcome{Undone: []UndoneCall{}}
	for _, c := range rep.Undone {
		out.Undone = append(out.Undone, UndoneCall{CallID: c.ID, Tool: c.Tool})
	}
	return Result{Success: true, Data: out, Tool: b.meta.Name}
}

// undoArgs are the arguments of an undo held for approval: the calls it
// reverts once approved, newest first, which must still be the newest of
// the journal then.
type undoArgs struct {
	Count int      `json:"count"`
	Calls []string `json:"calls"`
}

// holdUndo keeps the model's undo of calls whose reverts need the user's
// approval waiting for it, as a call of undo_last_actions (see Approve):
// its preview names the calls it would revert.
func (s *Session) holdUndo(ctx context.Context, b *builtinTool, n int, calls []JournalEntry, why *approval) Result {
	ua := undoArgs{Count: n}
	var what []string
	for _, c := range calls {
		ua.Calls = append(ua.Calls, c.ID)
		what = append(what, c.Tool+" (call "+c.ID+")")
	}
	args, _ := json.Marshal(ua)
	pc := PendingCall{
		ID:      s.newCallID(),
		Tool:    UndoLastActions,
		Args:    args,
		Preview: Preview{DryRun: true, Summary: "would revert " + strings.Join(what, ", ")},
		Reason:  why.reason,
		Tainted: why.tainted,
		At:      s.r.now().UTC(),
		Status:  PendingWaiting,
		Sender:  s.sender,
	}
	pc.Key = "approval/" + s.id + "/" + pc.ID
	if st, err := s.load(ctx); err == nil {
		pc.Turn = st.Turn
	}
	return s.keep(ctx, pc, why.reason, b.fail, func(error) Result {
		return b.fail(DependencyUnavailable("the state of this conversation cannot be read right now"))
	})
}

// approvedUndo runs the undo pc held for approval: it reverts the calls
// it previewed, and nothing when they are no longer the newest of the
// journal (undone already, or later calls came since).
func (s *Session) approvedUndo(ctx context.Context, pc PendingCall) Result {
	b := builtins()[UndoLastActions]
	var ua undoArgs
	if err := json.Unmarshal(pc.Args, &ua); err != nil || len(ua.Calls) == 0 {
		return b.fail(Internal("the undo waiting for approval as " + pc.ID + " is not one this session made"))
	}
	rep, err := s.undo(ctx, len(ua.Calls), ua.Calls, true)
	return s.undoResult(b, rep, err)
}

// toolIndex is what the session's searches know of a tool set: made once
// per set of registered tools.
type toolIndex struct {
	set *toolSet
	// hiddenNeed is the least autonomy that may call some hidden tool
	// (AutonomyDefault: no hidden tool).
	hiddenNeed Autonomy
	once       sync.Once
	ix         *discovery.Index
	// untrustedVia are the tools that call, through their dependencies, a
	// tool that returns untrusted output, with the first such tool found.
	untrustedVia map[string]string
	// composite are the tools that depend on other registered tools.
	composite map[string]bool
}

func (t *toolIndex) hiddenAt(a Autonomy) bool {
	return t.hiddenNeed != AutonomyDefault && (a >= AutonomySupervised || t.hiddenNeed <= a)
}

// index returns the discovery index of every tool, built on first use.
func (t *toolIndex) index() *discovery.Index {
	t.once.Do(func() {
		docs := make([]discovery.Doc, len(t.set.sorted))
		for i, e := range t.set.sorted {
			m := e.meta
			docs[i] = discovery.Doc{Name: m.Name, Description: m.Description, Args: m.ArgsSchema, Queries: m.Queries, Category: m.Category}
		}
		t.ix = discovery.New(docs)
	})
	return t.ix
}

// toolIndex returns the index of the registered tools.
func (r *Registry) toolIndex() *toolIndex {
	set := r.tools.Load()
	if ti := r.index.Load(); ti != nil && ti.set == set {
		return ti
	}
	ti := &toolIndex{set: set}
	for _, e := range set.sorted {
		if e.meta.Exposure == ExposureHidden && (ti.hiddenNeed == AutonomyDefault || e.need < ti.hiddenNeed) {
			ti.hiddenNeed = e.need
		}
	}
	ti.untrustedVia = untrustedVia(set)
	ti.composite = map[string]bool{}
	for _, e := range set.sorted {
		for _, d := range e.meta.Dependencies {
			if set.byName[d] != nil {
				ti.composite[e.meta.Name] = true
				break
			}
		}
	}
	r.index.Store(ti)
	return ti
}

// untrustedVia maps each tool whose dependencies lead to a returns_untrusted
// tool to that tool's name.
func untrustedVia(set *toolSet) map[string]string {
	out := map[string]string{}
	state := map[string]uint8{} // 1: visiting, 2: done
	var visit func(e *entry) string
	visit = func(e *entry) string {
		name := e.meta.Name
		switch state[name] {
		case 1:
			return "" // a cycle: lint reports it
		case 2:
			return out[name]
		}
		state[name] = 1
		via := ""
		for _, d := range e.meta.Dependencies {
			de := set.byName[d]
			if de == nil {
				continue // a service
			}
			if de.meta.ReturnsUntrusted {
				via = d
			} else if v := visit(de); v != "" {
				via = v
			}
			if via != "" {
				break
			}
		}
		state[name] = 2
		if via != "" {
			out[name] = via
		}
		return via
	}
	for _, e := range set.sorted {
		visit(e)
	}
	return out
}

// undoNeedsApproval says why the model's undo of the last n calls needs
// the user's approval, as the calls themselves would now (supervised
// autonomy, taint), with the calls it would revert, newest first; why is
// nil when it needs none.
func (s *Session) undoNeedsApproval(ctx context.Context, n int) (calls []JournalEntry, why *approval, te *ToolError) {
	st, err := s.load(ctx)
	if err != nil {
		return nil, nil, DependencyUnavailable("the state of this conversation cannot be read right now")
	}
	j, err := s.loadJournal(ctx)
	if err != nil {
		return nil, nil, DependencyUnavailable("the journal of this conversation cannot be read right now")
	}
	set := s.r.tools.Load().byName
	for i := len(j.Calls) - 1; i >= 0 && i >= len(j.Calls)-n; i-- {
		c := j.Calls[i]
		calls = append(calls, c)
		e := set[c.Tool]
		if e == nil || why != nil {
			continue
		}
		if w := s.approvalReason(e, st, s.autonomy); w != nil {
			why = &approval{tainted: w.tainted, reason: "undoing " + c.Tool + " (call " + c.ID + ") needs the user's approval: " + w.reason}
		}
	}
	return calls, why, nil
}
