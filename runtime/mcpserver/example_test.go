package mcpserver_test

import (
	"context"
	"log"
	"net/http"

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
