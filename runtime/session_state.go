package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/toolcat/toolcat/runtime/jsonscan"
)

// A session's state is kept in three parts, each under an id of its own in
// the SessionStore, so that a call reads only the small one:
//   - the core (id): turn, promotions, taint;
//   - the journal (id + "\x00journal"): executed side-effect calls;
//   - the pending calls (id + "\x00pending"): calls awaiting approval.
const (
	journalPart = "\x00journal"
	pendingPart = "\x00pending"
)

// maxPromotions bounds how many hidden tools one session has promoted at
// once; the ones promoted longest ago go first.
const maxPromotions = 200

type coreState struct {
	Turn     int         `json:"turn"`
	Promoted []promotion `json:"promoted,omitempty"`
	// TaintTurn is the last turn in which untrusted content entered the
	// session, plus one (0: never).
	TaintTurn   int    `json:"taint_turn,omitempty"`
	TaintSource string `json:"taint_source,omitempty"`

	// step is the retry guard's step of the turn (stepOf), set on a state
	// the memory store keeps decoded, once, before it is shared.
	step string
}

// stepOf is the step id of a turn of session id: every call of the turn
// shares the retry guard's attempts.
func stepOf(id string, turn int) string { return id + "/turn-" + strconv.Itoa(turn) }

// promotion lists a hidden tool from turn Since until before turn Until.
type promotion struct {
	Tool  string `json:"tool"`
	Since int    `json:"since"`
	Until int    `json:"until"`
}

func (st *coreState) promoted(name string) bool {
	for _, p := range st.Promoted {
		if p.Tool == name {
			return st.Turn < p.Until
		}
	}
	return false
}

// taint notes that untrusted content from source entered the session now.
func (st *coreState) taint(source string) {
	st.TaintTurn = st.Turn + 1
	st.TaintSource = source
}

func (st *coreState) tainted(scope TaintScope) bool {
	if st.TaintTurn == 0 {
		return false
	}
	return scope == TaintSession || st.TaintTurn-1 == st.Turn
}

// promote lists tools until turns turns from now.
func (st *coreState) promote(tools []string, turns int) {
	for _, t := range tools {
		found := false
		for i := range st.Promoted {
			if p := &st.Promoted[i]; p.Tool == t {
				if p.Until <= st.Turn { // expired: promoted anew, at the end
					p.Since = st.Turn
				}
				p.Until = st.Turn + turns
				found = true
				break
			}
		}
		if !found {
			st.Promoted = append(st.Promoted, promotion{Tool: t, Since: st.Turn, Until: st.Turn + turns})
		}
	}
	if n := len(st.Promoted) - maxPromotions; n > 0 {
		st.Promoted = sortedPromotions(st.Promoted)[n:]
	}
}

func decodeCore(b []byte) (*coreState, error) {
	st := &coreState{}
	if b == nil || st.decodeWritten(b) {
		return st, nil
	}
	*st = coreState{}
	if err := json.Unmarshal(b, st); err != nil {
		return nil, fmt.Errorf("%w: the stored state is not valid: %v", ErrSessionState, err)
	}
	return st, nil
}

// decodeWritten decodes b when it reads as json.Marshal writes a core
// state — the members by their names, integers in digits, strings without
// escapes — and reports false for anything else, which json.Unmarshal then
// decodes: a session's state is read at every call, and encoding/json's
// reflection was most of a session's cost.
func (st *coreState) decodeWritten(b []byte) bool {
	var d jsonscan.Decoder
	d.Reset(b)
	if d.BeginObject() != nil {
		return false
	}
	for {
		key, ok, err := d.NextKey()
		switch {
		case err != nil:
			return false
		case !ok:
			return d.End() == nil
		}
		switch string(key) {
		case "turn":
			ok = writtenInt(&d, &st.Turn)
		case "taint_turn":
			ok = writtenInt(&d, &st.TaintTurn)
		case "taint_source":
			ok = writtenString(&d, &st.TaintSource)
		case "promoted":
			ok = st.Promoted == nil && st.decodePromotions(&d) // written twice: json.Unmarshal's way
		default:
			ok = false
		}
		if !ok {
			return false
		}
	}
}

