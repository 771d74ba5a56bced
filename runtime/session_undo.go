package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// JournalEntry is one executed side-effect call of a session, newest last
// in the journal. Calls of tools with a Revert can be undone; the others
// stay in the journal as the point past which Undo cannot go.
type JournalEntry struct {
	ID     string          `json:"id"`
	Tool   string          `json:"tool"`
	Args   json.RawMessage `json:"args,omitempty"`   // as the model sent them
	Result json.RawMessage `json:"result,omitempty"` // the data the call returned
	At     time.Time       `json:"at"`
	Turn   int             `json:"turn"`
	// Revertible says whether Undo can revert the call; Note says why not
	// when it cannot.
	Revertible bool   `json:"revertible"`
	Note       string `json:"note,omitempty"`
	// undoing is the token of the Undo reverting the call now.
	Undoing string `json:"undoing,omitempty"`
}

// The journal is stored as one JSON entry a line, oldest first, so that
// journaling a call appends a line without decoding the others.
type journalState struct {
	Calls []JournalEntry
}

func decodeJournal(b []byte) (*journalState, error) {
	j := &journalState{}
	for line := range bytes.SplitSeq(b, []byte{'\n'}) {
		if len(line) == 0 {
			continue
		}
		var je JournalEntry
		if err := json.Unmarshal(line, &je); err != nil {
			return nil, fmt.Errorf("%w: the stored journal is not valid: %v", ErrSessionState, err)
		}
		j.Calls = append(j.Calls, je)
	}
	return j, nil
}

func (j *journalState) encode() ([]byte, error) {
	var buf bytes.Buffer
	for _, c := range j.Calls {
		line, err := json.Marshal(c) // never holds a raw newline
		if err != nil {
			return nil, err
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	return buf.Bytes(), nil
}

func (s *Session) loadJournal(ctx context.Context) (*journalState, error) {
	b, err := s.r.sessionStore().Load(ctx, s.id+journalPart)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSessionState, err)
	}
	return decodeJournal(b)
}

func (s *Session) updateJournal(ctx context.Context, fn func(j *journalState) error) error {
	return s.update(ctx, journalPart, func(b []byte) ([]byte, error) {
		j, err := decodeJournal(b)
		if err != nil {
			return nil, err
		}
		if err := fn(j); err != nil {
			return nil, err
		}
		return j.encode()
	})
}

// journal appends an executed side-effect call, forgetting the oldest
// beyond the session's bounds.
func (s *Session) journal(ctx context.Context, e *entry, raw []byte, res Result, turn int) error {
	je := JournalEntry{ID: s.newCallID(), Tool: e.meta.Name, At: s.r.now().UTC(), Turn: turn, Revertible: e.tool.Revert != nil}
	if !je.Revertible {
		je.Note = "tool " + e.meta.Name + " cannot be reverted"
	} else if data, err := dataJSON(res); err != nil {
		je.Revertible, je.Note = false, "its result could not be kept"
	} else if len(raw)+len(data) > s.journalBytes/2 {
		je.Revertible, je.Note = false, fmt.Sprintf("its arguments and result (%d bytes) were too large to keep", len(raw)+len(data))
	} else {
		je.Args, je.Result = append(json.RawMessage(nil), raw...), data
	}
	line, err := json.Marshal(je)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	return s.update(ctx, journalPart, func(old []byte) ([]byte, error) {
		b := make([]byte, 0, len(old)+len(line))
		b = append(append(b, old...), line...)
		for n := bytes.Count(b, []byte{'\n'}); n > 1 && (n > s.journalMax || len(b) > s.journalBytes); n-- {
			b = b[bytes.IndexByte(b, '\n')+1:]
		}
		return b, nil
	})
}

// Journal returns the session's executed side-effect calls, oldest first.
func (s *Session) Journal(ctx context.Context) ([]JournalEntry, error) {
	j, err := s.loadJournal(ctx)
	if err != nil {
		return nil, err
	}
	return j.Calls, nil
}

// UndoReport is what Session.Undo reverted, newest first, with the
// envelope of each revert.
type UndoReport struct {
	Undone  []JournalEntry
	Results []Result
}

