package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolcat/toolcat/runtime"
)

// recorder is a tester that records failures instead of failing.
type recorder struct {
	name string
	log  *record
}

type record struct {
	mu      sync.Mutex
	errs    []string
	logs    []string
	skipped []string
}

func newRecorder() *recorder { return &recorder{name: "T", log: &record{}} }

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.log.mu.Lock()
	defer r.log.mu.Unlock()
	r.log.errs = append(r.log.errs, r.name+": "+fmt.Sprintf(format, args...))
}
func (r *recorder) Logf(format string, args ...any) {
	r.log.mu.Lock()
	defer r.log.mu.Unlock()
	r.log.logs = append(r.log.logs, r.name+": "+fmt.Sprintf(format, args...))
}
func (r *recorder) Skipf(format string, args ...any) {
	r.log.mu.Lock()
	defer r.log.mu.Unlock()
	r.log.skipped = append(r.log.skipped, r.name+": "+fmt.Sprintf(format, args...))
}
func (r *recorder) Run(name string, f func(tester)) bool {
	f(&recorder{name: r.name + "/" + name, log: r.log})
	return true
}
func (r *recorder) Context() context.Context { return context.Background() }

func (r *recorder) errors() []string {
	r.log.mu.Lock()
	defer r.log.mu.Unlock()
	return append([]string(nil), r.log.errs...)
}

// items is the state of the fake tools: item names by id.
type items struct {
	mu sync.Mutex
	m  map[int]string
}

func (s *items) snapshot(context.Context) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cp := map[int]string{}
	for k, v := range s.m {
		cp[k] = v
	}
	return cp, nil
}

func (s *items) set(id int, v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[id] = v
}

const argsSchema = `{
	"type": "object", "additionalProperties": false, "required": ["id"],
	"properties": {
		"id": {"type": "integer", "minimum": 1, "maximum": 100},
		"name": {"type": "string", "minLength": 2, "maxLength": 10, "pattern": "^[a-z]+$"},
		"kind": {"enum": ["a", "b"]},
		"tags": {"type": "array", "maxItems": 3, "items": {"type": "string"}}
	}}`

const resultSchema = `{"type": "object", "additionalProperties": false, "required": ["id"],
	"properties": {"id": {"type": "integer"}}}`

func idOf(args any) int {
	f, _ := args.(map[string]any)["id"].(float64)
	return int(f)
}

// fixture is a registry of one conformant tool, get_item, changed by each
// case to break one promise.
type fixture struct {
	tool  runtime.Tool
	spec  Spec
	opts  Options
	state *items
}

func newFixture() *fixture {
	st := &items{m: map[int]string{1: "one"}}
	f := &fixture{state: st}
	f.tool = runtime.Tool{
		Meta: runtime.Meta{Name: "get_item", ArgsSchema: json.RawMessage(argsSchema), ResultSchema: json.RawMessage(resultSchema)},
		Execute: func(ctx context.Context, args any) (any, error) {
			id := idOf(args)
			if id == 99 {
				return nil, runtime.NotFound("no item 99")
			}
			return map[string]any{"id": id}, nil
		},
	}
	f.spec = Spec{
		Pos:    "cat.yaml:3:3",
		Fields: map[string]string{"result": "cat.yaml:9:5", "errors": "cat.yaml:12:5"},
		Errors: []string{"not_found"},
		Examples: []Example{
			{Args: `{"id": 7}`, Result: `{"id": 7}`, Pos: "cat.yaml:15:9"},
			{Args: `{"id": 99}`, Error: "not_found", Pos: "cat.yaml:16:9"},
		},
	}
	f.opts = Options{Probe: st.snapshot, Deterministic: []string{"get_item"}, CancelWithin: 200 * time.Millisecond}
	return f
}

