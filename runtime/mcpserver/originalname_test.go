package mcpserver_test

import (
	"context"
	"slices"
	"testing"

	"github.com/toolcat/toolcat/runtime"
)

// TestOriginalName checks that a tool with an OriginalName is listed and
// called by that name, in every mode.
func TestOriginalName(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		reg, _ := newRegistry(t)
		err := reg.Register(runtime.Tool{Meta: runtime.Meta{Name: "get_pong", OriginalName: "getPong", Description: "Answers pong.",
			ArgsSchema: schema(`{"type":"object","properties":{}}`)},
			Execute: func(context.Context, any) (any, error) { return map[string]any{"pong": true}, nil }})
		if err != nil {
			t.Fatal(err)
		}
		c, _ := start(t, reg, m, setup{})
		if ns := names(c.list()); !slices.Contains(ns, "getPong") || slices.Contains(ns, "get_pong") {
			t.Fatalf("tools/list names %v, want getPong and not get_pong", ns)
		}
		if res := c.mustCall("getPong", map[string]any{}); res.IsError {
			t.Errorf("getPong: %s", text(t, res))
		}
	})
}
