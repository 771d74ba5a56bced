package mcpserver_test

import (
	"context"
	"fmt"
	"log"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/mcpserver"
)

// A registry served over streamable HTTP at /mcp, each session supervised
// and offered undo_last_actions.
func ExampleServer_Handler() {
	reg := runtime.New() // a generated NewRegistry(...) in a real host
	srv := mcpserver.New(reg,
		mcpserver.WithImplementation("notes", "1.0.0"),
		mcpserver.WithSessionOptions(func(string) []runtime.SessionOption {
			return []runtime.SessionOption{runtime.SessionAutonomy(runtime.AutonomySupervised), runtime.SessionUndoTool(true)}
		}),
	)
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.Handler())
	log.Fatal(http.ListenAndServe("127.0.0.1:8080", mux))
}

// A registry served to the one client that started the process, on its
// standard input and output.
func ExampleServer_RunStdio() {
	reg := runtime.New()
	if err := mcpserver.New(reg).RunStdio(context.Background()); err != nil {
		log.Fatal(err)
	}
}

// A tool that reports its progress; over MCP each report is a
// notifications/progress message when the client asked for progress.
func ExampleServer_progress() {
	count := func(ctx context.Context, _ any) (any, error) {
		for i := 1; i <= 3; i++ {
			runtime.ReportProgress(ctx, float64(i), 3, "counting")
		}
		return map[string]int{"counted": 3}, nil
	}
	_ = runtime.Tool{Meta: runtime.Meta{Name: "count_to_three", Description: "Counts to three."}, Execute: count}
}

// A resource and a prompt beside the catalog's tools, passed through to
// go-sdk as they are.
func ExampleServer_AddResource() {
	srv := mcpserver.New(runtime.New())
	srv.AddResource(&mcp.Resource{Name: "style-guide", URI: "file:///docs/style.md", MIMEType: "text/markdown"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: "# Style"}}}, nil
		})
	srv.AddPrompt(&mcp.Prompt{Name: "review_draft", Arguments: []*mcp.PromptArgument{{Name: "title", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user",
				Content: &mcp.TextContent{Text: "Review the draft " + req.Params.Arguments["title"] + " against the style guide."}}}}, nil
		})
}

// A server behind go-sdk's bearer-token middleware: each user's stateless
// requests are their own conversation (their idempotency keys, discovered
// tools and undo journal), found from the token's UserID.
func ExampleConversationID() {
	verify := func(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		return nil, auth.ErrInvalidToken // a real verifier checks the token and sets UserID
	}
	srv := mcpserver.New(runtime.New())
	mux := http.NewServeMux()
	mux.Handle("/mcp", auth.RequireBearerToken(verify, nil)(srv.Handler()))
	// Alice's calls that wait for approval, as the host sees them:
	pending, _ := srv.Session(mcpserver.ConversationID("alice", "")).Pending(context.Background())
	fmt.Println(len(pending))
	// Output: 0
}
