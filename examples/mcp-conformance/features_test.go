package main

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeFeatures reads the fixture resources and prompts, and
// completes an argument, over streamable HTTP at both revisions, with
// go-sdk's client.
func TestServeFeatures(t *testing.T) {
	url := serve(t)
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			ctx := context.Background()
			cs := new(client).connect(t, url, version)
			caps := cs.InitializeResult().Capabilities
			if caps.Prompts == nil || caps.Resources == nil || caps.Completions == nil {
				t.Fatalf("capabilities %+v: want prompts, resources and completions", caps)
			}
			rs, err := cs.ListResources(ctx, nil)
			if err != nil || len(rs.Resources) != 3 {
				t.Fatalf("resources/list: %v %+v", err, rs)
			}
			rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://template/42/data"})
			if err != nil || !strings.Contains(rr.Contents[0].Text, `"id":"42"`) {
				t.Fatalf("the template: %v %+v", err, rr)
			}
			rr, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://static-binary"})
			if err != nil || len(rr.Contents[0].Blob) == 0 {
				t.Fatalf("the binary resource: %v %+v", err, rr)
			}
			ps, err := cs.ListPrompts(ctx, nil)
			var pn []string
			for _, p := range ps.Prompts {
				pn = append(pn, p.Name)
			}
			if err != nil || !slices.Contains(pn, "test_prompt_with_arguments") || len(pn) < 5 {
				t.Fatalf("prompts/list: %v %v", err, pn)
			}
			gp, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_prompt_with_arguments", Arguments: map[string]string{"arg1": "a", "arg2": "b"}})
			if err != nil || !strings.Contains(gp.Messages[0].Content.(*mcp.TextContent).Text, "arg1='a', arg2='b'") {
				t.Fatalf("prompts/get: %v %+v", err, gp)
			}
			cr, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "test_prompt_with_arguments"},
				Argument: mcp.CompleteParamsArgument{Name: "arg1", Value: "testV"}})
			if err != nil || !slices.Equal(cr.Completion.Values, []string{"testValue1", "testValue2"}) {
				t.Fatalf("completion/complete: %v %+v", err, cr)
			}
			if res := call(t, cs, "test_trigger_prompt_change", map[string]any{}); res.IsError {
				t.Fatalf("test_trigger_prompt_change: %+v", res)
			}
			if ps, err = cs.ListPrompts(ctx, nil); err != nil || !slices.ContainsFunc(ps.Prompts, func(p *mcp.Prompt) bool { return p.Name == "transient_prompt" }) {
				t.Fatalf("prompts/list after the trigger: %v", err)
			}
		})
	}
}
