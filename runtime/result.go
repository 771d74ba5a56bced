package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
)

// Result is the envelope every call returns; it encodes to JSON as is:
//
//	{"success":true,"data":...}
//	{"success":true,"data":...,"replayed":true}
//	{"success":false,"error":{"code":...,"message":...,"suggestion":...,"retry_allowed":...,"details":...}}
//
// Data is what the tool returned (the value itself, not a copy or an
// encoding of it), except for replays and untrusted output, where it is a
// json.RawMessage.
type Result struct {
	Success  bool
	Data     any
	Replayed bool
	Error    *ToolError
	// Tool is the tool that produced the result: the one called, or its
	// fallback when the registry called that itself. Not encoded.
	Tool string
}

// OK returns a successful envelope holding data.
func OK(data any) Result { return Result{Success: true, Data: data} }

// Fail returns a failed envelope holding e. A nil e becomes an internal
// error.
func Fail(e *ToolError) Result {
	if e == nil {
		e = Internal("the tool failed without an error")
	}
	if e.Suggestion == "" {
		e = finish(e, nil)
	}
	return Result{Error: e}
}

type successJSON struct {
	Success  bool `json:"success"`
	Data     any  `json:"data"`
	Replayed bool `json:"replayed,omitempty"`
}

type failureJSON struct {
	Success bool       `json:"success"`
	Error   *ToolError `json:"error"`
}

// MarshalJSON encodes the envelope of DESIGN.md, without escaping '<', '>'
// and '&' (the untrusted tags must read as tags). json.Marshal escapes them
// again; use JSON, or an Encoder with SetEscapeHTML(false), for the text a
// model reads. Data (or an error detail) whose own MarshalJSON panics gives
// an error, not a panic.
func (r Result) MarshalJSON() (b []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			b, err = nil, fmt.Errorf("encoding the envelope panicked: %v", p)
		}
	}()
	if r.Success {
		return marshalNoEscape(successJSON{Success: true, Data: r.Data, Replayed: r.Replayed})
	}
	e := r.Error
	if e == nil {
		e = finish(Internal("the tool failed without an error"), nil)
	}
	return marshalNoEscape(failureJSON{Error: e})
}

// JSON returns the envelope as the model should read it. It never fails: a
// result that cannot be encoded, or whose encoding panics, becomes an
// internal error envelope.
func (r Result) JSON() (out []byte) {
	if !r.Success {
		b, err := r.MarshalJSON()
		if err != nil {
			b, _ = Fail(Internal("the error cannot be encoded as JSON")).MarshalJSON()
		}
		return b
	}
	eb := encPool.Get().(*encBuf)
	defer func() {
		if p := recover(); p != nil { // a MarshalJSON of the data panicked
			out, _ = Fail(Internal("the tool's result cannot be encoded as JSON")).MarshalJSON()
			return // the encoder is not reused
		}
		if eb.buf.Cap() <= 64<<10 { // do not keep the buffer of a huge result
			encPool.Put(eb)
		}
	}()
	eb.buf.Reset()
	eb.buf.WriteString(`{"success":true,"data":`)
	if err := eb.enc.Encode(r.Data); err != nil {
		b, _ := Fail(Internal("the tool's result cannot be encoded as JSON")).MarshalJSON()
		return b
	}
	eb.buf.Truncate(eb.buf.Len() - 1) // Encode's newline
	if r.Replayed {
		eb.buf.WriteString(`,"replayed":true`)
	}
	eb.buf.WriteByte('}')
	return bytes.Clone(eb.buf.Bytes())
}

// encBuf is a reusable encoder without HTML escaping.
type encBuf struct {
	buf bytes.Buffer
	enc *json.Encoder
}

var encPool = sync.Pool{New: func() any {
	eb := new(encBuf)
	eb.enc = json.NewEncoder(&eb.buf)
	eb.enc.SetEscapeHTML(false)
	return eb
}}

// UnmarshalJSON decodes an envelope; Data becomes a json.RawMessage.
func (r *Result) UnmarshalJSON(b []byte) error {
	var v struct {
		Success  bool            `json:"success"`
		Data     json.RawMessage `json:"data"`
		Replayed bool            `json:"replayed"`
		Error    *ToolError      `json:"error"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*r = Result{Success: v.Success, Replayed: v.Replayed, Error: v.Error}
	if v.Data != nil {
		r.Data = v.Data
	}
	return nil
}

// Preview is what a dry run returns: what the call would do, without doing
// it. Data holds anything else the tool wants to show.
type Preview struct {
	DryRun  bool     `json:"dry_run"`           // always true in an envelope
	Summary string   `json:"summary"`           // one sentence: what would happen
	Effects []string `json:"effects,omitempty"` // each change the call would make
	Data    any      `json:"data,omitempty"`
}
