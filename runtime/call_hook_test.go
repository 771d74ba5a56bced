package runtime_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/internal/sessionflow"
)

// recorder is a CallHook and ApprovalHook that writes down what it is told,
// as lines, and marks the context of each call with its tool, so that a
// call made inside another names its parent.
type recorder struct {
	mu    sync.Mutex
	lines []string
}

type parentKey struct{}

func (h *recorder) add(format string, args ...any) {
	h.mu.Lock()
	h.lines = append(h.lines, fmt.Sprintf(format, args...))
	h.mu.Unlock()
}

func (h *recorder) take() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.lines
	h.lines = nil
	return out
}

func (h *recorder) BeforeCall(ctx context.Context, c runtime.CallStart) context.Context {
	parent, _ := ctx.Value(parentKey{}).(string)
	h.add("before %s parent=%q id=%q dry=%v known=%v args=%s", c.Tool, parent, c.CallID, c.Options.DryRun, c.Meta != nil, c.Args)
	return context.WithValue(ctx, parentKey{}, c.Tool)
}

func (h *recorder) AfterCall(ctx context.Context, ev runtime.CallEvent, res runtime.Result) {
	self, _ := ctx.Value(parentKey{}).(string)
	h.add("after %s ctx=%s code=%q replayed=%v success=%v", ev.Tool, self, ev.Code, ev.Replayed, res.Success)
}

func (h *recorder) ApprovalRequested(ctx context.Context, pc runtime.PendingCall) {
	h.add("requested %s %s", pc.Tool, pc.Status)
}

func (h *recorder) ApprovalResolved(ctx context.Context, pc runtime.PendingCall, at time.Time) {
	h.add("resolved %s %s waited=%v", pc.Tool, pc.Status, at.After(pc.At))
}

// hooked returns a registry of sessionflow's tools with hook h, on a clock
// that moves on at every reading, so that a wait is seen to last.
func hooked(t *testing.T, h runtime.CallHook, opts ...runtime.Option) (*runtime.Registry, *sessionflow.World) {
	t.Helper()
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { // each reading moves it on by a second
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Second)
		return now
	}
	w := sessionflow.NewWorld()
	r := runtime.New(append([]runtime.Option{runtime.WithCallHook(h), runtime.WithClock(clock), runtime.WithLogger(quietLogger())}, opts...)...)
	mustRegister(t, r, w.Tools()...)
	return r, w
}

// TestCallHookNesting checks that the hook runs around every call, that
// the call runs with the context BeforeCall returned (so the calls a
// composite makes see it as their parent), that only the model's call gets
// the call id, and that a replay and an unknown tool are seen too.
func TestCallHookNesting(t *testing.T) {
	h := &recorder{}
	r, _ := hooked(t, h)
	ctx := runtime.ContextWithCallID(context.Background(), "toolu_1")
	if res := r.Call(ctx, "digest_and_post", []byte(`{}`), runtime.CallOptions{IdempotencyKey: "k1"}); !res.Success {
		t.Fatal(res.JSON())
	}
	r.Call(ctx, "digest_and_post", []byte(`{}`), runtime.CallOptions{IdempotencyKey: "k1"})
	r.Call(context.Background(), "no_such_tool", []byte(`{}`), runtime.CallOptions{})
	want := []string{
		`before digest_and_post parent="" id="toolu_1" dry=false known=true args={}`,
		`before fetch_page parent="digest_and_post" id="" dry=false known=true args={"url":"https://example.com"}`,
		`after fetch_page ctx=fetch_page code="" replayed=false success=true`,
		`before publish_post parent="digest_and_post" id="" dry=false known=true args={"title":"Digest"}`,
		`after publish_post ctx=publish_post code="" replayed=false success=true`,
		`after digest_and_post ctx=digest_and_post code="" replayed=false success=true`,
		`before digest_and_post parent="" id="toolu_1" dry=false known=true args={}`,
		`after digest_and_post ctx=digest_and_post code="" replayed=true success=true`,
		`before no_such_tool parent="" id="" dry=false known=false args={}`,
		`after no_such_tool ctx=no_such_tool code="not_found" replayed=false success=false`,
	}
	if diff := cmp.Diff(want, h.take()); diff != "" {
		t.Fatalf("hook calls (-want +got):\n%s", diff)
	}
}

