package mcpserver_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcat/toolcat/runtime/mcpserver"
)

func readme(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: "# notes"}}}, nil
}

func summarize(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user",
		Content: &mcp.TextContent{Text: "Summarize the notes on " + req.Params.Arguments["topic"]}}}}, nil
}

// TestPromptsAndResources: prompts, resources, templates and completions
// a host adds beside the tools are served in every mode, to the sessions
// that started before they were added too.
func TestPromptsAndResources(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		reg, _ := newRegistry(t)
		completed := make(chan string, 1)
		c, srv := start(t, reg, m, setup{serverOpts: []mcpserver.Option{
			mcpserver.WithCompletionHandler(func(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
				completed <- req.Params.Argument.Value
				return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{"milk"}}}, nil
			})}})
		ctx := context.Background()
		srv.AddResource(&mcp.Resource{Name: "readme", URI: "file:///notes/readme.md", MIMEType: "text/markdown"}, readme)
		srv.AddResourceTemplate(&mcp.ResourceTemplate{Name: "note", URITemplate: "notes://{id}"}, readme)
		srv.AddPrompt(&mcp.Prompt{Name: "summarize_notes", Arguments: []*mcp.PromptArgument{{Name: "topic", Required: true}}}, summarize)

		rs, err := c.cs.ListResources(ctx, nil)
		if err != nil || len(rs.Resources) != 1 || rs.Resources[0].URI != "file:///notes/readme.md" {
			t.Fatalf("resources/list: %v %+v", err, rs)
		}
		rt, err := c.cs.ListResourceTemplates(ctx, nil)
		if err != nil || len(rt.ResourceTemplates) != 1 {
			t.Fatalf("resources/templates/list: %v %+v", err, rt)
		}
		for _, uri := range []string{"file:///notes/readme.md", "notes://7"} {
			rr, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != "# notes" || rr.Contents[0].URI != uri {
				t.Errorf("resources/read %s: %v %+v", uri, err, rr)
			}
		}
		if _, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///nothing"}); err == nil {
			t.Error("an unknown resource was read")
		}
		ps, err := c.cs.ListPrompts(ctx, nil)
		if err != nil || len(ps.Prompts) != 1 || ps.Prompts[0].Name != "summarize_notes" {
			t.Fatalf("prompts/list: %v %+v", err, ps)
		}
		gp, err := c.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize_notes", Arguments: map[string]string{"topic": "milk"}})
		if err != nil || !strings.Contains(gp.Messages[0].Content.(*mcp.TextContent).Text, "on milk") {
			t.Fatalf("prompts/get: %v %+v", err, gp)
		}
		cr, err := c.cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "summarize_notes"},
			Argument: mcp.CompleteParamsArgument{Name: "topic", Value: "mi"}})
		if err != nil || len(cr.Completion.Values) != 1 || <-completed != "mi" {
			t.Fatalf("completion/complete: %v %+v", err, cr)
		}
		srv.RemovePrompts("summarize_notes")
		if _, err := c.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize_notes", Arguments: map[string]string{"topic": "x"}}); err == nil {
			t.Error("a removed prompt answered")
		}
		// The tools are still the catalog's.
		if got := names(c.list()); len(got) == 0 || got[0] != "count_slowly" {
			t.Errorf("tools/list = %v", got)
		}
	})
}

// TestToolsOnly: a server with nothing beside its tools declares only
// tools and logging, and answers the methods of the rest -32601.
func TestToolsOnly(t *testing.T) {
	forEachMode(t, func(t *testing.T, m mode) {
		reg, _ := newRegistry(t)
		c, _ := start(t, reg, m, setup{})
		if caps := c.cs.InitializeResult().Capabilities; caps.Prompts != nil || caps.Resources != nil || caps.Completions != nil {
			t.Errorf("capabilities %+v, want tools and logging only", caps)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err := c.cs.ListPrompts(ctx, nil)
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != jsonrpc.CodeMethodNotFound {
			if !m.stateless() || err == nil || !strings.Contains(err.Error(), "404") {
				t.Errorf("prompts/list: %v, want method not found", err)
			}
		}
		if _, err := c.cs.ListResources(ctx, nil); err == nil {
			t.Error("resources/list answered")
		}
	})
}
