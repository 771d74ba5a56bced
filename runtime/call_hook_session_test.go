package runtime_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcat/toolcat/runtime"
)

// answerHook is a CallHook that writes down each call with its parent, its
// call id and whether it is a revert, and what its event says.
type answerHook struct{ recorder }

func (h *answerHook) BeforeCall(ctx context.Context, c runtime.CallStart) context.Context {
	parent, _ := ctx.Value(parentKey{}).(string)
	h.add("before %s parent=%q id=%q known=%v revert=%v", c.Tool, parent, c.CallID, c.Meta != nil, c.Revert)
	return context.WithValue(ctx, parentKey{}, c.Tool)
}

func (h *answerHook) AfterCall(ctx context.Context, ev runtime.CallEvent, res runtime.Result) {
	self, _ := ctx.Value(parentKey{}).(string)
	h.add("after %s ctx=%s code=%q session=%v revert=%v unknown=%v", ev.Tool, self, ev.Code, ev.Session, ev.Revert, ev.Unknown)
}

// TestCallHookSessionAnswered checks that the calls a session answers
// itself (a hidden tool not found yet, its search, a name nobody has,
// undo_last_actions, a host's Answer) run inside the hook, with the
// context it returned, so that the reverts of the undo and the calls the
// host's answer makes are its children, without the model's call id; that
// observers are told of them as session calls, and not of the reverts.
func TestCallHookSessionAnswered(t *testing.T) {
	h := &answerHook{}
	var seen []string
	r, w := hooked(t, h, runtime.WithObserver(func(ev runtime.CallEvent) {
		seen = append(seen, fmt.Sprintf("%s %q session=%v revert=%v", ev.Tool, ev.Code, ev.Session, ev.Revert))
	}))
	s := r.Session("conv-1", runtime.SessionUndoTool(true))
	ctx := runtime.ContextWithCallID(context.Background(), "toolu_1")
	for _, c := range []struct{ name, args string }{
		{"create_label", `{"label":"bug"}`},
		{runtime.SearchToolsByKeywords, `{"query":"tag this issue as a bug","limit":1}`},
		{"no_such_tool", `{}`},
		{"create_label", `{"label":"bug"}`},
		{runtime.UndoLastActions, `{}`},
	} {
		s.Call(ctx, c.name, []byte(c.args), runtime.CallOptions{})
	}
	if len(w.Labels()) != 0 {
		t.Fatalf("the undo left labels %v", w.Labels())
	}
	program := &runtime.Meta{Name: "run_program", Description: "Runs a program."}
	res := s.Answer(ctx, program, []byte(`{}`), runtime.CallOptions{}, func(ctx context.Context) runtime.Result {
		return s.Call(ctx, "search_docs", []byte(`{}`), runtime.CallOptions{})
	})
	if !res.Success {
		t.Fatal(string(res.JSON()))
	}
	want := []string{
		`before create_label parent="" id="toolu_1" known=true revert=false`,
		`after create_label ctx=create_label code="not_found" session=true revert=false unknown=false`,
		`before search_tools_by_keywords parent="" id="toolu_1" known=true revert=false`,
		`after search_tools_by_keywords ctx=search_tools_by_keywords code="" session=true revert=false unknown=false`,
		`before no_such_tool parent="" id="toolu_1" known=false revert=false`,
		`after no_such_tool ctx=no_such_tool code="not_found" session=true revert=false unknown=true`,
		`before create_label parent="" id="toolu_1" known=true revert=false`,
		`after create_label ctx=create_label code="" session=false revert=false unknown=false`,
		`before undo_last_actions parent="" id="toolu_1" known=true revert=false`,
		`before create_label parent="undo_last_actions" id="" known=true revert=true`,
		`after create_label ctx=create_label code="" session=false revert=true unknown=false`,
		`after undo_last_actions ctx=undo_last_actions code="" session=true revert=false unknown=false`,
		`before run_program parent="" id="toolu_1" known=true revert=false`,
		`before search_docs parent="run_program" id="" known=true revert=false`,
		`after search_docs ctx=search_docs code="" session=false revert=false unknown=false`,
		`after run_program ctx=run_program code="" session=true revert=false unknown=false`,
	}
	if diff := cmp.Diff(want, h.take()); diff != "" {
		t.Fatalf("the hook was told (-want +got):\n%s", diff)
	}
	wantSeen := []string{
		`create_label "not_found" session=true revert=false`,
		`search_tools_by_keywords "" session=true revert=false`,
		`no_such_tool "not_found" session=true revert=false`,
		`create_label "" session=false revert=false`,
		`undo_last_actions "" session=true revert=false`,
		`search_docs "" session=false revert=false`,
		`run_program "" session=true revert=false`,
	}
	if diff := cmp.Diff(wantSeen, seen); diff != "" {
		t.Fatalf("observers were told (-want +got):\n%s", diff)
	}
	// Without a hook, observers hear of a call and not of its revert.
	seen = nil
	plain := runtime.New(runtime.WithLogger(quietLogger()), runtime.WithObserver(func(ev runtime.CallEvent) {
		seen = append(seen, fmt.Sprintf("%s %q session=%v revert=%v", ev.Tool, ev.Code, ev.Session, ev.Revert))
	}))
	mustRegister(t, plain, w.Tools()...)
	label := []byte(`{"label":"bug"}`)
	if res := plain.Call(ctx, "create_label", label, runtime.CallOptions{}); !res.Success {
		t.Fatal(string(res.JSON()))
	}
	if res := plain.Revert(ctx, "create_label", label, nil, runtime.CallOptions{}); !res.Success || len(w.Labels()) != 0 {
		t.Fatalf("the revert: %s, labels %v", res.JSON(), w.Labels())
	}
	if diff := cmp.Diff([]string{`create_label "" session=false revert=false`}, seen); diff != "" {
		t.Fatalf("observers were told (-want +got):\n%s", diff)
	}
}