// Undo reverts the last n executed side-effect calls of the session,
// newest first, through their tools' Revert, and takes them out of the
// journal. It reverts nothing when a call that cannot be reverted is among
// the last n, and says which; it stops at the first revert that fails,
// leaving that call and the older ones in the journal, and the error says
// what was reverted before it. Fewer than n calls in the journal are all
// reverted.
func (s *Session) Undo(ctx context.Context, n int) (UndoReport, error) {
	return s.undo(ctx, n, nil, true)
}

// undo is Undo; approved says the user asked for it (the host's Undo, or
// an approved undo_last_actions), so that reverts of tools that need
// approval run. want, when set, are the ids of the calls to revert, newest
// first: undo reverts nothing unless they are still the newest.
func (s *Session) undo(ctx context.Context, n int, want []string, approved bool) (UndoReport, error) {
	if n <= 0 {
		return UndoReport{}, sessionErrorf("nothing to undo: asked for %d calls", n)
	}
	token := s.newCallID()
	var claimed []JournalEntry // newest first
	err := s.updateJournal(ctx, func(j *journalState) error {
		claimed = claimed[:0]
		if len(j.Calls) == 0 {
			return sessionErrorf("nothing to undo: the session has no journaled calls")
		}
		for i := len(j.Calls) - 1; i >= 0 && len(claimed) < n; i-- {
			c := j.Calls[i]
			if c.Undoing != "" {
				return sessionErrorf("another undo of this session is reverting %s (call %s)", c.Tool, c.ID)
			}
			if want != nil && c.ID != want[len(claimed)] {
				return sessionErrorf("call %s is not the one to undo next any more: it was undone already, or calls came after it", want[len(claimed)])
			}
			if !c.Revertible {
				return sessionErrorf("cannot undo %d calls: call %s of %s cannot be undone (%s); the %d calls after it can",
					n, c.ID, c.Tool, c.Note, len(claimed))
			}
			claimed = append(claimed, c)
		}
		if want != nil && len(claimed) < len(want) {
			return sessionErrorf("call %s is not in the journal any more: it was undone already", want[len(claimed)])
		}
		for i := len(j.Calls) - len(claimed); i < len(j.Calls); i++ {
			j.Calls[i].Undoing = token
		}
		return nil
	})
	if err != nil {
		return UndoReport{}, err
	}
	var rep UndoReport
	var failed *JournalEntry
	var failure Result
	opts := CallOptions{Sender: s.sender, Autonomy: s.autonomy, KeyScope: s.id, Approved: approved}
	for i := range claimed {
		c := &claimed[i]
		res := s.r.Revert(ctx, c.Tool, c.Args, c.Result, opts)
		if !res.Success {
			failed, failure = c, res
			break
		}
		if res.Untrusted != nil {
			s.taint(ctx, res)
		}
		rep.Undone = append(rep.Undone, *c)
		rep.Results = append(rep.Results, res)
	}
	done := map[string]bool{}
	for _, c := range rep.Undone {
		done[c.ID] = true
	}
	ferr := s.updateJournal(ctx, func(j *journalState) error {
		kept := j.Calls[:0]
		for _, c := range j.Calls {
			if c.Undoing == token {
				if done[c.ID] {
					continue
				}
				c.Undoing = ""
			}
			kept = append(kept, c)
		}
		j.Calls = kept
		return nil
	})
	if failed != nil {
		var names []string
		for _, c := range rep.Undone {
			names = append(names, c.Tool+" ("+c.ID+")")
		}
		msg := fmt.Sprintf("reverting %s (call %s) failed: %s", failed.Tool, failed.ID, failure.Error.Message)
		if len(names) > 0 {
			msg = "reverted " + strings.Join(names, ", ") + "; then " + msg
		}
		rep.Results = append(rep.Results, failure)
		return rep, &UndoError{Msg: msg + "; it and the calls before it were not reverted", Failed: *failed, Result: failure}
	}
	if ferr != nil {
		return rep, fmt.Errorf("the calls were reverted, but the journal could not be updated: %w", ferr)
	}
	return rep, nil
}

// UndoError is the error of an Undo stopped by a revert that failed:
// Failed is the call, Result its revert's envelope.
type UndoError struct {
	Msg    string
	Failed JournalEntry
	Result Result
}

func (e *UndoError) Error() string { return e.Msg }

// taint marks the session as having taken in untrusted content res.
func (s *Session) taint(ctx context.Context, res Result) {
	_ = s.updateCore(ctx, func(st *coreState) error { st.taint(res.Untrusted.Source); return nil })
}
