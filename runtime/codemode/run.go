package codemode

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"

	"github.com/toolcat/toolcat/runtime"
)

var promiseType = reflect.TypeFor[*goja.Promise]()

// programFile is the name positions in a program are reported under.
const programFile = "program.js"

// Outcome is the data of execute_code's envelope.
type Outcome struct {
	// Value is what the program returned, as JSON (null for nothing).
	Value json.RawMessage `json:"value"`
	// Calls are the tool calls it made, in order.
	Calls []CallRecord `json:"calls"`
	// Log is its console output, a line per console call.
	Log          []string `json:"log,omitempty"`
	LogTruncated bool     `json:"log_truncated,omitempty"`
}

// CallRecord is one tool call a program made.
type CallRecord struct {
	Tool string `json:"tool"`
	// Code is "ok" for a success, else the error's code.
	Code       string  `json:"code"`
	DurationMS float64 `json:"duration_ms"`
	Replayed   bool    `json:"replayed,omitempty"`
}

// stop is why the host stopped a program.
type stop struct {
	te      *runtime.ToolError
	pending *runtime.PendingCall
}

// program is one run of a program.
type program struct {
	m      *Mode
	s      *runtime.Session
	ctx    context.Context
	vm     *goja.Runtime
	limits Limits

	base   string         // the idempotency key the calls' keys derive from
	counts map[string]int // calls so far, by tool
	calls  []CallRecord
	log    []string
	logN   int
	logCut bool
	// untrusted is the source of the last untrusted content a call
	// returned.
	untrusted string

	stringify, parse, describe goja.Callable
}

// Run runs code in session s and returns execute_code's envelope. Unlike
// Call, it does not tell the registry's hook and observers of the program
// itself (its inner calls are told as any call).
func (m *Mode) Run(ctx context.Context, s *runtime.Session, code string) runtime.Result {
	sum := sha256.Sum256([]byte(code))
	p := &program{m: m, s: s, limits: m.limits, counts: map[string]int{},
		base: "codemode/" + s.ID() + "/" + hex.EncodeToString(sum[:16])}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, p.limits.Time)
	defer cancel()
	p.ctx = ctx
	if err := p.setup(); err != nil {
		return p.finish(nil, runtime.Internal("the interpreter could not be set up: "+err.Error()), nil)
	}
	prg, te := compile(code)
	if te != nil {
		return p.finish(nil, te, nil)
	}

	stopCtx := context.AfterFunc(ctx, func() {
		if parent.Err() != nil { // the host's deadline or cancellation, not the limit
			p.vm.Interrupt(&stop{te: runtime.Timeout("the program was stopped: the request it ran for ended").
				WithSuggestion("Run it again if the task still needs doing.")})
			return
		}
		p.vm.Interrupt(&stop{te: runtime.Timeout(fmt.Sprintf("the program ran past its limit of %s of wall time", p.limits.Time)).
			WithDetail("limit", LimitTime).
			WithSuggestion("Make fewer or cheaper calls, or split the work into several programs.")})
	})
	defer stopCtx()
	wd := startWatchdog(p.limits.Memory, func() { p.vm.Interrupt(p.memoryStop()) })
	v, err := p.vm.RunProgram(prg)
	wd.Stop()
	if err != nil {
		return p.failed(err)
	}
	// Only a promise is exported: Export of another object would read its
	// members, and run the program's getters outside the interpreter.
	var promise *goja.Promise
	if o, ok := v.(*goja.Object); ok && o.ExportType() == promiseType {
		promise, _ = o.Export().(*goja.Promise)
	}
	if promise == nil {
		return p.value(v)
	}
	switch promise.State() {
	case goja.PromiseStateFulfilled:
		return p.value(promise.Result())
	case goja.PromiseStateRejected:
		return p.thrown(promise.Result())
	}
	return p.finish(nil, runtime.InvalidArgs("the program awaited a promise that never settles: there are no timers or events to settle it").
		WithSuggestion("Call the tools directly (they return their envelopes), and do not wait on promises of your own."), nil)
}

func (p *program) memoryStop() *stop {
	return &stop{te: runtime.QuotaExceeded("the program used more than its limit of "+bytesText(p.limits.Memory)+" of memory").
		WithDetail("limit", LimitMemory).
		WithSuggestion("Keep less in memory: filter results as they come, and return a summary rather than everything.")}
}

