package runtime_test

import (
	"context"
	"testing"
	"time"

	"github.com/toolcat/toolcat/runtime"
)

// The earlier names still compile and do what their new names do.
func TestDeprecatedNames(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	var store *runtime.MemoryStore = runtime.NewMemoryStore(runtime.WithMaxEntries(2), runtime.WithMemoryClock(clock.Now))
	var _ runtime.MemoryOption = runtime.WithMaxEntries(1)
	sessions := runtime.NewMemorySessionStore(runtime.WithMaxSessions(1), runtime.WithSessionClock(clock.Now))
	var _ runtime.MemorySessionOption = runtime.WithMaxSessions(1)
	if runtime.DefaultMaxEntries != runtime.DefaultMaxIdempotencyEntries {
		t.Fatal("DefaultMaxEntries differs from DefaultMaxIdempotencyEntries")
	}
	r := runtime.New(runtime.WithIdempotencyStore(store), runtime.WithSessionStore(sessions))
	mustRegister(t, r, runtime.Tool{Meta: runtime.Meta{Name: "delete_note", HasSideEffects: true}, Execute: echo})
	for i, key := range []string{"a", "b", "c"} {
		if res := r.Call(ctx, "delete_note", []byte(`{}`), runtime.CallOptions{IdempotencyKey: key}); !res.Success {
			t.Fatalf("call %d: %s", i, res.JSON())
		}
	}
	if n := store.Len(); n != 2 {
		t.Fatalf("WithMaxEntries(2): the store holds %d keys", n)
	}
	s := r.Session("conv-1",
		runtime.WithSender("user-1"), runtime.WithAutonomy(runtime.AutonomyReadOnly),
		runtime.WithTrust(), runtime.WithTaintScope(runtime.TaintSession), runtime.WithPromotionTurns(2),
		runtime.WithUndoTool(true), runtime.WithProviderSearch(false), runtime.WithJournalLimit(5, 1<<10))
	if res := s.Call(ctx, "delete_note", []byte(`{}`), runtime.CallOptions{}); res.Success || res.Error.Code != runtime.CodePermissionDenied {
		t.Fatalf("WithAutonomy(AutonomyReadOnly): want permission_denied, got %s", res.JSON())
	}
	tools, err := s.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	undo := false
	for _, m := range tools {
		undo = undo || m.Name == "undo_last_actions"
	}
	if !undo {
		t.Fatal("WithUndoTool(true): no undo_last_actions tool")
	}
	clock.Advance(time.Second)
}
