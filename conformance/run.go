package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolcat/toolcat/runtime"
)

// toolRun checks one tool.
type toolRun struct {
	name          string
	tool          runtime.Tool   // as registered by the host
	deps          []runtime.Tool // the host's tools it depends on, registered beside it unobserved
	spec          Spec
	opts          *Options
	skip          map[Check]string
	deterministic bool

	reg      *runtime.Registry // the harness's, with the wrapped tool
	obs      *observer
	args     *schema
	result   *schema
	declared map[runtime.Code]bool

	valid          []call // examples that should succeed, then generated arguments
	base           any    // valid arguments to mutate
	reported       map[string]bool
	succeeded      bool // an Execute succeeded (for revert)
	reverts        int  // reverts checked
	notImplemented bool
}

// call is one set of arguments and where it comes from.
type call struct {
	what string // "example", "generated: required arguments..."
	pos  string
	args []byte
}

func (c call) String() string { return fmt.Sprintf("%s %s", c.what, clip(c.args)) }

func (r *toolRun) on(c Check) bool { _, off := r.skip[c]; return !off }

func (r *toolRun) fail(t tester, c Check, pos string, format string, args ...any) {
	t.Helper()
	if pos == "" {
		pos = r.spec.pos(fields[c])
	}
	t.Errorf("%s", describe(pos, r.name, c, format, args...))
}

// failOnce reports a failure once per tool and key, so that one broken
// promise does not repeat on every call.
func (r *toolRun) failOnce(t tester, key string, c Check, format string, args ...any) {
	t.Helper()
	if r.reported[key] {
		return
	}
	r.reported[key] = true
	r.fail(t, c, "", format, args...)
}

func (r *toolRun) run(t tester) {
	t.Helper()
	m := &r.tool.Meta
	r.reported = map[string]bool{}
	var err error
	if r.args, err = compileSchema(r.name, "args", m.ArgsSchema); err != nil {
		t.Errorf("%s: %s: %v", r.spec.pos("args"), r.name, err)
		return
	}
	if r.result, err = compileSchema(r.name, "result", m.ResultSchema); err != nil {
		t.Errorf("%s: %s: %v", r.spec.pos("result"), r.name, err)
		return
	}
	r.declared = map[runtime.Code]bool{}
	for _, c := range r.spec.Errors {
		r.declared[runtime.Code(c)] = true
	}
	for _, c := range Checks() {
		if reason, off := r.skip[c]; off {
			t.Logf("%s skipped: %s", c, reason)
		}
	}

	// The harness's registry holds the wrapped tool, and the tools it
	// depends on as the host registered them; its log goes to this test's
	// log while the test runs.
	logw := &logWriter{t: t}
	defer logw.close()
	ropts := append([]runtime.Option{runtime.WithLogger(slog.New(slog.NewTextHandler(logw, nil)))}, r.opts.RegistryOptions...)
	r.reg = runtime.New(ropts...)
	r.obs = &observer{}
	if err := r.reg.Register(r.obs.wrap(r.tool)); err != nil {
		t.Errorf("%s: %s: %v", r.spec.pos(""), r.name, err)
		return
	}
	for _, d := range r.deps {
		if err := r.reg.Register(d); err != nil {
			t.Errorf("%s: %s: dependency %s: %v", r.spec.pos(""), r.name, d.Meta.Name, err)
			return
		}
	}

	r.spec.Examples = slices.Clone(r.spec.Examples)
	for i, ex := range r.spec.Examples {
		if strings.TrimSpace(ex.Args) == "" {
			ex.Args = "{}" // an example without arguments
			r.spec.Examples[i] = ex
		}
		if ex.Error == "" && (r.args == nil || r.args.validateJSON([]byte(ex.Args)) == nil) {
			r.valid = append(r.valid, call{what: "example", pos: ex.Pos, args: []byte(ex.Args)})
			if r.base == nil {
				var v any
				if json.Unmarshal([]byte(ex.Args), &v) == nil {
					r.base = v
				}
			}
		}
	}
	gen, notes := validArgs(r.args)
	for _, n := range notes {
		t.Logf("%s: arguments not generated: %s", r.spec.pos("args"), n)
	}
	for _, g := range gen {
		r.valid = append(r.valid, call{what: "generated arguments (" + g.what + ")", args: g.json})
		r.base = g.doc // the last, with every argument, is the best to mutate
	}
	if r.opts.Probe == nil && (m.HasSideEffects || r.tool.Revert != nil) {
		t.Logf("no Probe in conformance.Options: dry runs and reverts are not compared with the state before")
	}

	steps := []struct {
		c   Check
		run func(tester)
		on  bool
	}{
		{CheckExamples, r.examples, len(r.spec.Examples) > 0},
		{CheckValidArgs, r.validArgs, len(gen) > 0},
		{CheckInvalidArgs, r.invalidArgs, r.args != nil},
		{CheckDeterministic, r.checkDeterministic, r.deterministic},
		{CheckDryRun, r.dryRun, m.HasSideEffects && r.tool.DryRun != nil},
		{CheckCancellation, r.cancellation, len(r.valid) > 0},
	}
	for _, s := range steps {
		if !s.on {
			continue
		}
		t.Run(string(s.c), func(t tester) {
			if reason, off := r.skip[s.c]; off {
				t.Skipf("%s", reason)
				return
			}
			s.run(t)
		})
	}
	if r.tool.Revert != nil && r.on(CheckRevert) {
		if r.reverts == 0 {
			t.Logf("%s: no call of Execute succeeded, so Revert was not tried; add an example that succeeds", r.spec.pos("revertible"))
		} else {
			t.Logf("revert: %d successful calls reverted", r.reverts)
		}
	}
}

