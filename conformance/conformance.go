// Package conformance checks tool implementations against the promises of
// their catalog entries. The conformance test toolcat generates in each
// package calls [Run] with the package's registry, what the catalog says
// of each tool ([Spec]) and the host's [Options].
//
// Run calls the real implementations with the catalog's examples and with
// arguments it generates from each tool's args schema, valid and invalid,
// so the implementations under test must be given test doubles of their
// databases and services. See README.md for the checks.
package conformance

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/toolcat/toolcat/runtime"
)

// Spec is what the catalog says of one tool, beyond its runtime.Meta: where
// it is written and the examples and error codes it declares.
type Spec struct {
	// Pos is the position of the tool in the catalog, "file:line:col".
	Pos string
	// Fields are the positions of the fields the checks refer to ("args",
	// "result", "errors", "has_side_effects", "supports_dry_run",
	// "revertible") when the catalog writes them.
	Fields map[string]string
	// Errors are the error codes the catalog declares for the tool.
	Errors []string
	// Examples are the catalog's examples of calls.
	Examples []Example
}

// NamedSpec is one tool's row of the table a generated conformance test
// declares: the compiler lays a table of them out as static data, where a
// map of Specs (and the Fields map in each) would be code a tool in the
// test's init.
type NamedSpec struct {
	// Name is the tool's name.
	Name string
	// Spec is what the catalog says of it, but Fields.
	Spec Spec
	// Fields are Spec.Fields as pairs: name, position, name, position...
	Fields []string
}

// Specs returns the specs of table by tool name, each with its Fields.
func Specs(table []NamedSpec) map[string]Spec {
	specs := make(map[string]Spec, len(table))
	for _, e := range table {
		if len(e.Fields) > 0 {
			e.Spec.Fields = make(map[string]string, len(e.Fields)/2)
			for i := 0; i+1 < len(e.Fields); i += 2 {
				e.Spec.Fields[e.Fields[i]] = e.Fields[i+1]
			}
		}
		specs[e.Name] = e.Spec
	}
	return specs
}

// Example is a catalog example of a call: arguments as JSON and, when the
// catalog states them, the expected result (JSON) or error code.
type Example struct {
	Description string
	Args        string
	Result      string
	Error       string
	// Pos is the example's position in the catalog, for failure messages.
	Pos string
}

// Check names one promise the harness verifies. Options.Skip turns a check
// off for one tool.
type Check string

// The checks, in the order they run.
const (
	// CheckExamples: every example validates against the args schema,
	// runs through the registry, and gives the result or error code it
	// states.
	CheckExamples Check = "examples"
	// CheckValidArgs: arguments generated from the args schema reach the
	// tool.
	CheckValidArgs Check = "valid_args"
	// CheckInvalidArgs: arguments the schema refuses (wrong type, a
	// required one left out, out of bounds, unknown) are answered
	// invalid_args without reaching the tool.
	CheckInvalidArgs Check = "invalid_args"
	// CheckResult: the data of every successful call validates against
	// the result schema.
	CheckResult Check = "result"
	// CheckErrors: every error is an envelope with a code the catalog
	// declares for the tool (invalid_args and the context's own errors
	// excepted); no panics, no plain Go errors.
	CheckErrors Check = "errors"
	// CheckImplemented: no call answers runtime.ErrNotImplemented.
	CheckImplemented Check = "implemented"
	// CheckReadOnly: a tool without side effects leaves the probed state
	// unchanged.
	CheckReadOnly Check = "read_only"
	// CheckDeterministic: a tool named in Options.Deterministic gives the
	// same answer twice for the same arguments.
	CheckDeterministic Check = "deterministic"
	// CheckDryRun: a dry run of a tool with side effects runs DryRun, not
	// Execute, and leaves the probed state unchanged.
	CheckDryRun Check = "dry_run"
	// CheckRevert: after every successful Execute of a revertible tool,
	// Revert succeeds and restores the probed state.
	CheckRevert Check = "revert"
	// CheckCancellation: with a context already done, the tool returns
	// within Options.CancelWithin.
	CheckCancellation Check = "cancellation"
)

