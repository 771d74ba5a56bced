package runtime_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/runtime"
)

// TestHoldTool holds a tool before it is registered: it is never listed,
// its calls answer permission_denied without the held text, its status
// carries the hold for operators, and enabling it releases it.
func TestHoldTool(t *testing.T) {
	ctx := context.Background()
	r := runtime.New()
	h := runtime.ToolHold{Kind: runtime.HoldFlagged, Source: "mcp:notes", Findings: []string{`description[0:20]: directive: "Do not tell the user"`}, Hash: "abc"}
	if err := r.HoldTool(ctx, "notes_add", "its description is flagged as aimed at the model", h); err != nil {
		t.Fatal(err)
	}
	listed := 0
	r.OnToolsChanged(func() { listed += len(r.Visible(runtime.AutonomyFull)) })
	run := func(context.Context, any) (any, error) { return "ran", nil }
	mustRegister(t, r, runtime.Tool{Meta: runtime.Meta{Name: "notes_add", Description: "Adds a note.", ArgsSchema: json.RawMessage(`{"type":"object"}`)}, Execute: run})
	if listed != 0 || len(r.Visible(runtime.AutonomyFull)) != 0 {
		t.Fatalf("a held tool was listed")
	}
	res := r.Call(ctx, "notes_add", []byte(`{}`), runtime.CallOptions{})
	if res.Success || res.Error.Code != runtime.CodePermissionDenied || !strings.Contains(res.Error.Message, "held for an operator's review") || strings.Contains(res.Error.Message, "tell the user") {
		t.Fatalf("call of a held tool: %+v", res.Error)
	}
	st, _ := r.ToolStatus("notes_add")
	if st.State != runtime.ToolDisabled || st.Hold == nil || st.Hold.Kind != runtime.HoldFlagged || len(st.Hold.Findings) != 1 {
		t.Fatalf("status %+v", st)
	}
	if err := r.EnableTool(ctx, "notes_add"); err != nil {
		t.Fatal(err)
	}
	if st, _ := r.ToolStatus("notes_add"); st.State != runtime.ToolEnabled || st.Hold != nil {
		t.Fatalf("after EnableTool: %+v", st)
	}
	if res := r.Call(ctx, "notes_add", []byte(`{}`), runtime.CallOptions{}); !res.Success {
		t.Fatalf("call after EnableTool: %+v", res.Error)
	}
	if err := r.HoldTool(ctx, "notes_add", "", h); err == nil {
		t.Errorf("a hold without a reason was accepted")
	}
}

// TestReplaceTool replaces a registered tool's metadata: the new
// description is listed, the state is kept, an unknown tool is refused.
func TestReplaceTool(t *testing.T) {
	ctx := context.Background()
	r := runtime.New()
	run := func(context.Context, any) (any, error) { return "ran", nil }
	obj := json.RawMessage(`{"type":"object"}`)
	mustRegister(t, r, runtime.Tool{Meta: runtime.Meta{Name: "notes_add", Description: "Adds a note.", ArgsSchema: obj}, Execute: run})
	if err := r.DisableTool(ctx, "notes_add", "maintenance"); err != nil {
		t.Fatal(err)
	}
	changed := 0
	r.OnToolsChanged(func() { changed++ })
	if err := r.ReplaceTool(runtime.Tool{Meta: runtime.Meta{Name: "notes_add", Description: "Adds a note to a notebook.", ArgsSchema: obj}, Execute: run}); err != nil {
		t.Fatal(err)
	}
	if got, _ := r.Get("notes_add"); got.Meta.Description != "Adds a note to a notebook." || changed != 1 {
		t.Errorf("after ReplaceTool: %q, %d changes", got.Meta.Description, changed)
	}
	if st, _ := r.ToolStatus("notes_add"); st.State != runtime.ToolDisabled {
		t.Errorf("the state was lost: %+v", st)
	}
	if err := r.ReplaceTool(runtime.Tool{Meta: runtime.Meta{Name: "notes_other", Description: "x", ArgsSchema: obj}, Execute: run}); err == nil {
		t.Errorf("replacing an unknown tool worked")
	}
	if names := r.Names(); len(names) != 1 {
		t.Errorf("names %v", names)
	}
}
