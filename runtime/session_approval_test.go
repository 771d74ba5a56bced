package runtime_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolcat/toolcat/runtime"
)

// TestSessionFailedPreviewAnswersAtOnce checks that a call held for
// approval whose dry run fails with a code the model can act on is
// answered with that failure at once, and that other failures of the dry
// run still leave the call to the user.
func TestSessionFailedPreviewAnswersAtOnce(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		desc string
		err  error
		held bool
	}{
		{"not found", runtime.NotFound("no account 42"), false},
		{"invalid arguments", runtime.InvalidArgs("the amount is above the account's limit").WithDetail("field", "/amount"), false},
		{"the preview's own outage", runtime.ExternalError("the bank's preview API is down"), true},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			reg := runtime.New()
			runs := 0
			reg.MustRegister(runtime.Tool{
				Meta: runtime.Meta{Name: "wire_money", Description: "Wires money.", Risk: runtime.RiskHigh, HasSideEffects: true,
					SupportsDryRun: true, ArgsSchema: json.RawMessage(`{"type":"object"}`)},
				Execute: func(context.Context, any) (any, error) { runs++; return map[string]bool{"sent": true}, nil },
				DryRun:  func(context.Context, any) (any, error) { return nil, tc.err },
			})
			s := reg.Session("conv-"+tc.desc, runtime.SessionAutonomy(runtime.AutonomySupervised))
			res := s.Call(ctx, "wire_money", []byte(`{}`), runtime.CallOptions{})
			pending, err := s.Pending(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if held := res.Pending != nil; held != tc.held || len(pending) != map[bool]int{true: 1}[tc.held] {
				t.Fatalf("held %v (%d pending), want %v: %s", held, len(pending), tc.held, res.JSON())
			}
			if !tc.held && (res.Success || res.Error.Code != tc.err.(*runtime.ToolError).Code) {
				t.Errorf("answer %s, want the dry run's %v", res.JSON(), tc.err)
			}
			if runs != 0 {
				t.Errorf("the tool ran %d times", runs)
			}
		})
	}
}
