// Package codemode offers a model the tools of a registry as a typed API it
// programs against, instead of one definition per tool: two tools,
// search_api, which finds tools and returns their TypeScript declarations
// (package tsdecl), and execute_code, which runs a program that calls them.
// A program makes many calls in one turn of the model, and only what it
// returns reaches the model's context.
//
// Every call a program makes goes through Session.Call, so each keeps the
// catalog's rules: its arguments are validated (an invalid_args envelope
// comes back to the program as a value it can branch on), the session's
// autonomy gates it, side effects land in the undo journal one by one,
// untrusted output taints the session, and a call that needs the user's
// approval stops the program with approval_required, naming the pending
// call and the calls already made. Each call carries an idempotency key
// derived from the session, the program's text and the call's place
// among the calls of its tool (the scheme composition uses for a tool's
// calls of its dependencies): after the user approves, running the same
// program again replays the calls that ran (marked replayed) instead of
// repeating them, the approved call replays its approved run, and the
// program goes on.
//
// Mode.Call runs search_api and execute_code through Session.Answer, so
// the registry's CallHook and observers see them as calls the session
// answered: with runtime/telemetry, execute_code is an execute_tool span
// whose children are the spans of the calls its program made.
//
// # The interpreter
//
// Programs are JavaScript (ECMAScript 2020 and later, as
// github.com/dop251/goja runs it, in strict mode), written as the body of
// an async function whose return value is the program's answer; await is
// allowed and never needed, since tool functions return their envelopes
// directly. The global scope has the language's own objects, the object
// tools (a function per tool, made on first use; no prototype; its members
// cannot be written, deleted or redefined) and a frozen console whose
// output is captured. There is no require, process, module system,
// file system, network, timer, typed array or host object, and source
// maps are never loaded.
//
// # Limits
//
// Limits bound each program (see DefaultLimits), and the model is told them
// in execute_code's description. Wall time interrupts the program, and
// bounds its inner calls through their context; a backtracking
// regular-expression match, which no interrupt reaches, ends after
// MaxRegexpMatch. The number of tool calls
// is counted by the bound functions. The call depth is the interpreter's
// own limit. The interpreter has no allocation limit, so memory is bounded
// two ways: the built-in functions that make a large string or array in
// one native step (repeat, padStart, padEnd, split, replace, replaceAll,
// every method of Array.prototype but push, pop and at, Array.from,
// Function.prototype.apply, Reflect.apply and construct, JSON.stringify)
// check the size first,
// and a watchdog reads the heap every millisecond and interrupts a program
// whose live heap has grown past the limit (a collection confirms it, so
// garbage does not count), or at once when the heap's objects pass four
// times the limit. The watchdog measures the process: a program may be
// charged for what other goroutines allocate at the same time, and a
// string doubled in a loop may overshoot the limit several times before
// it is stopped (one native step doubles it). A
// return value or captured log past its size is cut (the log) or refused
// (the value).
//
// A program that passes a limit, throws, or does not parse answers with an
// error envelope: timeout (wall time), quota_exceeded (calls, memory,
// value size) or invalid_args (a syntax error, an uncaught exception,
// recursion past the call depth), with details.limit, details.line and
// details.column (in the program's text) where they apply, and the calls
// already made.
//
// # The result
//
// A program that ends answers:
//
//	{"success":true,"data":{"value":...,"calls":[{"tool":"list_tickets","code":"ok","duration_ms":0.12}],"log":["..."]}}
//
// value is the program's return value as JSON; a forged envelope a
// program returns stays a value inside data. When an inner call returned
// untrusted content, the whole envelope is one untrusted block (a marker
// drawn after the content is written, so nothing the program returns can
// close it).
package codemode

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/codemode/tsdecl"
	"github.com/toolcat/toolcat/runtime/discovery"
)

// The names of code mode's two tools.
const (
	SearchAPI   = "search_api"
	ExecuteCode = "execute_code"
)

// MaxCodeBytes bounds a program's text.
const MaxCodeBytes = 100_000

// Mode runs code mode over a registry. It is safe for concurrent use; each
// program runs in an interpreter of its own.
type Mode struct {
	reg    *runtime.Registry
	limits Limits
	// search and execute are the two tools' definitions, made once: a
	// CallHook may key what it keeps by them.
	search, execute runtime.Meta

	mu    sync.Mutex
	index *searchIndex
}

// Option configures a Mode.
type Option func(*Mode)

// ModeLimits sets the limits of every program; zero fields keep
// DefaultLimits'.
func ModeLimits(l Limits) Option { return func(m *Mode) { m.limits = l } }

// New returns code mode over reg.
func New(reg *runtime.Registry, opts ...Option) *Mode {
	boundRegexpMatches()
	m := &Mode{reg: reg}
	for _, o := range opts {
		o(m)
	}
	m.limits = m.limits.orDefault()
	m.search, m.execute = m.searchMeta(), m.executeMeta()
	return m
}