// Checks returns every check, in the order they run.
func Checks() []Check {
	return []Check{CheckExamples, CheckValidArgs, CheckInvalidArgs, CheckResult, CheckErrors,
		CheckImplemented, CheckReadOnly, CheckDeterministic, CheckDryRun, CheckRevert, CheckCancellation}
}

// promises say, for failure messages, what each check expects.
var promises = map[Check]string{
	CheckExamples:      "its catalog examples run as stated",
	CheckValidArgs:     "arguments its args schema accepts reach the tool",
	CheckInvalidArgs:   "arguments its args schema refuses are answered invalid_args without reaching the tool",
	CheckResult:        "its results validate against its result schema",
	CheckErrors:        "its errors are envelopes with a code its catalog declares",
	CheckImplemented:   "every body it has is written",
	CheckReadOnly:      "a tool without side effects changes nothing",
	CheckDeterministic: "it answers the same arguments with the same result",
	CheckDryRun:        "a dry run runs DryRun, not Execute, and changes nothing",
	CheckRevert:        "Revert after Execute restores the state before it",
	CheckCancellation:  "it returns promptly once its context is done",
}

// fields name the catalog field each check points at in failures.
var fields = map[Check]string{
	CheckValidArgs:   "args",
	CheckInvalidArgs: "args",
	CheckResult:      "result",
	CheckErrors:      "errors",
	CheckReadOnly:    "has_side_effects",
	CheckDryRun:      "supports_dry_run",
	CheckRevert:      "revertible",
}

// Options adapt the checks to the host. The zero value runs every check
// that needs nothing from the host.
type Options struct {
	// Probe returns a snapshot of the state the tools act on (the rows of
	// a test database, the files of a temporary folder), to compare before
	// and after calls. Snapshots are compared with go-cmp, unexported
	// fields included, and types with an Equal method use it. Without a
	// Probe, read_only, dry_run and revert do not compare state.
	Probe func(ctx context.Context) (any, error)
	// Deterministic names the tools without side effects that answer the
	// same arguments with the same result (over the test doubles).
	Deterministic []string
	// Skip turns off checks for one tool, each with the reason:
	//
	//	Skip: map[string]map[conformance.Check]string{
	//		"fetch_web_page": {conformance.CheckCancellation: "the fake web answers at once"},
	//	}
	Skip map[string]map[Check]string
	// CancelWithin is how soon a tool must return once its context is done
	// (default 1s).
	CancelWithin time.Duration
	// RegistryOptions configure the registry the harness calls the tools
	// through (its logger goes to the test log by default).
	RegistryOptions []runtime.Option
}

// Run checks every tool of reg against specs, the catalog's facts by tool
// name, with one subtest per tool and check. The tools are called through
// a registry of the harness's own, one tool at a time, wrapped to observe
// whether and how each call reached the implementation.
func Run(t *testing.T, reg *runtime.Registry, specs map[string]Spec, opts Options) {
	t.Helper()
	run(testingT{t}, reg, specs, opts)
}

func run(t tester, reg *runtime.Registry, specs map[string]Spec, opts Options) {
	t.Helper()
	if opts.CancelWithin <= 0 {
		opts.CancelWithin = time.Second
	}
	if !checkOptions(t, reg, specs, &opts) {
		return
	}
	det := map[string]bool{}
	for _, n := range opts.Deterministic {
		det[n] = true
	}
	tools := reg.List()
	byName := make(map[string]runtime.Tool, len(tools))
	for _, tool := range tools {
		byName[tool.Meta.Name] = tool
	}
	for _, tool := range tools {
		name := tool.Meta.Name
		t.Run(name, func(t tester) {
			r := &toolRun{
				name: name, tool: tool, deps: dependencyTools(name, byName), spec: specs[name], opts: &opts,
				skip: opts.Skip[name], deterministic: det[name],
			}
			r.run(t)
		})
	}
}