// compile parses the program as the body of an async function.
func compile(code string) (*goja.Program, *runtime.ToolError) {
	if len(code) > MaxCodeBytes {
		return nil, runtime.InvalidArgs(fmt.Sprintf("the program has %d bytes, over the %d a program may have", len(code), MaxCodeBytes)).
			WithDetail("field", "/code")
	}
	src := "(async function () {\n" + code + "\n})()"
	ast, err := parser.ParseFile(nil, programFile, src, 0, parser.WithDisableSourceMaps)
	if err != nil {
		var list parser.ErrorList
		if errors.As(err, &list) && len(list) > 0 {
			return nil, syntaxError(code, list[0].Message, list[0].Position.Line, list[0].Position.Column)
		}
		return nil, syntaxError(code, err.Error(), 0, 0)
	}
	prg, err := goja.CompileAST(ast, true)
	if err != nil {
		var se *goja.CompilerSyntaxError
		if errors.As(err, &se) && se.File != nil {
			pos := se.File.Position(se.Offset)
			return nil, syntaxError(code, se.Message, pos.Line, pos.Column)
		}
		return nil, syntaxError(code, err.Error(), 0, 0)
	}
	return prg, nil
}

// syntaxError reports a parse error at line and col of the wrapped
// source: one found in the wrapper's closing line (the program ended too
// early) is placed just after the program's last character.
func syntaxError(code, msg string, line, col int) *runtime.ToolError {
	te := runtime.InvalidArgs("the program does not parse: "+clip(msg, 300)).WithDetail("field", "/code").
		WithSuggestion("Fix the syntax at the line and column given; the program is JavaScript, the body of an async function.")
	lines := strings.Split(code, "\n")
	if line-1 > len(lines) {
		line, col = len(lines)+1, utf8.RuneCountInString(lines[len(lines)-1])+1
	}
	return withPosition(te, line-1, col)
}

// withPosition adds a position in the program's text (the wrapper's line
// taken off) to te's message and details.
func withPosition(te *runtime.ToolError, line, col int) *runtime.ToolError {
	if line < 1 {
		return te
	}
	te.Message += fmt.Sprintf(" (line %d, column %d)", line, col)
	return te.WithDetail("line", line).WithDetail("column", col)
}

// failed answers a program the interpreter stopped with err.
func (p *program) failed(err error) runtime.Result {
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		st, _ := ie.Value().(*stop)
		if st == nil {
			return p.finish(nil, runtime.Internal("the program was interrupted"), nil)
		}
		line, col := position(ie.Stack())
		return p.finish(nil, withPosition(st.te, line, col), st.pending)
	}
	var so *goja.StackOverflowError
	if errors.As(err, &so) {
		line, col := position(so.Stack())
		te := runtime.InvalidArgs(fmt.Sprintf("the program called functions more than %d deep", p.limits.StackDepth)).
			WithDetail("limit", LimitStackDepth).
			WithSuggestion("Recursion does not end: add a base case, or use a loop.")
		return p.finish(nil, withPosition(te, line, col), nil)
	}
	var ex *goja.Exception
	if errors.As(err, &ex) {
		return p.thrown(ex.Value())
	}
	return p.finish(nil, runtime.Internal("the program failed: "+clip(err.Error(), 300)), nil)
}

var stackPos = regexp.MustCompile(regexp.QuoteMeta(programFile) + `:(\d+):(\d+)`)

// thrown answers a program that threw v.
func (p *program) thrown(v goja.Value) runtime.Result {
	msg := "the program threw"
	line, col := 0, 0
	if v != nil && !goja.IsUndefined(v) && !goja.IsNull(v) {
		d, err := p.describe(goja.Undefined(), v)
		var ie *goja.InterruptedError
		if errors.As(err, &ie) {
			return p.failed(err) // its toString ran past a limit
		}
		if o, ok := d.(*goja.Object); ok && err == nil {
			msg += ": " + clip(o.Get("0").String(), 500)
			if mm := stackPos.FindStringSubmatch(o.Get("1").String()); mm != nil {
				line, _ = strconv.Atoi(mm[1])
				col, _ = strconv.Atoi(mm[2])
			}
		}
	}
	te := runtime.InvalidArgs(msg).WithDetail("field", "/code").
		WithSuggestion("Fix the program where it threw; tool calls return failures as values, so check success rather than catching.")
	return p.finish(nil, withPosition(te, line-1, col), nil)
}