// TestCallHookSessionRefusals checks that the calls a session refuses
// before the registry runs them (invalid arguments of a call that needs
// approval, a call the user denied before, a tool switched off) run inside
// the hook too, as session calls, and that a held call is told to the
// ApprovalHook only.
func TestCallHookSessionRefusals(t *testing.T) {
	h := &answerHook{}
	r, _ := hooked(t, h)
	s := r.Session("conv-1", runtime.SessionAutonomy(runtime.AutonomySupervised))
	ctx := context.Background()
	keyed := runtime.CallOptions{IdempotencyKey: "k"}
	if res := s.Call(ctx, "publish_post", []byte(`{"title":""}`), runtime.CallOptions{}); res.Error == nil || res.Error.Code != runtime.CodeInvalidArgs {
		t.Fatalf("invalid arguments: %s", res.JSON())
	}
	held := s.Call(ctx, "publish_post", []byte(`{"title":"A"}`), keyed)
	if held.Pending == nil {
		t.Fatalf("not held: %s", held.JSON())
	}
	if _, err := s.Deny(ctx, held.Pending.ID, "no"); err != nil {
		t.Fatal(err)
	}
	if res := s.Call(ctx, "publish_post", []byte(`{"title":"A"}`), keyed); res.Error == nil || res.Error.Code != runtime.CodePermissionDenied {
		t.Fatalf("the denied call again: %s", res.JSON())
	}
	if err := r.DisableTool(ctx, "search_docs", "maintenance"); err != nil {
		t.Fatal(err)
	}
	if res := s.Call(ctx, "search_docs", []byte(`{}`), runtime.CallOptions{}); res.Error == nil || res.Error.Code != runtime.CodePermissionDenied {
		t.Fatalf("a tool switched off: %s", res.JSON())
	}
	var got []string
	for _, l := range h.take() {
		if !strings.HasPrefix(l, "before ") {
			got = append(got, l)
		}
	}
	want := []string{
		`after publish_post ctx=publish_post code="invalid_args" session=true revert=false unknown=false`,
		`after publish_post ctx=publish_post code="" session=false revert=false unknown=false`, // the preview's dry run
		`requested publish_post waiting`,
		`resolved publish_post denied waited=true`,
		`after publish_post ctx=publish_post code="permission_denied" session=true revert=false unknown=false`,
		`after search_docs ctx=search_docs code="permission_denied" session=true revert=false unknown=false`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("the hook was told (-want +got):\n%s", diff)
	}
}

// A host that answers a tool itself, rather than registering it, answers
// through the session, so that the registry's hook and observers see the
// call, and the calls the answer makes nest under it.
func ExampleSession_Answer() {
	reg := runtime.New(runtime.WithObserver(func(ev runtime.CallEvent) {
		fmt.Printf("%s session=%v code=%q\n", ev.Tool, ev.Session, ev.Code)
	}))
	reg.MustRegister(runtime.Tool{
		Meta:    runtime.Meta{Name: "get_time", Description: "Tells the time.", ArgsSchema: []byte(`{"type":"object"}`)},
		Execute: func(context.Context, any) (any, error) { return "10:00", nil },
	})
	s := reg.Session("conv-1")
	ask := &runtime.Meta{Name: "ask_user", Description: "Asks the user a question."} // made once
	res := s.Answer(context.Background(), ask, []byte(`{}`), runtime.CallOptions{}, func(ctx context.Context) runtime.Result {
		t := s.Call(ctx, "get_time", []byte(`{}`), runtime.CallOptions{})
		return runtime.Result{Success: true, Data: "asked at " + t.Data.(string), Tool: "ask_user"}
	})
	fmt.Println(res.Data)
	// Output:
	// get_time session=false code=""
	// ask_user session=true code=""
	// asked at 10:00
}