func (st *coreState) decodePromotions(d *jsonscan.Decoder) bool {
	if d.BeginArray() != nil {
		return false
	}
	for {
		more, err := d.NextElem()
		switch {
		case err != nil:
			return false
		case !more:
			return true
		}
		if d.BeginObject() != nil {
			return false
		}
		var p promotion
		for {
			key, ok, err := d.NextKey()
			if err != nil {
				return false
			}
			if !ok {
				break
			}
			switch string(key) {
			case "tool":
				ok = writtenString(d, &p.Tool)
			case "since":
				ok = writtenInt(d, &p.Since)
			case "until":
				ok = writtenInt(d, &p.Until)
			default:
				ok = false
			}
			if !ok {
				return false
			}
		}
		st.Promoted = append(st.Promoted, p)
	}
}

// writtenInt reads an integer written in digits that fits an int.
func writtenInt(d *jsonscan.Decoder, out *int) bool {
	b, err := d.Number()
	if err != nil {
		return false
	}
	n, err := strconv.Atoi(string(b))
	*out = n
	return err == nil
}

// writtenString reads a string without escapes, in valid UTF-8.
func writtenString(d *jsonscan.Decoder, out *string) bool {
	b, err := d.Raw()
	if err != nil || len(b) < 2 || b[0] != '"' || bytes.IndexByte(b, '\\') >= 0 || !utf8.Valid(b) {
		return false
	}
	*out = string(b[1 : len(b)-1])
	return true
}

func (s *Session) ttl() time.Duration {
	if s.r.sessionTTL > 0 {
		return s.r.sessionTTL
	}
	return DefaultSessionTTL
}

// load reads the core state. It may be shared with other calls of the
// session: read it, never change it (updateCore changes the state).
func (s *Session) load(ctx context.Context) (*coreState, error) {
	if s.id == "" {
		return nil, errNoSessionID
	}
	if ms, ok := s.r.sessionStore().(*MemorySessionStore); ok {
		// Decoded in place, once for each state the store holds.
		var st *coreState
		var derr error
		err := ms.read(ctx, s.id, &s.mem, func(b []byte, decoded *any) {
			if decoded != nil {
				if kept, ok := (*decoded).(*coreState); ok {
					st = kept
					return
				}
			}
			if st, derr = decodeCore(b); derr == nil && decoded != nil {
				st.step = stepOf(s.id, st.Turn)
				*decoded = st
			}
		})
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrSessionState, err)
		}
		return st, derr
	}
	b, err := s.r.sessionStore().Load(ctx, s.id)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSessionState, err)
	}
	return decodeCore(b)
}

// errNoSessionID is the error of a session made without an id: a fault of
// the host.
var errNoSessionID = &SessionError{Msg: "the session has no id: give Registry.Session the conversation's id"}

// updateCore changes the core state with fn and stores it.
func (s *Session) updateCore(ctx context.Context, fn func(st *coreState) error) error {
	return s.update(ctx, "", func(b []byte) ([]byte, error) {
		st, err := decodeCore(b)
		if err != nil {
			return nil, err
		}
		if err := fn(st); err != nil {
			return nil, err
		}
		return json.Marshal(st)
	})
}

// update runs a read-modify-write of one part of the state.
func (s *Session) update(ctx context.Context, part string, fn func([]byte) ([]byte, error)) error {
	if s.id == "" {
		return errNoSessionID
	}
	err := s.r.sessionStore().Update(ctx, s.id+part, s.ttl(), fn)
	if err != nil && !isSessionError(err) {
		return fmt.Errorf("%w: %w", ErrSessionState, err)
	}
	return err
}

// isSessionError reports whether err comes from the session itself (an
// answer for the host), not from the store.
func isSessionError(err error) bool {
	_, ok := err.(*SessionError)
	return ok
}

// SessionError is the error of a host's request the session cannot do:
// approving a call that is not pending, undoing past a call that cannot be
// undone.
type SessionError struct {
	Msg string
}

