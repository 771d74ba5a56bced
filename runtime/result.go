package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"strings"
	"sync"
	"time"
)

// Result is the envelope every call returns; it encodes to JSON as is:
//
//	{"success":true,"data":...}
//	{"success":true,"data":...,"replayed":true}
//	{"success":false,"error":{"code":...,"message":...,"suggestion":...,"retry_allowed":...,"details":...}}
//
// An envelope holding outside content (Untrusted set) is one untrusted
// block, opened before the first byte the tool wrote and closed after the
// last, with one instruction after it:
//
//	{"success":true,"untrusted":"<untrusted-M source=\"...\" retrieved_at=\"...\">",
//	 "data":...,"untrusted_end":"</untrusted-M>","instruction":"The text between ..."}
//	{"success":false,"untrusted":"<untrusted-M ...>","error":{...},"untrusted_end":"</untrusted-M>","instruction":"..."}
//
// Data is what the tool returned (the value itself, not a copy or an
// encoding of it), except for replays and untrusted output, where it is a
// json.RawMessage of the tool's plain data (no tags inside it).
type Result struct {
	Success  bool
	Data     any
	Replayed bool
	Error    *ToolError
	// Untrusted is set when the envelope holds text a returns_untrusted
	// tool wrote: its data, or its error. It gives the provenance and the
	// marker of the block the envelope is wrapped in.
	Untrusted *Untrusted
	// Tool is the tool that produced the result: the one called, or its
	// fallback when the registry called that itself. Not encoded.
	Tool string
	// Pending is set on the approval_required envelope of a session call
	// that waits for the user's approval: the host shows its preview, then
	// approves or denies it (Session.Approve, Session.Deny). Not encoded.
	Pending *PendingCall

	// enc is the envelope as the registry encoded it to check the result's
	// size, valid while Data is still encData (a pointer).
	enc     []byte
	encData any
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
	if r.Untrusted != nil {
		return r.untrustedJSON()
	}
	if b := r.encoded(); b != nil {
		return b, nil
	}
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
//
// A successful result of Registry.Call was encoded when the call returned,
// to check its size: JSON returns that encoding (the same slice each time:
// do not modify it) unless Data has been replaced since.
func (r Result) JSON() []byte {
	if !r.Success || r.Untrusted != nil {
		b, err := r.MarshalJSON()
		if err != nil {
			msg := "the error cannot be encoded as JSON"
			if r.Success {
				msg = "the tool's result cannot be encoded as JSON"
			}
			b, _ = Fail(Internal(msg)).MarshalJSON()
		}
		return b
	}
	if b := r.encoded(); b != nil {
		return b
	}
	b, ok := encodeEnvelope(r.Data, r.Replayed)
	if !ok {
		b, _ = Fail(Internal("the tool's result cannot be encoded as JSON")).MarshalJSON()
	}
	return b
}

// encoded returns the registry's encoding of r, or nil when there is none
// or Data has changed since.
func (r *Result) encoded() []byte {
	if r.enc == nil || !r.Success {
		return nil
	}
	if r.Replayed {
		// A replay's Data is the part of the envelope that holds it.
		d, ok := r.Data.(json.RawMessage)
		if !ok || len(d) == 0 || len(d) != len(r.enc)-len(envelopeHead)-len(replayedTail) || &d[0] != &r.enc[len(envelopeHead)] {
			return nil
		}
	} else if r.Data != r.encData {
		return nil
	}
	return r.enc[:len(r.enc):len(r.enc)] // an append copies
}

const (
	envelopeHead = `{"success":true,"data":`
	replayedTail = `,"replayed":true}`
)

// encodeEnvelope encodes the envelope of a successful result holding data.
func encodeEnvelope(data any, replayed bool) (out []byte, ok bool) {
	tail := "}"
	if replayed {
		tail = replayedTail
	}
	b, _, _, err := encodeJSON(envelopeHead, data, tail, 0, false, nil)
	return b, err == nil
}

// untrustedJSON encodes an envelope wrapped in its untrusted block: the
// registry's fields, the opening tag, everything the tool wrote, the
// closing tag and the instruction, in that order.
func (r Result) untrustedJSON() ([]byte, error) {
	u := r.Untrusted
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	field := func(name string, v any) error {
		buf.WriteString(name)
		if err := enc.Encode(v); err != nil {
			return err
		}
		buf.Truncate(buf.Len() - 1) // Encode's newline
		return nil
	}
	if r.Success {
		buf.WriteString(`{"success":true`)
		if r.Replayed {
			buf.WriteString(`,"replayed":true`)
		}
	} else {
		buf.WriteString(`{"success":false`)
	}
	if err := field(`,"untrusted":`, u.Open()); err != nil {
		return nil, err
	}
	if r.Success {
		if err := field(`,"data":`, r.Data); err != nil {
			return nil, err
		}
	} else {
		e := r.Error
		if e == nil {
			e = finish(Internal("the tool failed without an error"), nil)
		}
		if err := field(`,"error":`, e); err != nil {
			return nil, err
		}
	}
	if err := field(`,"untrusted_end":`, u.Close()); err != nil {
		return nil, err
	}
	if err := field(`,"instruction":`, u.Instruction()); err != nil {
		return nil, err
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// marshalNoEscape is json.Marshal without HTML escaping, so that the tags
// read as tags.
func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
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
		Success   bool            `json:"success"`
		Data      json.RawMessage `json:"data"`
		Replayed  bool            `json:"replayed"`
		Error     *ToolError      `json:"error"`
		Untrusted string          `json:"untrusted"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*r = Result{Success: v.Success, Replayed: v.Replayed, Error: v.Error}
	if v.Data != nil {
		r.Data = v.Data
	}
	if v.Untrusted != "" {
		u, err := parseOpenTag(v.Untrusted)
		if err != nil {
			return err
		}
		r.Untrusted = u
	}
	return nil
}

// parseOpenTag reads the provenance back from an opening tag written by
// Untrusted.Open.
func parseOpenTag(s string) (*Untrusted, error) {
	bad := fmt.Errorf("envelope: %q is not an untrusted opening tag", s)
	rest, ok := strings.CutPrefix(s, "<untrusted-")
	if !ok {
		return nil, bad
	}
	marker, rest, ok := strings.Cut(rest, ` source="`)
	if !ok {
		return nil, bad
	}
	source, rest, ok := strings.Cut(rest, `" retrieved_at="`)
	if !ok {
		return nil, bad
	}
	at, ok := strings.CutSuffix(rest, `">`)
	if !ok {
		return nil, bad
	}
	t, err := time.Parse(time.RFC3339, at)
	if err != nil {
		return nil, bad
	}
	return &Untrusted{Marker: marker, Source: html.UnescapeString(source), RetrievedAt: t}, nil
}

// Preview is what a dry run returns: what the call would do, without doing
// it. Data holds anything else the tool wants to show.
type Preview struct {
	DryRun  bool     `json:"dry_run"`           // always true in an envelope
	Summary string   `json:"summary"`           // one sentence: what would happen
	Effects []string `json:"effects,omitempty"` // each change the call would make
	Data    any      `json:"data,omitempty"`
}