// callOptions are the options of every call: full autonomy, approved, and
// a fresh idempotency key where the tool needs one.
func (r *toolRun) callOptions(dry bool) runtime.CallOptions {
	o := runtime.CallOptions{Autonomy: runtime.AutonomyFull, Approved: true, DryRun: dry}
	if r.tool.Meta.IdempotencyRequired && !dry {
		o.IdempotencyKey = runtime.NewToken()
	}
	return o
}

// outcome is a call's envelope and what the implementation did.
type outcome struct {
	res      runtime.Result
	executed bool // Execute ran
	dryRun   bool // DryRun ran
	ret      returned
}

// do calls the tool through the harness's registry; it does not touch t,
// so that it may run on another goroutine.
func (r *toolRun) do(ctx context.Context, args []byte, dry bool) outcome {
	e0, d0 := r.obs.counts()
	res := r.reg.Call(ctx, r.name, args, r.callOptions(dry))
	e1, d1 := r.obs.counts()
	out := outcome{res: res, executed: e1 > e0, dryRun: d1 > d0}
	if out.executed || out.dryRun {
		out.ret = r.obs.lastReturn()
	}
	return out
}

// exec makes a call, checks its envelope, result and errors, and for a
// successful Execute checks read_only and revert.
func (r *toolRun) exec(t tester, ctx context.Context, c call) outcome {
	t.Helper()
	before, probed := r.probe(t, r.needsProbe())
	out := r.do(ctx, c.args, false)
	r.observe(t, c, out)
	r.after(t, c, out, before, probed)
	return out
}

func (r *toolRun) needsProbe() bool {
	m := &r.tool.Meta
	return !m.HasSideEffects && r.on(CheckReadOnly) || r.tool.Revert != nil && r.on(CheckRevert)
}

// probe snapshots the state when the host gave a Probe and want is true.
func (r *toolRun) probe(t tester, want bool) (any, bool) {
	t.Helper()
	if !want || r.opts.Probe == nil {
		return nil, false
	}
	s, err := r.opts.Probe(t.Context())
	if err != nil {
		t.Errorf("%s: %s: the Probe failed: %v", r.spec.pos(""), r.name, err)
		return nil, false
	}
	return s, true
}

// observe checks the envelope of a call and what the implementation
// returned.
func (r *toolRun) observe(t tester, c call, out outcome) {
	t.Helper()
	res := out.res
	if !res.Success && (res.Error == nil || !res.Error.Code.Valid() || res.Error.Message == "") {
		r.fail(t, CheckErrors, c.pos, "%s: the answer is not a well-formed error envelope: %s", c, envelope(res))
	}
	if !out.executed && !out.dryRun {
		return
	}
	ret := out.ret
	switch {
	case ret.panicked != nil:
		if r.on(CheckErrors) {
			r.fail(t, CheckErrors, c.pos, "%s: the tool panicked (%v); return an error built with the tool's error constructors instead", c, ret.panicked)
		}
	case ret.err != nil:
		r.checkError(t, c, ret.err)
	case out.executed && res.Success:
		r.succeeded = true
		if r.result != nil && r.on(CheckResult) {
			if err := r.result.validate(ret.data); err != nil {
				b, _ := json.Marshal(ret.data)
				r.fail(t, CheckResult, "", "%s returned %s: %v", c, clip(b), err)
			}
		}
	}
}

