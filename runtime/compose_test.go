package runtime_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/internal/sessionflow"
)

// TestCompositionWithoutSession checks that composites work through
// Registry.Call too: declared dependencies run, undeclared ones are
// refused, and untrusted content wraps the outer result.
func TestCompositionWithoutSession(t *testing.T) {
	ctx := context.Background()
	w := sessionflow.NewWorld()
	reg := w.Replicas(t, 1, runtime.NewMemorySessionStore())[0]
	res := reg.Call(ctx, "digest_and_post", []byte(`{}`), runtime.CallOptions{IdempotencyKey: "k1"})
	if !res.Success || res.Untrusted == nil || res.Untrusted.Source != "web" {
		t.Fatalf("composite through the registry: %s", res.JSON())
	}
	if p := w.Posts(); len(p) != 1 || p["p1"] != "Digest" {
		t.Fatalf("posts: %v", p)
	}
	again := reg.Call(ctx, "digest_and_post", []byte(`{}`), runtime.CallOptions{IdempotencyKey: "k1"})
	if !again.Replayed || again.Untrusted == nil || len(w.Posts()) != 1 {
		t.Fatalf("replay of the composite: %s, posts %v", again.JSON(), w.Posts())
	}
	res = reg.Call(ctx, "rogue_digest", []byte(`{}`), runtime.CallOptions{})
	if res.Success || res.Error.Code != runtime.CodePermissionDenied || !strings.Contains(res.Error.Message, "not among its dependencies") {
		t.Fatalf("a composite calling an undeclared tool: %s", res.JSON())
	}
	// A tool without tool dependencies gets no frame to call through.
	res = reg.Call(ctx, "sneaky_lookup", []byte(`{}`), runtime.CallOptions{})
	if res.Success || res.Error.Code != runtime.CodeInternal || !strings.Contains(res.Error.Message, "outside the body of a tool that depends on it") {
		t.Fatalf("a tool without dependencies calling another: %s", res.JSON())
	}
	// A plain call of a tool with no tool dependencies has no frame.
	if res := reg.Call(ctx, "search_docs", []byte(`{}`), runtime.CallOptions{}); !res.Success {
		t.Fatal(res.JSON())
	}
}

// TestCompositionBudget checks that a dependency runs within the outer
// tool's deadline: the outer SLA is the budget.
func TestCompositionBudget(t *testing.T) {
	ctx := context.Background()
	reg := runtime.New()
	var childDeadline time.Time
	reg.MustRegister(runtime.Tool{Meta: runtime.Meta{Name: "slow_child", Description: "Waits.",
		ArgsSchema: json.RawMessage(`{"type":"object"}`)},
		Execute: func(ctx context.Context, _ any) (any, error) {
			childDeadline, _ = ctx.Deadline()
			<-ctx.Done()
			return nil, ctx.Err()
		}})
	reg.MustRegister(runtime.Tool{Meta: runtime.Meta{Name: "outer", Description: "Calls slow_child.", SLA: 50 * time.Millisecond,
		Dependencies: []string{"slow_child"}, ArgsSchema: json.RawMessage(`{"type":"object"}`)},
		Execute: func(ctx context.Context, _ any) (any, error) {
			res := runtime.CallTool(ctx, "slow_child", []byte(`{}`))
			if !res.Success {
				return nil, res.Error
			}
			return res.Data, nil
		}})
	start := time.Now()
	res := reg.Session("conv-budget").Call(ctx, "outer", []byte(`{}`), runtime.CallOptions{})
	if res.Success || res.Error.Code != runtime.CodeTimeout {
		t.Fatalf("outer call past its SLA: %s", res.JSON())
	}
	if childDeadline.IsZero() || childDeadline.Sub(start) > 5*time.Second { // its own: none; inherited: the outer 50ms
		t.Fatalf("the child's deadline is %v after the start; want the outer 50ms budget", childDeadline.Sub(start))
	}
}

// TestCompositionDryRun checks that a composite's dry run through the
// registry runs its dependencies dry: nothing acts.
func TestCompositionDryRun(t *testing.T) {
	w := sessionflow.NewWorld()
	reg := w.Replicas(t, 1, runtime.NewMemorySessionStore())[0]
	res := reg.Call(context.Background(), "notify_all", []byte(`{}`), runtime.CallOptions{DryRun: true})
	if !res.Success || !strings.Contains(res.Data.(*runtime.Preview).Summary, "send_email: unsupported") {
		t.Fatalf("dry run of a composite: %s", res.JSON())
	}
}
