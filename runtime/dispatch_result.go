package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// DefaultMaxResultBytes is the registry's cap on the JSON of a tool's
// result, for tools whose catalog entry sets no max_result_bytes: 1 MiB,
// about 250,000 tokens, more than any model's context can use well.
const DefaultMaxResultBytes = 1 << 20

// ResultCheck says whether the registry checks a tool's result against the
// tool's result schema (Meta.ResultSchema) at run time.
type ResultCheck uint8

// String returns "off", "log" or "enforce".
func (c ResultCheck) String() string {
	switch c {
	case ResultCheckOff:
		return "off"
	case ResultCheckLog:
		return "log"
	case ResultCheckEnforce:
		return "enforce"
	}
	return "result_check(" + strconv.Itoa(int(c)) + ")"
}

// The result checks.
const (
	// ResultCheckOff does not check results; conformance tests do.
	ResultCheckOff ResultCheck = iota
	// ResultCheckLog logs a result that does not fit its schema, with the
	// first error, and returns it all the same.
	ResultCheckLog
	// ResultCheckEnforce logs it and answers internal instead.
	ResultCheckEnforce
)

// newResultValidator compiles m's result schema with the machinery of the
// general validator, or returns nil when m has none.
func newResultValidator(m *Meta) (*SchemaValidator, error) {
	if len(bytes.TrimSpace(m.ResultSchema)) == 0 {
		return nil, nil
	}
	sch, doc, err := compileSchema(m.Name, "result", m.ResultSchema)
	if err != nil {
		return nil, err
	}
	return &SchemaValidator{name: m.Name, schema: sch, doc: doc, policy: AdditionalArgsAllow, open: true}, nil
}

// succeed builds the envelope of a call of e that returned data (raw its
// JSON when known, at when it was produced; zero means now): the result's
// size cap and check apply, and untrusted output is wrapped. A result they
// refuse comes back as te, for the caller to answer. text, when set, is
// the room of the call's arena (e.arena's): the envelope goes there when
// it fits.
func (r *Registry) succeed(ctx context.Context, e *entry, data any, raw json.RawMessage, at time.Time, text []byte) (res Result, te *ToolError) {
	if e.maxResult == 0 && e.results == nil && !e.meta.ReturnsUntrusted {
		return Result{Success: true, Data: data, Tool: e.meta.Name}, nil
	}
	var enc []byte                          // the envelope, when encoded here
	check := raw != nil || e.results != nil // encodeJSON applied the cap
	if raw == nil {
		// Encoded under the cap: a result far above it is refused before
		// it is encoded whole.
		head, tail := envelopeHead, "}"
		if e.meta.ReturnsUntrusted {
			head, tail = "", "" // the wrapper writes the envelope
		}
		b, n, over, err := encodeJSONIn(text, head, data, tail, e.maxResult, false, &e.resultEnc)
		switch {
		case err != nil:
			return Result{}, Internal("tool " + e.meta.Name + " returned data that cannot be encoded as JSON")
		case over:
			return Result{}, r.tooLargeAtLeast(ctx, e, n)
		}
		if text != nil {
			e.arena.sized(len(text), len(b))
		}
		raw = b[len(head) : len(b)-len(tail)]
		if !e.meta.ReturnsUntrusted {
			enc = b
		}
	}
	if check {
		if te := r.checkResult(ctx, e, raw); te != nil {
			return Result{}, te
		}
	}
	switch {
	case e.meta.ReturnsUntrusted:
		if at.IsZero() {
			at = r.now()
		}
		res = r.untrusted(e, data, raw, at, false)
		if !res.Success {
			return Result{}, res.Error
		}
		return res, nil
	}
	res = Result{Success: true, Data: data, Tool: e.meta.Name}
	if enc != nil && data != nil && reflect.TypeOf(data).Kind() == reflect.Pointer {
		// JSON and MarshalJSON return this encoding while Data is the
		// same pointer: a result is encoded once.
		res.enc, res.encData = enc, data
	}
	return res, nil
}

// replayed is the envelope of rec, a stored result of e that its size cap
// and result check let through. The envelope is made here, once: JSON
// returns it while Data is still the part of it that holds rec.Data. Data
// the registry encoded itself is copied as it is; a store's other bytes
// are compacted as encoding/json writes a json.RawMessage, and refused
// when they are not JSON.
func (r *Registry) replayed(e *entry, rec *Record) (Result, *ToolError) {
	b := make([]byte, 0, len(envelopeHead)+len(rec.Data)+len(replayedTail))
	b = append(b, envelopeHead...)
	if rec.ownEncoding() {
		b = append(b, rec.Data...)
	} else {
		buf := bytes.NewBuffer(b)
		if err := json.Compact(buf, rec.Data); err != nil || len(rec.Data) == 0 {
			return Result{}, Internal("the stored result of " + e.meta.Name + " cannot be decoded as JSON")
		}
		b = buf.Bytes()
	}
	n := len(b)
	b = append(b, replayedTail...)
	return Result{Success: true, Data: json.RawMessage(b[len(envelopeHead):n:n]), Replayed: true, Tool: e.meta.Name, enc: b}, nil
}