// position is the first place in the program's text on a stack.
func position(stack []goja.StackFrame) (line, col int) {
	for _, f := range stack {
		if f.SrcName() == programFile {
			pos := f.Position()
			return pos.Line - 1, pos.Column
		}
	}
	return 0, 0
}

// value answers a program that returned v.
func (p *program) value(v goja.Value) runtime.Result {
	raw := json.RawMessage("null")
	if v != nil && !goja.IsUndefined(v) {
		s, err := p.stringify(goja.Undefined(), v)
		if err != nil {
			var ie *goja.InterruptedError
			if errors.As(err, &ie) {
				return p.failed(err)
			}
			return p.finish(nil, runtime.InvalidArgs("the program's return value cannot be written as JSON: "+clip(err.Error(), 300)).
				WithSuggestion("Return plain data: objects, arrays, strings, numbers, booleans, null."), nil)
		}
		if !goja.IsUndefined(s) {
			raw = json.RawMessage(s.String())
		}
	}
	if len(raw) > p.limits.ResultBytes {
		te := runtime.QuotaExceeded(fmt.Sprintf("the program's return value has %d bytes as JSON, over its limit of %s", len(raw), bytesText(int64(p.limits.ResultBytes)))).
			WithDetail("limit", LimitResultBytes).
			WithSuggestion("Return less: filter, count or summarise in the program.")
		return p.finish(nil, te, nil)
	}
	return p.finish(raw, nil, nil)
}

// finish builds execute_code's envelope: the outcome, or te with the
// calls made and the log in its details; pending when a call waits for
// approval. The envelope is one untrusted block when a call returned
// untrusted content.
func (p *program) finish(value json.RawMessage, te *runtime.ToolError, pending *runtime.PendingCall) runtime.Result {
	calls := p.calls
	if calls == nil {
		calls = []CallRecord{}
	}
	var res runtime.Result
	if te == nil {
		res = runtime.Result{Success: true, Data: Outcome{Value: value, Calls: calls, Log: p.log, LogTruncated: p.logCut}, Tool: ExecuteCode}
	} else {
		d := map[string]any{"calls": calls}
		if len(p.log) > 0 {
			d["log"] = p.log
		}
		if p.logCut {
			d["log_truncated"] = true
		}
		if pending != nil {
			d["pending"] = map[string]any{"call_id": pending.ID, "tool": pending.Tool,
				"args": pending.Args, "preview": pending.Preview.Summary}
		}
		res = fail(te, d)
		res.Pending = pending
	}
	if p.untrusted == "" {
		return res
	}
	content, err := res.MarshalJSON()
	if err != nil {
		return fail(runtime.Internal("the program's result cannot be encoded as JSON"), nil)
	}
	u, err := runtime.NewUntrusted(rand.Reader, p.untrusted, time.Now(), content)
	if err != nil {
		return fail(runtime.Internal("the program's result could not be wrapped as untrusted data"), nil)
	}
	if res.Success {
		res.Data = json.RawMessage(mustJSON(res.Data))
	}
	res.Untrusted = u
	return res
}

// mustJSON encodes v without escaping '<', '>' and '&', as envelopes are.
func mustJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte("null")
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// call is the body of tools.<name>: the arguments as JSON, the call
// through the session with its derived key, its record, its envelope as a
// value of the program.
func (p *program) call(name string, c goja.FunctionCall) goja.Value {
	if len(p.calls) >= p.limits.Calls {
		p.vm.Interrupt(&stop{te: runtime.QuotaExceeded(fmt.Sprintf("the program made more than its limit of %d tool calls", p.limits.Calls)).
			WithDetail("limit", LimitCalls).
			WithSuggestion("Make fewer calls: ask for more per call (filters, larger pages), or split the work into several programs.")})
		return goja.Undefined()
	}
	raw := []byte("{}")
	if a := c.Argument(0); !goja.IsUndefined(a) && !goja.IsNull(a) {
		s, err := p.stringify(goja.Undefined(), a)
		if err != nil {
			var ie *goja.InterruptedError
			if errors.As(err, &ie) {
				return goja.Undefined() // the interrupt stops the program
			}
			return p.envelope(runtime.Fail(runtime.InvalidArgs("the arguments of " + name + " cannot be written as JSON: " + clip(err.Error(), 300))))
		}
		if goja.IsUndefined(s) {
			return p.envelope(runtime.Fail(runtime.InvalidArgs("the arguments of " + name + " must be an object")))
		}
		raw = []byte(s.String())
	}
	p.counts[name]++
	key := p.base + "/" + name + "#" + strconv.Itoa(p.counts[name])
	start := time.Now()
	res := p.s.Call(p.ctx, name, raw, runtime.CallOptions{IdempotencyKey: key})
	rec := CallRecord{Tool: name, Code: "ok", DurationMS: math.Round(float64(time.Since(start).Microseconds())) / 1000, Replayed: res.Replayed}
	if !res.Success && res.Error != nil {
		rec.Code = string(res.Error.Code)
	}
	p.calls = append(p.calls, rec)
	if res.Untrusted != nil {
		p.untrusted = res.Untrusted.Source
	}
	if res.Pending != nil {
		te := runtime.ApprovalRequired("the program stopped at its call of " + name + ", which waits for the user's approval as " + res.Pending.ID + ": " + res.Error.Message).
			WithRetryAllowed(false).
			WithSuggestion("Tell the user what the call would do and wait for their answer. Once they approve it, run the same program again: the calls already made are replayed, not repeated, and it goes on.")
		p.vm.Interrupt(&stop{te: te, pending: res.Pending})
		return goja.Undefined()
	}
	return p.envelope(res)
}