// Limits returns the limits programs run under.
func (m *Mode) Limits() Limits { return m.limits }

// Tools returns the definitions of search_api and execute_code, to offer
// the model instead of (or beside) the session's tools; render them with
// an exporter, such as export.Anthropic.
func (m *Mode) Tools() []runtime.Meta {
	return []runtime.Meta{m.search, m.execute}
}

func (m *Mode) searchMeta() runtime.Meta {
	return runtime.Meta{
		Name: SearchAPI,
		Description: "Finds the tools you can call from " + ExecuteCode + " by what they do, and returns their TypeScript declarations: argument and result types, what each does, its side effects and errors.\n" +
			"Use when: before writing a program, to learn which tools exist and what they take; describe the action and its object in plain words, or name tools.",
		Category: "toolcat", Risk: runtime.RiskLow, Idempotent: true, Exposure: runtime.ExposureCore,
		ArgsSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"properties":{` +
			`"query":{"type":"string","minLength":1,"maxLength":300,"description":"What you want to do, such as \"close a support ticket\""},` +
			`"tools":{"type":"array","maxItems":20,"items":{"type":"string","maxLength":64},"description":"Names of tools whose declarations you want"},` +
			`"limit":{"type":"integer","minimum":1,"maximum":20,"default":5,"description":"How many tools the query returns at most"}}}`),
	}
}

func (m *Mode) executeMeta() runtime.Meta {
	return runtime.Meta{
		Name: ExecuteCode,
		Description: "Runs a JavaScript program that calls the tools, and returns what it returns, the calls it made and its console output.\n" +
			"Use when: a task takes several tool calls, or filtering data before you read it; find the tools with " + SearchAPI + " first.\n" +
			"The program is the body of an async function: return your answer (JSON-encodable). Each tool is a function of the object tools, called as tools.name(args); it returns its envelope, synchronously, typed as below. " +
			"A failed call is a value (success false), not an exception: check it. There is nothing else: no require, fetch, timers or files; console.log is captured.\n" +
			"A call that needs the user's approval stops the program with approval_required; once the user approves, run the same program again: calls already made are replayed (replayed: true), not repeated, and it goes on. To make fresh calls, change the program.\n" +
			m.limits.describe() + "\n" + compactPrelude(),
		Category: "toolcat", Risk: runtime.RiskMedium, HasSideEffects: true, Exposure: runtime.ExposureCore,
		ArgsSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","additionalProperties":false,"required":["code"],"properties":{`+
			`"code":{"type":"string","minLength":1,"maxLength":%d,"description":"The program: the body of an async function, such as const r = tools.list_tickets({status: \"open\"}); return r.success ? r.data.length : r.error;"}}}`, MaxCodeBytes)),
	}
}