// checkError checks an error the implementation returned.
func (r *toolRun) checkError(t tester, c call, err error) {
	t.Helper()
	if errors.Is(err, runtime.ErrNotImplemented) {
		r.notImplemented = true
		if r.on(CheckImplemented) {
			r.failOnce(t, "implemented", CheckImplemented, "a call answered runtime.ErrNotImplemented: write its Execute (and DryRun, Revert) bodies")
		}
		return
	}
	if !r.on(CheckErrors) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return
	}
	var te *runtime.ToolError
	if !errors.As(err, &te) {
		if !r.declared[runtime.CodeInternal] {
			r.failOnce(t, "plain:"+err.Error(), CheckErrors,
				"%s: the tool returned a plain Go error (%v), which reaches the model as internal with its text; return an error with a declared code, such as one built by the tool's error constructors",
				c, err)
		}
		return
	}
	switch {
	case !te.Code.Valid():
		r.failOnce(t, "code:"+string(te.Code), CheckErrors, "%s: the tool returned the code %q, which is not in the taxonomy (%s)", c, te.Code, codeList())
	case te.Code == runtime.CodeInvalidArgs, r.declared[te.Code]:
	default:
		r.failOnce(t, "code:"+string(te.Code), CheckErrors,
			"%s: the tool returned the code %s (%s), which its catalog entry does not declare; declare it under errors: with a suggestion for the model",
			c, te.Code, te.Message)
	}
}

// after checks read_only (a tool without side effects) and revert (a
// successful Execute of a revertible tool) against the state before.
func (r *toolRun) after(t tester, c call, out outcome, before any, probed bool) {
	t.Helper()
	m := &r.tool.Meta
	if !m.HasSideEffects && probed && r.on(CheckReadOnly) {
		r.compare(t, CheckReadOnly, c, before, "after the call")
	}
	if r.tool.Revert == nil || !out.executed || !out.res.Success || out.ret.err != nil || !r.on(CheckRevert) {
		return
	}
	data, err := json.Marshal(out.ret.data)
	if err != nil {
		r.fail(t, CheckRevert, c.pos, "%s: its result does not encode as JSON: %v", c, err)
		return
	}
	r.reverts++
	res := r.reg.Revert(t.Context(), r.name, c.args, data, r.callOptions(false))
	if !res.Success {
		if r.obs.revertReturn().err != nil && errors.Is(r.obs.revertReturn().err, runtime.ErrNotImplemented) {
			if r.on(CheckImplemented) {
				r.failOnce(t, "revert-implemented", CheckImplemented, "its Revert answers runtime.ErrNotImplemented: write its body")
			}
			return
		}
		r.fail(t, CheckRevert, c.pos, "%s: Revert of the result %s failed: %s", c, clip(data), envelope(res))
		return
	}
	if probed {
		r.compare(t, CheckRevert, c, before, "after Execute then Revert")
	}
}

// compare probes the state again and reports a difference with before.
func (r *toolRun) compare(t tester, ch Check, c call, before any, when string) {
	t.Helper()
	now, ok := r.probe(t, true)
	if !ok {
		return
	}
	if diff := cmp.Diff(before, now, cmp.Exporter(func(reflect.Type) bool { return true })); diff != "" {
		r.fail(t, ch, c.pos, "%s: the state changed %s (-before +after):\n%s", c, when, diff)
	}
}

