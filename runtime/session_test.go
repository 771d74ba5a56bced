package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/internal/sessionflow"
)

func TestSessionFlows(t *testing.T) {
	sessionflow.Run(t, func() runtime.SessionStore { return runtime.NewMemorySessionStore() })
}

// brokenSessions is a SessionStore that cannot be reached.
type brokenSessions struct{}

var errDown = errors.New("store down")

func (brokenSessions) Load(context.Context, string) ([]byte, error) { return nil, errDown }
func (brokenSessions) Update(context.Context, string, time.Duration, func([]byte) ([]byte, error)) error {
	return errDown
}

func TestSessionStoreDown(t *testing.T) {
	w := sessionflow.NewWorld()
	s := w.Replicas(t, 1, brokenSessions{})[0].Session("conv-down")
	res := s.Call(context.Background(), "publish_post", []byte(`{"title":"x"}`), runtime.CallOptions{})
	if res.Success || res.Error.Code != runtime.CodeDependencyUnavailable {
		t.Fatalf("call with the session store down: %s", res.JSON())
	}
	if len(w.Posts()) != 0 {
		t.Fatal("the tool ran without the session's state")
	}
	if _, err := s.Tools(context.Background()); !errors.Is(err, runtime.ErrSessionState) || !errors.Is(err, errDown) {
		t.Fatalf("Tools with the store down: %v", err)
	}
	if err := s.EndTurn(context.Background()); !errors.Is(err, errDown) {
		t.Fatalf("EndTurn with the store down: %v", err)
	}
}

// TestSessionConcurrentReplicas checks that calls of one session made at
// once on two replicas lose no journal entry and no promotion.
func TestSessionConcurrentReplicas(t *testing.T) {
	ctx := context.Background()
	w := sessionflow.NewWorld()
	regs := w.Replicas(t, 2, runtime.NewMemorySessionStore())
	const calls = 40
	done := make(chan runtime.Result, calls)
	for i := range calls {
		go func() {
			s := regs[i%2].Session("conv-race", runtime.SessionJournalLimit(1000, 1<<20))
			done <- s.Call(ctx, "send_email", []byte(`{"to":"x@example.com"}`), runtime.CallOptions{})
		}()
	}
	for range calls {
		if res := <-done; !res.Success {
			t.Fatal(res.JSON())
		}
	}
	j, err := regs[0].Session("conv-race").Journal(ctx)
	if err != nil || len(j) != calls {
		t.Fatalf("journal holds %d calls of %d (%v)", len(j), calls, err)
	}
	seen := map[string]bool{}
	for _, c := range j {
		if seen[c.ID] {
			t.Fatalf("call id %s journaled twice", c.ID)
		}
		seen[c.ID] = true
	}
}

// TestSessionJournalBounded checks the journal's bounds: the oldest calls
// go first, and a call too large to keep is journaled as one that cannot
// be undone.
func TestSessionJournalBounded(t *testing.T) {
	ctx := context.Background()
	w := sessionflow.NewWorld()
	s := w.Replicas(t, 1, runtime.NewMemorySessionStore())[0].Session("conv-bound", runtime.SessionJournalLimit(3, 4096))
	for i := range 5 {
		if res := s.Call(ctx, "publish_post", []byte(`{"title":"t`+string(rune('0'+i))+`"}`), runtime.CallOptions{}); !res.Success {
			t.Fatal(res.JSON())
		}
	}
	j, _ := s.Journal(ctx)
	if len(j) != 3 || string(j[0].Args) != `{"title":"t2"}` {
		t.Fatalf("journal after 5 calls with room for 3: %+v", j)
	}
	big := `{"title":"` + strings.Repeat("x", 3000) + `"}`
	if res := s.Call(ctx, "publish_post", []byte(big), runtime.CallOptions{}); !res.Success {
		t.Fatal(res.JSON())
	}
	j, _ = s.Journal(ctx)
	last := j[len(j)-1]
	if last.Revertible || last.Args != nil || !strings.Contains(last.Note, "too large") {
		t.Fatalf("a call too large to keep: %+v", last)
	}
	if _, err := s.Undo(ctx, 1); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Fatalf("undo of a call too large to keep: %v", err)
	}
}

// TestSessionWithoutID checks that a session made without an id answers
// internal (the host's fault), not a retryable store error.
func TestSessionWithoutID(t *testing.T) {
	w := sessionflow.NewWorld()
	s := w.Replicas(t, 1, runtime.NewMemorySessionStore())[0].Session("")
	res := s.Call(context.Background(), "search_docs", []byte(`{}`), runtime.CallOptions{})
	if res.Success || res.Error.Code != runtime.CodeInternal || !strings.Contains(res.Error.Message, "without an id") {
		t.Fatalf("a session without an id: %s", res.JSON())
	}
	if err := s.EndTurn(context.Background()); err == nil || !strings.Contains(err.Error(), "no id") {
		t.Fatalf("EndTurn without an id: %v", err)
	}
}

