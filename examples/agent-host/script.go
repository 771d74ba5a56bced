package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/toolcat/toolcat/runtime"
)

// script is a scripted conversation: what the user says, the tool calls
// the model makes, and what the host does between them, in order.
type script struct {
	Session string `json:"session"`
	Steps   []step `json:"steps"`
}

// step is one step of a script. A step may open a section, print what the
// user says and a note, then do at most one thing: a tool call of the
// model (Tool and Args) or an action of the host (Host).
type step struct {
	Section string          `json:"section,omitempty"`
	User    string          `json:"user,omitempty"`
	Note    string          `json:"note,omitempty"`
	Tool    string          `json:"tool,omitempty"`
	Args    json.RawMessage `json:"args,omitempty"`
	Host    string          `json:"host,omitempty"`
}

// The host actions a script may ask for.
const (
	hostTools       = "tools"        // print the tools the model sees now
	hostApprove     = "approve"      // the user approves the call waiting, after its preview
	hostEndTurn     = "end_turn"     // the model answered the user: Session.EndTurn
	hostTrackerDown = "tracker_down" // the ticket tracker becomes unreachable
	hostTrackerUp   = "tracker_up"   // and comes back
)

const maxSteps = 1000

// parseScript decodes and checks a script: every step known, every call
// with a JSON object of arguments.
func parseScript(data []byte) (*script, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s script
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("script: %w", err)
	}
	if dec.More() {
		return nil, errors.New("script: more than one JSON value")
	}
	if s.Session == "" {
		return nil, errors.New(`script: no "session" id`)
	}
	if len(s.Steps) == 0 || len(s.Steps) > maxSteps {
		return nil, fmt.Errorf("script: %d steps; want 1 to %d", len(s.Steps), maxSteps)
	}
	for i, st := range s.Steps {
		switch {
		case st.Tool != "" && st.Host != "":
			return nil, fmt.Errorf("script: step %d: both a tool call and a host action", i+1)
		case st.Tool != "":
			if a := bytes.TrimSpace(st.Args); len(a) == 0 || a[0] != '{' {
				return nil, fmt.Errorf("script: step %d: %s: args must be a JSON object", i+1, st.Tool)
			}
		case len(st.Args) > 0:
			return nil, fmt.Errorf("script: step %d: args without a tool", i+1)
		case st.Host != "":
			switch st.Host {
			case hostTools, hostApprove, hostEndTurn, hostTrackerDown, hostTrackerUp:
			default:
				return nil, fmt.Errorf("script: step %d: unknown host action %q (want tools, approve, end_turn, tracker_down or tracker_up)", i+1, st.Host)
			}
		}
	}
	return &s, nil
}

// replay runs script s against a new host and prints, to out, each
// envelope as the model reads it. It returns the outcome of every envelope
// the model read, in order: "ok", "replayed", or the error's code. opts
// are added to the registry's. The model's calls get the ids call_<step>,
// as a provider names its tool calls.
func replay(ctx context.Context, out, logs io.Writer, s *script, opts ...runtime.Option) ([]string, error) {
	return replayIn(ctx, out, logs, s, false, opts...)
}

// replayIn is replay, in code mode when codeMode is set: the model's
// calls go to code mode's tools (runtime/codemode).
func replayIn(ctx context.Context, out, logs io.Writer, s *script, codeMode bool, opts ...runtime.Option) ([]string, error) {
	h, err := newHost(s.Session, logs, opts...)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	if codeMode {
		h.useCodeMode(s.Session)
	}
	p := &printer{out: out}
	var outcomes []string
	var pending *runtime.PendingCall
	for i, st := range s.Steps {
		if st.Section != "" {
			p.section(st.Section)
		}
		if st.User != "" {
			fmt.Fprintf(out, "user: %s\n", st.User)
		}
		if st.Note != "" {
			fmt.Fprintf(out, "  (%s)\n", st.Note)
		}
		switch {
		case st.Tool != "":
			res := h.dispatch(runtime.ContextWithCallID(ctx, "call_"+strconv.Itoa(i+1)), st.Tool, st.Args)
			fmt.Fprintf(out, "model calls %s %s\n", st.Tool, compact(st.Args))
			p.envelope(res)
			outcomes = append(outcomes, outcome(res))
			if res.Pending != nil {
				pending = res.Pending
				fmt.Fprintf(out, "host shows the user the preview: %s\n", previewText(res.Pending.Preview))
			}
		case st.Host == hostTools:
			names, err := h.toolNames(ctx)
			if err != nil {
				return outcomes, err
			}
			fmt.Fprintf(out, "host sends %d tool definitions: %s\n", len(names), strings.Join(names, ", "))
			if h.mode != nil {
				if err := h.printOffer(ctx, out); err != nil {
					return outcomes, err
				}
			}
		case st.Host == hostApprove:
			if pending == nil {
				return outcomes, fmt.Errorf("step %d: no call waits for approval", i+1)
			}
			res, err := h.sess.Approve(ctx, pending.ID)
			if err != nil {
				return outcomes, fmt.Errorf("step %d: approving %s: %w", i+1, pending.ID, err)
			}
			fmt.Fprintf(out, "host: the user approves %s; the call runs, and the model reads\n", pending.ID)
			p.envelope(res)
			outcomes = append(outcomes, outcome(res))
			pending = nil
		case st.Host == hostEndTurn:
			if err := h.sess.EndTurn(ctx); err != nil {
				return outcomes, err
			}
			fmt.Fprintln(out, "host: the model answered the user; the turn ends")
		case st.Host == hostTrackerDown:
			h.desk.SetTrackerDown(true)
			fmt.Fprintln(out, "host: (the ticket tracker goes down)")
		case st.Host == hostTrackerUp:
			h.desk.SetTrackerDown(false)
			fmt.Fprintln(out, "host: (the ticket tracker is back)")
		}
	}
	fmt.Fprintf(out, "\n-- after the conversation: %d tickets in the tracker, %d page(s) sent\n", h.desk.Tickets(), len(h.desk.Pages()))
	for _, pg := range h.desk.Pages() {
		fmt.Fprintf(out, "   %s\n", pg)
	}
	return outcomes, nil
}

// outcome names what an envelope says, for the tests and the summary.
func outcome(res runtime.Result) string {
	switch {
	case res.Success && res.Replayed:
		return "replayed"
	case res.Success:
		return "ok"
	case res.Error != nil:
		return string(res.Error.Code)
	}
	return "internal"
}

// printer prints a replay in short sections.
type printer struct {
	out io.Writer
	n   int
}

func (p *printer) section(title string) {
	p.n++
	fmt.Fprintf(p.out, "\n== %d. %s\n", p.n, title)
}

// envelope prints res as the model reads it: its JSON, indented.
func (p *printer) envelope(res runtime.Result) {
	b := res.JSON()
	var buf bytes.Buffer
	if err := json.Indent(&buf, b, "  ", "  "); err != nil {
		buf.Reset()
		buf.Write(b)
	}
	fmt.Fprintf(p.out, "  %s\n", buf.String())
}

// compact is raw JSON on one line.
func compact(raw []byte) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return string(raw)
	}
	return buf.String()
}