func (r *toolRun) examples(t tester) {
	t.Helper()
	for i, ex := range r.spec.Examples {
		c := call{what: fmt.Sprintf("example %d", i+1), pos: ex.Pos, args: []byte(ex.Args)}
		if ex.Error != string(runtime.CodeInvalidArgs) && r.args != nil {
			if err := r.args.validateJSON(c.args); err != nil {
				r.fail(t, CheckExamples, ex.Pos, "%s: its arguments do not validate against the args schema: %v", c, err)
				continue
			}
		}
		out := r.exec(t, t.Context(), c)
		res := out.res
		t.Logf("%s: %s", c, answer(res))
		switch {
		case ex.Error != "":
			if res.Success || string(res.Error.Code) != ex.Error {
				r.fail(t, CheckExamples, ex.Pos, "%s: want the error %s, got %s", c, ex.Error, envelope(res))
			}
		case r.notImplemented && !res.Success && res.Error.Code == runtime.CodeUnsupported:
			// Reported once, as implemented.
		case !res.Success:
			r.fail(t, CheckExamples, ex.Pos, "%s: want success, got %s", c, envelope(res))
		case ex.Result != "":
			var got []byte
			if out.executed {
				got, _ = json.Marshal(out.ret.data)
			} else {
				got, _ = json.Marshal(res.Data)
			}
			if !jsonEqual(got, []byte(ex.Result)) {
				r.fail(t, CheckExamples, ex.Pos, "%s: the result is %s, the example states %s", c, clip(got), ex.Result)
			}
		}
	}
}

func (r *toolRun) validArgs(t tester) {
	t.Helper()
	n := 0
	for _, c := range r.valid {
		if c.what == "example" {
			continue
		}
		n++
		out := r.exec(t, t.Context(), c)
		if !out.executed {
			r.fail(t, CheckValidArgs, "", "%s, which its args schema accepts, were answered without reaching the tool: %s", c, envelope(out.res))
			continue
		}
		t.Logf("%s reached the tool: %s", c, answer(out.res))
	}
	t.Logf("%s of generated arguments", sets(n))
}

func (r *toolRun) invalidArgs(t tester) {
	t.Helper()
	if r.base == nil {
		t.Logf("%s: no valid arguments to derive invalid ones from", r.spec.pos("args"))
		return
	}
	m := &r.tool.Meta
	policy := m.AdditionalArgs
	if policy == "" {
		policy = runtime.AdditionalArgsReject
	}
	n := 0
	eachInvalidArg(r.args, r.base, policy, func(mu mutation) {
		n++
		c := call{what: mu.what + ":", args: mu.json}
		out := r.do(t.Context(), mu.json, false)
		switch {
		case out.executed:
			r.fail(t, CheckInvalidArgs, "", "%s reached the tool, which answered %s", c, envelope(out.res))
		case out.res.Success || out.res.Error.Code != runtime.CodeInvalidArgs:
			r.fail(t, CheckInvalidArgs, "", "%s was answered %s", c, envelope(out.res))
		}
	})
	if n == 1 {
		t.Logf("%s of invalid arguments was refused", sets(n))
	} else {
		t.Logf("%s of invalid arguments were refused", sets(n))
	}
}

// sets counts sets of arguments: "1 set", "2 sets".
func sets(n int) string {
	if n == 1 {
		return "1 set"
	}
	return fmt.Sprintf("%d sets", n)
}

func (r *toolRun) checkDeterministic(t tester) {
	t.Helper()
	for _, c := range r.valid {
		a := r.exec(t, t.Context(), c)
		b := r.exec(t, t.Context(), c)
		if d := sameAnswer(a, b); d != "" {
			r.fail(t, CheckDeterministic, c.pos, "%s: %s", c, d)
		}
	}
	t.Logf("%d calls made twice", len(r.valid))
}

// sameAnswer compares two outcomes by the implementation's data (before
// any untrusted wrapping) or error code; "" when they agree.
func sameAnswer(a, b outcome) string {
	if a.res.Success != b.res.Success {
		return fmt.Sprintf("first %s, then %s", envelope(a.res), envelope(b.res))
	}
	if !a.res.Success {
		if a.res.Error.Code != b.res.Error.Code {
			return fmt.Sprintf("first %s, then %s", a.res.Error.Code, b.res.Error.Code)
		}
		return ""
	}
	x, _ := json.Marshal(a.ret.data)
	y, _ := json.Marshal(b.ret.data)
	if !jsonEqual(x, y) {
		return fmt.Sprintf("first %s, then %s", clip(x), clip(y))
	}
	return ""
}