// TestCallHookSession checks a session's composite and approval: the
// preview's dry run is a call of its own, the approval hook hears of the
// request and of the first resolution only, and the approved call runs
// under the hook.
func TestCallHookSession(t *testing.T) {
	h := &recorder{}
	r, w := hooked(t, h)
	ctx := runtime.ContextWithCallID(context.Background(), "toolu_2")
	s := r.Session("conv-1", runtime.SessionAutonomy(runtime.AutonomySupervised))
	res := s.Call(ctx, "publish_post", []byte(`{"title":"Hello"}`), runtime.CallOptions{})
	if res.Pending == nil {
		t.Fatalf("want a pending call: %s", res.JSON())
	}
	if _, err := s.Approve(context.Background(), res.Pending.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Approve(context.Background(), res.Pending.ID); err != nil { // replays; no second resolution
		t.Fatal(err)
	}
	held := s.Call(ctx, "publish_post", []byte(`{"title":"Other"}`), runtime.CallOptions{})
	if _, err := s.Deny(context.Background(), held.Pending.ID, "no"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Deny(context.Background(), held.Pending.ID, "no"); err != nil {
		t.Fatal(err)
	}
	got := h.take()
	want := []string{
		`before publish_post parent="" id="" dry=true known=true args={"title":"Hello"}`,
		`after publish_post ctx=publish_post code="" replayed=false success=true`,
		`requested publish_post waiting`,
		`resolved publish_post approved waited=true`,
		`before publish_post parent="" id="" dry=false known=true args={"title":"Hello"}`,
		`after publish_post ctx=publish_post code="" replayed=false success=true`,
		`before publish_post parent="" id="" dry=false known=true args={"title":"Hello"}`,
		`after publish_post ctx=publish_post code="" replayed=true success=true`,
		`before publish_post parent="" id="" dry=true known=true args={"title":"Other"}`,
		`after publish_post ctx=publish_post code="" replayed=false success=true`,
		`requested publish_post waiting`,
		`resolved publish_post denied waited=true`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("hook calls (-want +got):\n%s", diff)
	}
	if len(w.Posts()) != 1 {
		t.Fatalf("posts: %v", w.Posts())
	}
}

// TestCallHookLastWins checks that a registry has one hook, the last set,
// and that observers and the hook see the same calls.
func TestCallHookLastWins(t *testing.T) {
	first, second := &recorder{}, &recorder{}
	var evs events
	r, _ := hooked(t, first, runtime.WithCallHook(second), runtime.WithObserver(evs.observe))
	r.Call(context.Background(), "search_docs", []byte(`{}`), runtime.CallOptions{})
	if got := first.take(); len(got) != 0 {
		t.Fatalf("the first hook was called: %v", got)
	}
	if got := second.take(); len(got) != 2 {
		t.Fatalf("the hook set last: %v", got)
	}
	remove := r.Observe(func(runtime.CallEvent) {})
	remove()
	r.Call(context.Background(), "search_docs", []byte(`{}`), runtime.CallOptions{})
	if got := second.take(); len(got) != 2 {
		t.Fatalf("the hook after the last observer was removed: %v", got)
	}
	if got := evs.take(); len(got) != 2 {
		t.Fatalf("observer: %v", got)
	}
}

type noopHook struct{}

func (noopHook) BeforeCall(ctx context.Context, _ runtime.CallStart) context.Context { return ctx }
func (noopHook) AfterCall(context.Context, runtime.CallEvent, runtime.Result)        {}

// BenchmarkCallHook measures what a hook costs the registry itself: a call
// of BenchmarkCall/generated_validator with no hook, and with one that does
// nothing.
func BenchmarkCallHook(b *testing.B) {
	ctx := context.Background()
	for _, c := range []struct {
		name string
		opts []runtime.Option
	}{
		{"none", nil},
		{"noop", []runtime.Option{runtime.WithCallHook(noopHook{})}},
	} {
		b.Run(c.name, func(b *testing.B) {
			r := runtime.New(append(c.opts, runtime.WithLogger(quietLogger()))...)
			mustRegister(b, r, searchTool(searchImpl{}, searchArticlesValidator))
			b.ReportAllocs()
			for b.Loop() {
				if res := r.Call(ctx, "search_articles", benchArgs, runtime.CallOptions{}); !res.Success {
					b.Fatal(res.JSON())
				}
			}
		})
	}
}