// sideEffects turns the fixture's tool into set_item, which writes, dry
// runs and reverts.
func (f *fixture) sideEffects() {
	m := &f.tool.Meta
	m.Name, m.HasSideEffects, m.IdempotencyRequired, m.SupportsDryRun, m.Revertible = "set_item", true, true, true, true
	m.Risk = runtime.RiskMedium
	f.opts.Deterministic = nil
	st := f.state
	f.tool.Execute = func(ctx context.Context, args any) (any, error) {
		if idOf(args) == 99 {
			return nil, runtime.NotFound("no item 99")
		}
		st.set(idOf(args), "set")
		return map[string]any{"id": idOf(args)}, nil
	}
	f.tool.DryRun = func(ctx context.Context, args any) (any, error) {
		return &runtime.Preview{Summary: "would set"}, nil
	}
	f.tool.Revert = func(ctx context.Context, args any, result json.RawMessage) (any, error) {
		st.mu.Lock()
		defer st.mu.Unlock()
		if idOf(args) == 1 {
			st.m[1] = "one"
		} else {
			delete(st.m, idOf(args))
		}
		return nil, nil
	}
}

func (f *fixture) run(t *testing.T) *recorder {
	t.Helper()
	reg := runtime.New()
	if err := reg.Register(f.tool); err != nil {
		t.Fatal(err)
	}
	rec := newRecorder()
	run(rec, reg, map[string]Spec{f.tool.Meta.Name: f.spec}, f.opts)
	return rec
}

func TestConformantTools(t *testing.T) {
	for _, tc := range []struct {
		desc  string
		setup func(f *fixture)
	}{
		{"read-only tool", func(f *fixture) {}},
		{"tool with side effects, dry run and revert", (*fixture).sideEffects},
		{"untrusted output, checked before wrapping", func(f *fixture) {
			// The wrapped strings are longer than maxLength, and their
			// markers differ on every call.
			f.tool.Meta.ReturnsUntrusted = true
			f.tool.Meta.ResultSchema = json.RawMessage(`{"type": "object", "properties": {"id": {"type": "integer"}, "text": {"type": "string", "maxLength": 5}}}`)
			f.tool.Execute = func(ctx context.Context, args any) (any, error) {
				if idOf(args) == 99 {
					return nil, runtime.NotFound("no item 99")
				}
				return map[string]any{"id": idOf(args), "text": "hello"}, nil
			}
			f.spec.Examples[0].Result = `{"id": 7, "text": "hello"}`
		}},
		{"additional_args strip lets unknown arguments through", func(f *fixture) {
			f.tool.Meta.AdditionalArgs = runtime.AdditionalArgsStrip
		}},
		{"checks skipped with a reason", func(f *fixture) {
			f.tool.Execute = func(ctx context.Context, args any) (any, error) { return map[string]any{"id": "seven"}, nil }
			f.spec.Examples = nil
			f.opts.Skip = map[string]map[Check]string{"get_item": {CheckResult: "the result schema is being rewritten"}}
		}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			f := newFixture()
			tc.setup(f)
			rec := f.run(t)
			if errs := rec.errors(); len(errs) > 0 {
				t.Errorf("a conformant tool failed:\n%s", strings.Join(errs, "\n"))
			}
		})
	}
}