func (r *toolRun) dryRun(t tester) {
	t.Helper()
	for _, c := range r.valid {
		c.what = "dry run of " + c.what
		before, probed := r.probe(t, true)
		out := r.do(t.Context(), c.args, true)
		r.observe(t, c, out)
		if out.executed {
			r.fail(t, CheckDryRun, c.pos, "%s ran Execute", c)
		}
		if !out.dryRun && out.res.Success {
			r.fail(t, CheckDryRun, c.pos, "%s succeeded without running DryRun", c)
		}
		if probed {
			r.compare(t, CheckDryRun, c, before, "after the dry run")
		}
	}
	t.Logf("%d dry runs", len(r.valid))
}

func (r *toolRun) cancellation(t tester) {
	t.Helper()
	c := r.valid[0]
	c.what += " with a context already done,"
	ctx, cancel := context.WithDeadline(t.Context(), time.Now().Add(-time.Second))
	defer cancel()
	before, probed := r.probe(t, r.needsProbe())
	done := make(chan outcome, 1)
	go func() { done <- r.do(ctx, c.args, false) }()
	select {
	case out := <-done:
		r.observe(t, c, out)
		r.after(t, c, out, before, probed)
	case <-time.After(r.opts.CancelWithin):
		r.fail(t, CheckCancellation, "", "%s did not return within %v; pass ctx to every call that waits and return when ctx.Done() is closed", c, r.opts.CancelWithin)
	}
}

// observer wraps a tool's functions to see the calls that reach them.
type observer struct {
	mu                sync.Mutex
	executes, dryRuns int
	last, lastRevert  returned
}

// returned is what an implementation's function gave back.
type returned struct {
	data     any
	err      error
	panicked any
}

func (o *observer) counts() (executes, dryRuns int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.executes, o.dryRuns
}

func (o *observer) lastReturn() returned {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.last
}

func (o *observer) revertReturn() returned {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.lastRevert
}

func (o *observer) record(dst *returned, v returned) {
	o.mu.Lock()
	defer o.mu.Unlock()
	*dst = v
}

// wrap returns t with Execute, DryRun and Revert observed.
func (o *observer) wrap(t runtime.Tool) runtime.Tool {
	wrapFunc := func(fn runtime.Func, n *int) runtime.Func {
		return func(ctx context.Context, args any) (data any, err error) {
			o.mu.Lock()
			*n++
			o.mu.Unlock()
			defer func() {
				if p := recover(); p != nil {
					o.record(&o.last, returned{panicked: p})
					panic(p)
				}
			}()
			data, err = fn(ctx, args)
			o.record(&o.last, returned{data: data, err: err})
			return data, err
		}
	}
	t.Execute = wrapFunc(t.Execute, &o.executes)
	if t.DryRun != nil {
		t.DryRun = wrapFunc(t.DryRun, &o.dryRuns)
	}
	if rv := t.Revert; rv != nil {
		t.Revert = func(ctx context.Context, args any, result json.RawMessage) (data any, err error) {
			defer func() {
				if p := recover(); p != nil {
					o.record(&o.lastRevert, returned{panicked: p})
					panic(p)
				}
			}()
			data, err = rv(ctx, args, result)
			o.record(&o.lastRevert, returned{data: data, err: err})
			return data, err
		}
	}
	return t
}

// logWriter writes the registry's log to the test's log until closed: a
// tool still running after its test (one that ignored cancellation) must
// not write to a finished test.
type logWriter struct {
	mu     sync.Mutex
	t      tester
	closed bool
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		w.t.Logf("runtime: %s", strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}

func (w *logWriter) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
}

// answer summarises an envelope: success, or the error code.
func answer(r runtime.Result) string {
	if r.Success {
		return "success"
	}
	return string(r.Error.Code)
}

func envelope(r runtime.Result) string {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Sprintf("%+v", r)
	}
	return string(clip(b))
}

// clip shortens long JSON for messages.
func clip(b []byte) []byte {
	if len(b) > 300 {
		return append(append([]byte(nil), b[:300]...), "…"...)
	}
	return b
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return string(a) == string(b)
	}
	return reflect.DeepEqual(x, y)
}

func codeList() string {
	var s []string
	for _, c := range runtime.Codes() {
		s = append(s, string(c))
	}
	return strings.Join(s, ", ")
}