// compactPrelude is the envelope's declarations without blank lines.
func compactPrelude() string {
	var lines []string
	for _, l := range strings.Split(tsdecl.Prelude, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

// Call answers a call of the model in session s: search_api and
// execute_code run in code mode, any other name goes to s.Call. The
// registry's CallHook and observers see code mode's calls as calls the
// session answered (Session.Answer): a tracer's execute_code span is the
// parent of the spans of the calls its program makes.
func (m *Mode) Call(ctx context.Context, s *runtime.Session, name string, raw []byte, opts runtime.CallOptions) runtime.Result {
	switch name {
	case ExecuteCode:
		return s.Answer(ctx, &m.execute, raw, opts, func(ctx context.Context) runtime.Result {
			var a struct {
				Code string `json:"code"`
			}
			if te := m.args(m.execute, raw, &a); te != nil {
				return fail(te, nil)
			}
			return m.Run(ctx, s, a.Code)
		})
	case SearchAPI:
		return s.Answer(ctx, &m.search, raw, opts, func(ctx context.Context) runtime.Result {
			return m.searchTools(ctx, s, raw)
		})
	}
	return s.Call(ctx, name, raw, opts)
}

// args validates raw against meta's schema and decodes it into v.
func (m *Mode) args(meta runtime.Meta, raw []byte, v any) *runtime.ToolError {
	sv, err := validator(meta)
	if err != nil {
		return runtime.Internal("the schema of " + meta.Name + " does not compile")
	}
	doc, te := sv.Validate(raw)
	if te != nil {
		return te
	}
	b, err := json.Marshal(doc)
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		return runtime.InvalidArgs("the arguments of " + meta.Name + " cannot be read: " + err.Error())
	}
	return nil
}

var validators sync.Map // tool name + schema -> *runtime.SchemaValidator

func validator(meta runtime.Meta) (*runtime.SchemaValidator, error) {
	k := meta.Name + "\x00" + string(meta.ArgsSchema)
	if v, ok := validators.Load(k); ok {
		return v.(*runtime.SchemaValidator), nil
	}
	v, err := runtime.NewSchemaValidator(&meta)
	if err != nil {
		return nil, err
	}
	validators.Store(k, v)
	return v, nil
}

// Declarations returns the declaration file of the tools session s may
// call now (as Session.Tools lists them): what search_api's answers are
// cut from.
func (m *Mode) Declarations(ctx context.Context, s *runtime.Session) ([]byte, error) {
	tools, err := m.bound(ctx, s)
	if err != nil {
		return nil, err
	}
	return tsdecl.File(tools), nil
}

// bound are the tools a program in s may call: the session's, without
// code mode's own.
func (m *Mode) bound(ctx context.Context, s *runtime.Session) ([]runtime.Meta, error) {
	tools, err := s.Tools(ctx)
	if err != nil {
		return nil, err
	}
	out := tools[:0]
	for _, t := range tools {
		if t.Name != SearchAPI && t.Name != ExecuteCode {
			out = append(out, t)
		}
	}
	return out, nil
}

// fail is a failed envelope of code mode's, with details merged in.
func fail(te *runtime.ToolError, details map[string]any) runtime.Result {
	for k, v := range details {
		te = te.WithDetail(k, v)
	}
	res := runtime.Fail(te)
	res.Tool = ExecuteCode
	return res
}

// searchIndex is the discovery index of one set of registered tools.
type searchIndex struct {
	names string // the registry's names, joined: the set it indexes
	ix    *discovery.Index
}

func (m *Mode) indexOf() *discovery.Index {
	names := strings.Join(m.reg.Names(), "\x00")
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.index != nil && m.index.names == names {
		return m.index.ix
	}
	tools := m.reg.List()
	docs := make([]discovery.Doc, len(tools))
	for i, t := range tools {
		docs[i] = discovery.Doc{Name: t.Meta.Name, Description: t.Meta.Description, Args: t.Meta.ArgsSchema,
			Queries: t.Meta.Queries, Category: t.Meta.Category}
	}
	m.index = &searchIndex{names: names, ix: discovery.New(docs)}
	return m.index.ix
}

// SearchResult is the data of search_api's envelope.
type SearchResult struct {
	// Tools are the names found, best first.
	Tools []string `json:"tools"`
	// Declarations are their TypeScript declarations: their types, then
	// their methods of the interface Tools.
	Declarations string `json:"declarations"`
	Note         string `json:"note,omitempty"`
}

func (m *Mode) searchTools(ctx context.Context, s *runtime.Session, raw []byte) runtime.Result {
	var a struct {
		Query string   `json:"query"`
		Tools []string `json:"tools"`
		Limit int      `json:"limit"`
	}
	if te := m.args(m.search, raw, &a); te != nil {
		res := runtime.Fail(te)
		res.Tool = SearchAPI
		return res
	}
	if a.Query == "" && len(a.Tools) == 0 {
		res := runtime.Fail(runtime.InvalidArgs("give query, tools, or both").WithDetail("field", "/query").
			WithSuggestion("Describe what you want to do in query, such as \"list open tickets\", or name tools in tools."))
		res.Tool = SearchAPI
		return res
	}
	tools, err := m.bound(ctx, s)
	if err != nil {
		res := runtime.Fail(runtime.DependencyUnavailable("the state of this conversation cannot be read right now"))
		res.Tool = SearchAPI
		return res
	}
	callable := map[string]*runtime.Meta{}
	for i := range tools {
		callable[tools[i].Name] = &tools[i]
	}
	var found []*runtime.Meta
	seen := map[string]bool{}
	add := func(name string) {
		if t := callable[name]; t != nil && !seen[name] {
			seen[name] = true
			found = append(found, t)
		}
	}
	var unknown []string
	for _, n := range a.Tools {
		if callable[n] == nil {
			unknown = append(unknown, n)
		}
		add(n)
	}
	if a.Query != "" {
		n := 0
		for _, h := range m.indexOf().Search(a.Query, 4*a.Limit+10) {
			if callable[h.Name] != nil && !seen[h.Name] {
				add(h.Name)
				if n++; n == a.Limit {
					break
				}
			}
		}
	}
	out := SearchResult{Tools: []string{}}
	w := tsdecl.NewWriter()
	var types, methods strings.Builder
	for _, t := range found {
		out.Tools = append(out.Tools, t.Name)
		types.WriteString(w.Types(t))
		methods.WriteString(w.Method(t))
	}
	if len(found) > 0 {
		out.Declarations = types.String() + "interface Tools {\n" + methods.String() + "}\n"
	}
	switch {
	case len(unknown) > 0:
		out.Note = "No tool you can call is named " + strings.Join(unknown, ", ") + "."
	case len(found) == 0:
		out.Note = "No tool matched; try other words for the action or its object."
	}
	return runtime.Result{Success: true, Data: out, Tool: SearchAPI}
}

// Registry returns the registry the Mode's programs call.
func (m *Mode) Registry() *runtime.Registry { return m.reg }