// Each broken promise is caught, and the failure names the catalog
// position, the tool and the check.
func TestBrokenPromises(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	for _, tc := range []struct {
		desc  string
		setup func(f *fixture)
		want  string // a regular expression one failure must match
	}{
		{"example result differs", func(f *fixture) {
			f.spec.Examples[0].Result = `{"id": 8}`
		}, `^T/get_item/examples: cat.yaml:15:9: get_item: examples: .*the result is \{"id":7\}, the example states \{"id": 8\}`},
		{"example error differs", func(f *fixture) {
			f.spec.Examples[1].Error = "rate_limited"
		}, `cat.yaml:16:9: get_item: examples: .*want the error rate_limited, got .*not_found`},
		{"example arguments do not validate", func(f *fixture) {
			f.spec.Examples[0].Args = `{"id": 0}`
		}, `cat.yaml:15:9: get_item: examples: .*do not validate against the args schema: at /id`},
		{"result does not validate", func(f *fixture) {
			f.tool.Execute = func(ctx context.Context, args any) (any, error) { return map[string]any{"id": "seven"}, nil }
		}, `cat.yaml:9:5: get_item: result: its results validate against its result schema; .*returned \{"id":"seven"\}`},
		{"undeclared error code", func(f *fixture) {
			f.tool.Execute = func(ctx context.Context, args any) (any, error) { return nil, runtime.RateLimited("slow down") }
		}, `cat.yaml:12:5: get_item: errors: .*returned the code rate_limited \(slow down\), which its catalog entry does not declare; declare it under errors:`},
		{"plain Go error", func(f *fixture) {
			f.tool.Execute = func(ctx context.Context, args any) (any, error) { return nil, errors.New("db: connection reset") }
		}, `get_item: errors: .*a plain Go error \(db: connection reset\)`},
		{"panic", func(f *fixture) {
			f.tool.Execute = func(ctx context.Context, args any) (any, error) { panic("nil map") }
		}, `get_item: errors: .*the tool panicked \(nil map\)`},
		{"not implemented", func(f *fixture) {
			f.tool.Execute = func(ctx context.Context, args any) (any, error) { return nil, runtime.ErrNotImplemented }
		}, `^T/get_item/examples: cat.yaml:3:3: get_item: implemented: every body it has is written; a call answered runtime.ErrNotImplemented`},
		{"validator lets invalid arguments through", func(f *fixture) {
			f.tool.Validator = runtime.ValidatorFunc(func(raw []byte) (any, *runtime.ToolError) {
				var v map[string]any
				json.Unmarshal(raw, &v)
				return v, nil
			})
		}, `get_item: invalid_args: .*wrong type at /id \(string\): \{"id":"12".*\} reached the tool`},
		{"validator refuses valid arguments", func(f *fixture) {
			f.tool.Validator = runtime.ValidatorFunc(func(raw []byte) (any, *runtime.ToolError) {
				return nil, runtime.InvalidArgs("no")
			})
		}, `get_item: valid_args: arguments its args schema accepts reach the tool; generated arguments \(required arguments at their lower bounds\) \{"id":1\}, which its args schema accepts, were answered without reaching the tool`},
		{"not deterministic", func(f *fixture) {
			n := 0
			f.tool.Execute = func(ctx context.Context, args any) (any, error) { n++; return map[string]any{"id": n}, nil }
			f.spec.Examples = nil
		}, `get_item: deterministic: .*first \{"id":\d+\}, then \{"id":\d+\}`},
		{"a read-only tool writes", func(f *fixture) {
			f.tool.Execute = func(ctx context.Context, args any) (any, error) {
				f.state.set(idOf(args), "touched")
				return map[string]any{"id": idOf(args)}, nil
			}
		}, `get_item: read_only: .*the state changed after the call`},
		{"dry run writes", func(f *fixture) {
			f.sideEffects()
			f.tool.DryRun = func(ctx context.Context, args any) (any, error) {
				f.state.set(idOf(args), "previewed")
				return &runtime.Preview{Summary: "would set"}, nil
			}
		}, `set_item: dry_run: .*the state changed after the dry run`},
		{"revert does not restore", func(f *fixture) {
			f.sideEffects()
			f.tool.Revert = func(ctx context.Context, args any, result json.RawMessage) (any, error) { return nil, nil }
		}, `set_item: revert: Revert after Execute restores the state before it; .*the state changed after Execute then Revert`},
		{"revert fails", func(f *fixture) {
			f.sideEffects()
			f.tool.Revert = func(ctx context.Context, args any, result json.RawMessage) (any, error) {
				return nil, runtime.NotFound("gone")
			}
		}, `set_item: revert: .*Revert of the result \{"id":\d+\} failed: .*not_found`},
		{"ignores cancellation", func(f *fixture) {
			f.tool.Execute = func(ctx context.Context, args any) (any, error) {
				if ctx.Err() != nil {
					<-release
				}
				return map[string]any{"id": idOf(args)}, nil
			}
		}, `get_item: cancellation: it returns promptly once its context is done; .*did not return within 200ms`},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			f := newFixture()
			tc.setup(f)
			rec := f.run(t)
			errs := rec.errors()
			re := regexp.MustCompile(tc.want)
			for _, e := range errs {
				if re.MatchString(e) {
					return
				}
			}
			t.Errorf("no failure matches %s; got:\n%s", tc.want, strings.Join(errs, "\n"))
		})
	}
}