// programEnvelope is a call's envelope as the program reads it.
type programEnvelope struct {
	Success   bool               `json:"success"`
	Data      json.RawMessage    `json:"data,omitempty"`
	Replayed  bool               `json:"replayed,omitempty"`
	Error     *runtime.ToolError `json:"error,omitempty"`
	Untrusted *provenance        `json:"untrusted,omitempty"`
}

type provenance struct {
	Source      string `json:"source"`
	RetrievedAt string `json:"retrieved_at"`
}

// envelope turns res into a value of the program, through JSON, so that
// no host object reaches it.
func (p *program) envelope(res runtime.Result) goja.Value {
	if res.Untrusted == nil {
		// The registry's own encoding, made once already to measure the
		// result.
		return p.fromJSON(res.JSON())
	}
	e := programEnvelope{Success: res.Success, Replayed: res.Replayed, Error: res.Error}
	if res.Success {
		switch d := res.Data.(type) {
		case json.RawMessage:
			e.Data = d
		default:
			b, err := json.Marshal(d)
			if err != nil {
				e = programEnvelope{Error: runtime.Internal("the tool's result cannot be encoded as JSON")}
			}
			e.Data = b
		}
		if e.Data == nil {
			e.Data = json.RawMessage("null")
		}
	}
	if u := res.Untrusted; u != nil {
		e.Untrusted = &provenance{Source: u.Source, RetrievedAt: u.RetrievedAt.UTC().Format(time.RFC3339)}
	}
	b, err := json.Marshal(e)
	if err != nil {
		b = runtime.Fail(runtime.Internal("the envelope cannot be encoded")).JSON()
	}
	return p.fromJSON(b)
}

// fromJSON parses b with the program's JSON.parse (the original, whatever
// the program did to the global JSON).
func (p *program) fromJSON(b []byte) goja.Value {
	v, err := p.parse(goja.Undefined(), p.vm.ToValue(string(b)))
	if err != nil {
		return goja.Undefined()
	}
	return v
}

// console writes one console call's arguments as a line of the log.
func (p *program) console(c goja.FunctionCall) goja.Value {
	parts := make([]string, len(c.Arguments))
	for i, a := range c.Arguments {
		parts[i] = p.show(a)
	}
	line := strings.Join(parts, " ")
	if p.logCut {
		return goja.Undefined()
	}
	if room := p.limits.LogBytes - p.logN; len(line) > room {
		line, p.logCut = clip(line, max(room, 0)), true
		if line == "" {
			return goja.Undefined()
		}
	}
	p.log = append(p.log, line)
	p.logN += len(line)
	return goja.Undefined()
}

// show is how the log writes a value: strings as they are, errors as
// their message, the rest as JSON.
func (p *program) show(v goja.Value) string {
	if _, obj := v.(*goja.Object); !obj {
		if s, ok := v.Export().(string); ok {
			return s
		}
	}
	if o, ok := v.(*goja.Object); ok && o.ClassName() != "Error" && o.ClassName() != "Function" {
		if s, err := p.stringify(goja.Undefined(), v); err == nil && !goja.IsUndefined(s) {
			return s.String()
		}
	}
	return v.String()
}

// clip cuts s to at most n bytes, never inside a character.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