// checkOptions reports options that name no tool or no check, or give no
// reason, and catalog tools missing from the registry.
func checkOptions(t tester, reg *runtime.Registry, specs map[string]Spec, opts *Options) bool {
	ok := true
	known := map[Check]bool{}
	for _, c := range Checks() {
		known[c] = true
	}
	names := make([]string, 0, len(specs))
	for n := range specs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if _, found := reg.Get(n); !found {
			t.Errorf("%s: %s: the catalog declares the tool, the registry lacks it", specs[n].Pos, n)
			ok = false
		}
	}
	for _, n := range sortedSkipTools(opts.Skip) {
		if _, found := reg.Get(n); !found {
			t.Errorf("conformance.Options.Skip names %q, which is not a tool of the registry", n)
			ok = false
		}
		for c, reason := range opts.Skip[n] {
			switch {
			case !known[c]:
				t.Errorf("conformance.Options.Skip[%q] names the check %q; the checks are %s", n, c, checkList())
				ok = false
			case strings.TrimSpace(reason) == "":
				t.Errorf("conformance.Options.Skip[%q][%q]: give the reason for skipping the check", n, c)
				ok = false
			}
		}
	}
	for _, n := range opts.Deterministic {
		tool, found := reg.Get(n)
		switch {
		case !found:
			t.Errorf("conformance.Options.Deterministic names %q, which is not a tool of the registry", n)
			ok = false
		case tool.Meta.HasSideEffects:
			t.Errorf("conformance.Options.Deterministic names %s, which has side effects: calling it twice is not a repeat", n)
			ok = false
		}
	}
	return ok
}

func sortedSkipTools(m map[string]map[Check]string) []string {
	out := make([]string, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func checkList() string {
	var s []string
	for _, c := range Checks() {
		s = append(s, string(c))
	}
	return strings.Join(s, ", ")
}

// tester is the part of *testing.T the harness uses, so that its own tests
// can record failures instead of failing.
type tester interface {
	Helper()
	Errorf(format string, args ...any)
	Logf(format string, args ...any)
	// Skipf marks the test skipped; unlike testing.T's, the caller returns
	// by itself.
	Skipf(format string, args ...any)
	Run(name string, f func(t tester)) bool
	Context() context.Context
}

type testingT struct{ *testing.T }

func (t testingT) Run(name string, f func(tester)) bool {
	return t.T.Run(name, func(tt *testing.T) { f(testingT{tt}) })
}

func (t testingT) Skipf(format string, args ...any) {
	t.T.Helper()
	t.T.Skipf(format, args...)
}

func (t testingT) Context() context.Context { return t.T.Context() }

// pos returns the position of field in the catalog, or the tool's when the
// catalog does not write the field.
func (s *Spec) pos(field string) string {
	if p, ok := s.Fields[field]; ok && p != "" {
		return p
	}
	if s.Pos != "" {
		return s.Pos
	}
	return "(no catalog position)"
}

// describe formats a failure: position, tool, check and its promise, then
// what happened.
func describe(pos, tool string, c Check, format string, args ...any) string {
	return fmt.Sprintf("%s: %s: %s: %s; %s", pos, tool, c, promises[c], fmt.Sprintf(format, args...))
}

// dependencyTools returns the tools of the host's registry that tool name
// depends on, directly or through other tools, so that a tool whose body
// calls them (runtime.CallTool) runs in the harness as in the host.
func dependencyTools(name string, byName map[string]runtime.Tool) []runtime.Tool {
	var out []runtime.Tool
	seen := map[string]bool{name: true}
	queue := []string{name}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, d := range byName[n].Meta.Dependencies {
			dep, ok := byName[d]
			if !ok || seen[d] {
				continue // a service, or a tool already taken
			}
			seen[d] = true
			out = append(out, dep)
			queue = append(queue, d)
		}
	}
	return out
}