// A tool whose body calls the tools it depends on (runtime.CallTool) is
// checked with them registered beside it, as the host registered them.
func TestCompositeCallsItsDependencies(t *testing.T) {
	f := newFixture()
	m := &f.tool.Meta
	m.Name, m.Dependencies = "describe_item", []string{"postgresql", "lookup_item"}
	calls := 0
	f.tool.Execute = func(ctx context.Context, args any) (any, error) {
		res := runtime.CallTool(ctx, "lookup_item", fmt.Appendf(nil, `{"id":%d}`, idOf(args)))
		if !res.Success {
			return nil, res.Error
		}
		return map[string]any{"id": idOf(args)}, nil
	}
	lookup := runtime.Tool{
		Meta: runtime.Meta{Name: "lookup_item", ArgsSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"}}}`)},
		Execute: func(ctx context.Context, args any) (any, error) {
			calls++
			if idOf(args) == 99 {
				return nil, runtime.NotFound("no item 99")
			}
			return map[string]any{"id": idOf(args)}, nil
		},
	}
	reg := runtime.New()
	for _, tool := range []runtime.Tool{f.tool, lookup} {
		if err := reg.Register(tool); err != nil {
			t.Fatal(err)
		}
	}
	f.opts.Deterministic = nil
	rec := newRecorder()
	run(rec, reg, map[string]Spec{"describe_item": f.spec, "lookup_item": {Pos: "cat.yaml:20:3"}}, f.opts)
	if errs := rec.errors(); len(errs) > 0 {
		t.Errorf("a composite tool failed:\n%s", strings.Join(errs, "\n"))
	}
	if calls == 0 {
		t.Error("the composite's dependency was never called")
	}
}

func TestOptionsChecked(t *testing.T) {
	f := newFixture()
	f.opts.Skip = map[string]map[Check]string{
		"get_itm":  {CheckResult: "typo"},
		"get_item": {"results": "unknown check", CheckRevert: " "},
	}
	f.opts.Deterministic = []string{"get_item", "nope"}
	rec := f.run(t)
	got := strings.Join(rec.errors(), "\n")
	for _, want := range []string{
		`Skip names "get_itm", which is not a tool`,
		`Skip["get_item"] names the check "results"`,
		`Skip["get_item"]["revert"]: give the reason`,
		`Deterministic names "nope"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no failure says %s; got:\n%s", want, got)
		}
	}
}

func TestSkipIsReported(t *testing.T) {
	f := newFixture()
	f.opts.Skip = map[string]map[Check]string{"get_item": {CheckCancellation: "the fake answers at once"}}
	rec := f.run(t)
	if len(rec.log.skipped) != 1 || !strings.Contains(rec.log.skipped[0], "get_item/cancellation: the fake answers at once") {
		t.Errorf("skipped: %q", rec.log.skipped)
	}
}

func TestSampleOf(t *testing.T) {
	for _, p := range []string{`^o_[0-9]+$`, `^https://`, `[A-Z]{3}-\d{2,}`, `^(foo|bar)baz?$`, `^\w+@\w+\.com$`, `^[^\s]+$`} {
		s, err := sampleOf(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if !regexp.MustCompile(p).MatchString(s) {
			t.Errorf("%s: sample %q does not match", p, s)
		}
	}
}

// Generated arguments validate against schemas that use references,
// unions, formats, patterns and nested arrays; every mutation is refused by
// the schema.
func TestGeneratedArguments(t *testing.T) {
	const doc = `{
	"type": "object", "additionalProperties": false, "required": ["order_id", "address", "items", "mode"],
	"$defs": {"money": {"type": "object", "additionalProperties": false, "required": ["amount", "currency"],
		"properties": {"amount": {"type": "number", "minimum": 0}, "currency": {"type": "string", "enum": ["EUR", "USD"]}}}},
	"properties": {
		"order_id": {"type": "string", "pattern": "^o_[0-9]+$"},
		"mode": {"type": "string", "enum": ["ground", "air"]},
		"address": {"type": "object", "additionalProperties": false, "required": ["street"],
			"properties": {"street": {"type": "string", "minLength": 3}, "zip": {"type": ["string", "null"]}}},
		"items": {"type": "array", "minItems": 1, "maxItems": 5, "items": {"type": "object", "required": ["sku", "quantity"],
			"properties": {"sku": {"type": "string"}, "quantity": {"type": "integer", "exclusiveMinimum": 0, "multipleOf": 2}}}},
		"declared_value": {"$ref": "#/$defs/money"},
		"insurance": {"anyOf": [{"$ref": "#/$defs/money"}, {"type": "null"}]},
		"pickup_at": {"type": "string", "format": "date-time"},
		"contact": {"oneOf": [{"type": "string", "format": "email"}, {"type": "object", "required": ["number"], "properties": {"number": {"type": "string"}}}]},
		"api_version": {"const": "2024-01"},
		"url": {"type": "string", "format": "uri", "pattern": "^https://", "maxLength": 64},
		"ratio": {"type": "number", "exclusiveMaximum": 1, "minimum": 0}
	}}`
	s, err := compileSchema("t", "args", json.RawMessage(doc))
	if err != nil {
		t.Fatal(err)
	}
	valid, notes := validArgs(s)
	if len(valid) != 2 || len(notes) > 0 {
		t.Fatalf("want two sets of valid arguments, got %d; notes: %q", len(valid), notes)
	}
	for _, v := range valid {
		if err := s.validateJSON(v.json); err != nil {
			t.Errorf("%s: %v", v.json, err)
		}
	}
	muts := invalidArgs(s, valid[1].doc, runtime.AdditionalArgsReject)
	kinds := map[string]bool{}
	for _, m := range muts {
		if !m.policy && s.validateJSON(m.json) == nil {
			t.Errorf("%s: %s is valid", m.what, m.json)
		}
		kinds[strings.Fields(m.what)[0]] = true
	}
	for _, k := range []string{"wrong", "required", "unknown", "below", "at", "shorter", "longer", "not", "more", "fewer"} {
		if !kinds[k] {
			t.Errorf("no mutation of kind %q among %d", k, len(muts))
		}
	}
}

// A pattern that cannot be satisfied leaves the property out, and says so.
func TestUnsatisfiablePattern(t *testing.T) {
	s, err := compileSchema("t", "args", json.RawMessage(`{"type": "object", "required": ["a"],
		"properties": {"a": {"type": "string"}, "b": {"type": "string", "pattern": "^a$", "minLength": 3}}}`))
	if err != nil {
		t.Fatal(err)
	}
	valid, notes := validArgs(s)
	if len(valid) != 1 || len(notes) != 1 || !strings.Contains(notes[0], "/b: cannot find a string") {
		t.Errorf("valid %d, notes %q", len(valid), notes)
	}
}

func TestSpecs(t *testing.T) {
	specs := Specs([]NamedSpec{
		{Name: "a", Spec: Spec{Pos: "c.yaml:1:3", Errors: []string{"not_found"}}, Fields: []string{"args", "c.yaml:2:5", "result", "c.yaml:4:5"}},
		{Name: "b", Spec: Spec{Pos: "c.yaml:9:3"}},
	})
	if len(specs) != 2 {
		t.Fatalf("%d specs, want 2", len(specs))
	}
	a := specs["a"]
	if a.Pos != "c.yaml:1:3" || len(a.Errors) != 1 || len(a.Fields) != 2 || a.Fields["args"] != "c.yaml:2:5" || a.Fields["result"] != "c.yaml:4:5" {
		t.Errorf("a = %+v", a)
	}
	if b := specs["b"]; b.Pos != "c.yaml:9:3" || b.Fields != nil {
		t.Errorf("b = %+v: a tool without field positions has no Fields map", b)
	}
}
