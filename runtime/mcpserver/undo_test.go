package mcpserver_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/mcpserver"
)

var supervisedWithUndo = mcpserver.WithSessionOptions(func(string) []runtime.SessionOption {
	return []runtime.SessionOption{runtime.SessionAutonomy(runtime.AutonomySupervised), runtime.SessionUndoTool(true)}
})

// TestUndoByElicitation: a supervised agent's undo of a call that needed
// approval asks the user as the call did (elicitation, or the input_required
// round trip at 2026-07-28), with the calls it would revert; the approved
// undo reverts them, a declined one nothing.
func TestUndoByElicitation(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		for _, tc := range []struct {
			desc     string
			undo     *mcp.ElicitResult
			reverted int32
		}{
			{"approved", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, 1},
			{"declined", &mcp.ElicitResult{Action: "decline"}, 0},
		} {
			t.Run(tc.desc, func(t *testing.T) {
				reg, _ := newRegistry(t)
				l := addLedger(t, reg, runtime.RiskMedium)
				var mu sync.Mutex
				var asked []string
				c, _ := start(t, reg, m, setup{serverOpts: []mcpserver.Option{supervisedWithUndo},
					elicit: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
						mu.Lock()
						defer mu.Unlock()
						asked = append(asked, r.Params.Message)
						if strings.Contains(r.Params.Message, runtime.UndoLastActions) {
							return tc.undo, nil
						}
						return &mcp.ElicitResult{Action: "accept"}, nil
					}})
				if res := c.mustCall("add_entry", map[string]any{"amount": 5}); res.IsError || l.runs.Load() != 1 {
					t.Fatalf("the approved call: %s", text(t, res))
				}
				res := c.mustCall(runtime.UndoLastActions, map[string]any{})
				if got := text(t, res); res.IsError == (tc.reverted == 1) || l.reverted.Load() != tc.reverted {
					t.Errorf("undo: isError %v %s; reverted %d, want %d", res.IsError, got, l.reverted.Load(), tc.reverted)
				}
				mu.Lock()
				defer mu.Unlock()
				if len(asked) != 2 || !strings.Contains(asked[1], runtime.UndoLastActions) || !strings.Contains(asked[1], "would revert add_entry") {
					t.Errorf("elicitations = %q, want the call's then the undo's, naming add_entry", asked)
				}
			})
		}
	})
}

// TestFailedDryRunAnswersAtOnce: a call held for approval whose dry run
// fails with invalid_args is answered with that failure, and the user is
// not asked.
func TestFailedDryRunAnswersAtOnce(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		reg, _ := newRegistry(t)
		l := addLedger(t, reg, runtime.RiskMedium)
		asked := 0
		c, _ := start(t, reg, m, setup{serverOpts: []mcpserver.Option{supervised},
			elicit: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked++
				return &mcp.ElicitResult{Action: "accept"}, nil
			}})
		res := c.mustCall("add_entry", map[string]any{"amount": 0})
		if got := text(t, res); !res.IsError || !strings.Contains(got, `"code":"invalid_args"`) || !strings.Contains(got, "changes nothing") {
			t.Errorf("a call whose dry run refuses its arguments: %s", got)
		}
		if asked != 0 || l.runs.Load() != 0 {
			t.Errorf("asked %d times, ran %d times; want neither", asked, l.runs.Load())
		}
	})
}