func (e *SessionError) Error() string { return e.Msg }

func sessionErrorf(format string, args ...any) *SessionError {
	return &SessionError{Msg: fmt.Sprintf(format, args...)}
}

// record keeps what the session must of an executed call, run in turn
// turn: the taint of untrusted content, the journal entry of a side
// effect, the refreshed promotion of a hidden tool.
func (s *Session) record(ctx context.Context, e *entry, raw []byte, opts *CallOptions, res *Result, turn int) {
	m := e.meta
	tainted := res.Untrusted != nil
	refresh := m.Exposure == ExposureHidden && !s.providerSide
	journal := res.Success && !res.Replayed && m.HasSideEffects && !opts.DryRun
	if tainted || refresh {
		var source string // not res, which would then live on the heap
		if tainted {
			source = res.Untrusted.Source
		}
		err := s.updateCore(ctx, func(st *coreState) error {
			if tainted {
				st.taint(source)
			}
			if refresh && st.promoted(m.Name) {
				st.promote([]string{m.Name}, s.promoteTurns)
			}
			return nil
		})
		if err != nil {
			s.r.log.LogAttrs(ctx, slog.LevelError, "toolcat: session state not saved after a call",
				slog.String("session", s.id), slog.String("tool", m.Name), slog.Bool("taint", tainted), slog.Any("err", err))
		}
	}
	if journal {
		if err := s.journal(ctx, e, raw, *res, turn); err != nil {
			s.r.log.LogAttrs(ctx, slog.LevelError, "toolcat: call not journaled: it cannot be undone",
				slog.String("session", s.id), slog.String("tool", m.Name), slog.Any("err", err))
		}
	}
}

// SessionSnapshot is what a session holds, for hosts and admin views.
type SessionSnapshot struct {
	ID   string
	Turn int
	// Promoted are the hidden tools listed now, in the order Definitions
	// lists them.
	Promoted []string
	// Tainted says whether outside content makes high-risk calls need
	// approval now; TaintSource names the last such content.
	Tainted     bool
	TaintSource string
	Journal     []JournalEntry
	Pending     []PendingCall
}

// Snapshot returns the session's state.
func (s *Session) Snapshot(ctx context.Context) (SessionSnapshot, error) {
	st, err := s.load(ctx)
	if err != nil {
		return SessionSnapshot{}, err
	}
	j, err := s.loadJournal(ctx)
	if err != nil {
		return SessionSnapshot{}, err
	}
	p, err := s.loadPending(ctx)
	if err != nil {
		return SessionSnapshot{}, err
	}
	snap := SessionSnapshot{ID: s.id, Turn: st.Turn, Tainted: st.tainted(s.taintScope), TaintSource: st.TaintSource,
		Journal: j.Calls}
	for _, pr := range sortedPromotions(st.Promoted) {
		if st.Turn < pr.Until {
			snap.Promoted = append(snap.Promoted, pr.Tool)
		}
	}
	for _, pc := range p.Calls {
		if pc.Status == PendingWaiting {
			snap.Pending = append(snap.Pending, pc)
		}
	}
	return snap, nil
}

// EndTurn ends the conversation's turn: promotions count down, and a taint
// of scope TaintTurn ends.
func (s *Session) EndTurn(ctx context.Context) error {
	return s.updateCore(ctx, func(st *coreState) error {
		st.Turn++
		live := st.Promoted[:0]
		for _, p := range st.Promoted {
			if st.Turn < p.Until {
				live = append(live, p)
			}
		}
		st.Promoted = live
		return nil
	})
}

// Reset forgets the session's state: turn, promotions, taint, journal and
// pending calls.
func (s *Session) Reset(ctx context.Context) error {
	del := func([]byte) ([]byte, error) { return nil, nil }
	for _, part := range []string{"", journalPart, pendingPart} {
		if err := s.update(ctx, part, del); err != nil {
			return err
		}
	}
	return nil
}

// sessionStore returns the registry's store.
func (r *Registry) sessionStore() SessionStore { return r.sessions }