// checkResult applies e's size cap and result check to raw, the JSON of a
// result.
func (r *Registry) checkResult(ctx context.Context, e *entry, raw json.RawMessage) *ToolError {
	m := e.meta
	if e.maxResult > 0 && len(raw) > e.maxResult {
		return r.tooLarge(ctx, e, len(raw))
	}
	if e.results == nil {
		return nil
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return Internal("tool " + m.Name + " returned data that cannot be decoded as JSON")
	}
	err := e.results.schema.Validate(doc)
	if err == nil {
		return nil
	}
	msg, field := clip(err.Error(), maxEchoText), ""
	if ve, ok := err.(*jsonschema.ValidationError); ok {
		v := e.results.convert(ve, doc)
		msg, field = v.Message, v.Details["field"].(string)
	}
	level := slog.LevelWarn
	if r.resultCheck == ResultCheckEnforce {
		level = slog.LevelError
	}
	r.log.LogAttrs(ctx, level, "toolcat: result does not fit the result schema",
		slog.String("tool", m.Name), slog.String("field", field), slog.String("error", msg),
		slog.String("result_check", r.resultCheck.String()))
	if r.resultCheck != ResultCheckEnforce {
		return nil
	}
	te := Internal("tool " + m.Name + " returned data that does not fit its result schema")
	te.internal = true
	return te
}

// tooLarge is the error of a result of n bytes, above e's cap.
func (r *Registry) tooLarge(ctx context.Context, e *entry, n int) *ToolError {
	return r.tooLargeBy(ctx, e, n, "")
}

// tooLargeAtLeast is the error of a result refused before it was encoded,
// of n bytes at least.
func (r *Registry) tooLargeAtLeast(ctx context.Context, e *entry, n int) *ToolError {
	return r.tooLargeBy(ctx, e, n, "at least ")
}

func (r *Registry) tooLargeBy(ctx context.Context, e *entry, n int, atLeast string) *ToolError {
	m := e.meta
	r.log.LogAttrs(ctx, slog.LevelWarn, "toolcat: result above its size cap",
		slog.String("tool", m.Name), slog.Int("bytes", n), slog.Bool("at_least", atLeast != ""), slog.Int("max_result_bytes", e.maxResult))
	te := Unsupported(fmt.Sprintf("the result of %s is %s%s, above the %s a result may have",
		m.Name, atLeast, byteSize(n), byteSize(e.maxResult))).
		WithDetails(map[string]any{"result_bytes": n, "max_result_bytes": e.maxResult})
	if m.HasSideEffects {
		te.Suggestion = "The call may have taken effect, but its result is too large to return: do not repeat it. " +
			"Check its effect with a narrower read, or tell the user."
	} else {
		te.Suggestion = "Ask for less: narrow the query, lower a limit argument, or ask for one page at a time."
		te.RetryAllowed = true
	}
	te.internal = true
	return te
}

// byteSize writes n bytes for a message: "512 bytes", "1 MiB", "3.2 MiB".
func byteSize(n int) string {
	unit, d := "MiB", float64(1<<20)
	switch {
	case n < 1<<10:
		return strconv.Itoa(n) + " bytes"
	case n < 1<<20:
		unit, d = "KiB", 1<<10
	}
	return strings.TrimSuffix(strconv.FormatFloat(float64(n)/d, 'f', 1, 64), ".0") + " " + unit
}

// untrusted wraps data for the model. raw, when set, is data's JSON.
func (r *Registry) untrusted(e *entry, data any, raw json.RawMessage, at time.Time, replayed bool) Result {
	source := r.sourceOf(e, data)
	if raw == nil {
		b, err := marshalNoEscape(data)
		if err != nil {
			return r.fail(e, Internal("tool "+e.meta.Name+" returned data that cannot be encoded as JSON"))
		}
		raw = b
	}
	return r.untrustedFrom(e, source, raw, at, replayed)
}

// sourceOf names where data came from, for the untrusted wrapper.
func (r *Registry) sourceOf(e *entry, data any) string {
	if !e.meta.ReturnsUntrusted {
		return ""
	}
	if s, ok := data.(UntrustedSourcer); ok {
		if src := s.UntrustedSource(); src != "" {
			return src
		}
	}
	if e.meta.UntrustedSource != "" {
		return e.meta.UntrustedSource
	}
	return "tool:" + e.meta.Name
}

// untrustedFrom builds the wrapped success envelope of raw, the tool's
// data as JSON; Data stays that plain JSON.
func (r *Registry) untrustedFrom(e *entry, source string, raw json.RawMessage, at time.Time, replayed bool) Result {
	if source == "" {
		source = "tool:" + e.meta.Name
	}
	return r.wrap(e, Result{Success: true, Data: raw, Replayed: replayed, Tool: e.meta.Name}, source, at, raw)
}

// wrap puts the envelope res, whose tool-written part encodes as content,
// in one untrusted block with a marker drawn afresh.
func (r *Registry) wrap(e *entry, res Result, source string, at time.Time, content []byte) Result {
	u, err := NewUntrusted(r.rnd, source, at, content)
	if err != nil {
		r.log.Error("toolcat: wrapping untrusted output", slog.String("tool", e.meta.Name), slog.Any("err", err))
		te := Internal("the output of " + e.meta.Name + " could not be wrapped as untrusted data")
		te.internal = true
		return Result{Error: finish(te, e.meta), Tool: e.meta.Name}
	}
	res.Untrusted = u
	return res
}