// TestSessionFailedPreviewKeepsAttempts checks that a dry run that fails
// while a call is held for approval does not use up the call's attempts:
// the approved call runs.
func TestSessionFailedPreviewKeepsAttempts(t *testing.T) {
	ctx := context.Background()
	reg := runtime.New()
	runs := 0
	reg.MustRegister(runtime.Tool{
		Meta: runtime.Meta{Name: "wire_money", Description: "Wires money.", Risk: runtime.RiskHigh, HasSideEffects: true,
			SupportsDryRun: true, ArgsSchema: []byte(`{"type":"object"}`)},
		Execute: func(context.Context, any) (any, error) { runs++; return map[string]bool{"sent": true}, nil },
		DryRun: func(context.Context, any) (any, error) {
			return nil, runtime.ExternalError("the bank's preview API is down")
		},
	})
	s := reg.Session("conv-preview", runtime.SessionAutonomy(runtime.AutonomySupervised))
	res := s.Call(ctx, "wire_money", []byte(`{}`), runtime.CallOptions{})
	if res.Pending == nil || !strings.Contains(res.Pending.Preview.Summary, "the dry run failed") {
		t.Fatalf("held call: %s %+v", res.JSON(), res.Pending)
	}
	got, err := s.Approve(ctx, res.Pending.ID)
	if err != nil || !got.Success || runs != 1 {
		t.Fatalf("approved after a failed preview: %s %v runs=%d", got.JSON(), err, runs)
	}
}

func TestSessionReset(t *testing.T) {
	ctx := context.Background()
	r := runtime.New()
	mustRegister(t, r,
		runtime.Tool{Meta: runtime.Meta{Name: "fetch_page", ReturnsUntrusted: true}, Execute: echo},
		runtime.Tool{
			Meta:    runtime.Meta{Name: "create_note", HasSideEffects: true, Revertible: true},
			Execute: echo,
			Revert:  func(context.Context, any, json.RawMessage) (any, error) { return nil, nil },
		},
	)
	s := r.Session("conv-1")
	if err := s.EndTurn(ctx); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"create_note", "fetch_page"} {
		if res := s.Call(ctx, name, []byte(`{}`), runtime.CallOptions{}); !res.Success {
			t.Fatalf("%s: %s", name, res.JSON())
		}
	}
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Turn != 1 || !snap.Tainted {
		t.Fatalf("before Reset: turn %d, tainted %v; want turn 1, tainted", snap.Turn, snap.Tainted)
	}
	if j, err := s.Journal(ctx); err != nil || len(j) != 1 {
		t.Fatalf("before Reset: journal %v, %v; want one call", j, err)
	}
	if err := s.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	snap, err = s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Turn != 0 || snap.Tainted {
		t.Fatalf("after Reset: turn %d, tainted %v; want a new session", snap.Turn, snap.Tainted)
	}
	if j, err := s.Journal(ctx); err != nil || len(j) != 0 {
		t.Fatalf("after Reset: journal %v, %v; want empty", j, err)
	}
	var se *runtime.SessionError
	if rep, err := s.Undo(ctx, 1); !errors.As(err, &se) || !strings.Contains(err.Error(), "no journaled calls") || len(rep.Undone) != 0 {
		t.Fatalf("after Reset, Undo: %+v, %v; want nothing to undo", rep, err)
	}
}

// TestSessionApprovalCarriesEffects checks that the approval_required
// envelope of a held call says what the call would change, from its dry
// run's Preview.Effects, so the model can tell the user; a long list is
// cut short.
func TestSessionApprovalCarriesEffects(t *testing.T) {
	ctx := context.Background()
	reg := runtime.New()
	effects := []string{"delete /srv/a", "delete /srv/b"}
	for i := range 30 {
		effects = append(effects, fmt.Sprintf("delete /srv/c%d", i))
	}
	reg.MustRegister(runtime.Tool{
		Meta: runtime.Meta{Name: "delete_files", Description: "Deletes files.", Risk: runtime.RiskHigh, HasSideEffects: true,
			SideEffect: runtime.SideEffectDestructive, SupportsDryRun: true, ArgsSchema: []byte(`{"type":"object"}`)},
		Execute: func(context.Context, any) (any, error) { return nil, nil },
		DryRun: func(context.Context, any) (any, error) {
			return runtime.Preview{Summary: "would delete 32 files", Effects: effects}, nil
		},
	})
	s := reg.Session("conv-effects", runtime.SessionAutonomy(runtime.AutonomySupervised))
	res := s.Call(ctx, "delete_files", []byte(`{}`), runtime.CallOptions{})
	if res.Success || res.Error.Code != runtime.CodeApprovalRequired {
		t.Fatalf("want approval_required, got %s", res.JSON())
	}
	var env struct {
		Error struct {
			Message string `json:"message"`
			Details struct {
				Preview string   `json:"preview"`
				Effects []string `json:"effects"`
			} `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal(res.JSON(), &env); err != nil {
		t.Fatal(err)
	}
	d := env.Error.Details
	if d.Preview != "would delete 32 files" || len(d.Effects) != 21 || d.Effects[0] != "delete /srv/a" || d.Effects[20] != "(12 more)" {
		t.Errorf("details: preview %q, %d effects %q", d.Preview, len(d.Effects), d.Effects)
	}
	if want := "tool delete_files is high risk and deletes data that it cannot restore"; !strings.HasPrefix(env.Error.Message, want) {
		t.Errorf("message %q, want it to start %q", env.Error.Message, want)
	}
	if len(res.Pending.Preview.Effects) != 32 {
		t.Errorf("the pending call keeps %d effects, want 32", len(res.Pending.Preview.Effects))
	}
}
