// Command mcp-conformance serves the fixture tools of the MCP conformance
// suite (package fixtures, compiled by toolcat from fixtures/catalog)
// over MCP, so that the suite can be pointed at it:
//
//	go run ./examples/mcp-conformance serve --http 127.0.0.1:3001
//	npx @modelcontextprotocol/conformance server --url http://127.0.0.1:3001/mcp
//
// With --http, it prints the endpoint's URL on its first line of output
// once it listens (a port of 0 picks a free one). With --stdio, it serves
// one session on its standard input and output.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcat/toolcat/examples/mcp-conformance/fixtures"
	"github.com/toolcat/toolcat/internal/httpserve"
	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/mcpserver"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `usage: mcp-conformance serve (--http ADDR | --stdio) [--verbose]

Serves the MCP conformance suite's fixture tools. --http ADDR serves
streamable HTTP at http://ADDR/mcp (2025-11-25 in sessions, 2026-07-28
stateless) and prints that URL once it listens; --stdio serves one
session on standard input and output.
`

// run is the command: it returns the exit code (0 served and stopped, 1
// the server failed, 2 usage).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "serve" {
		fmt.Fprint(stderr, usage)
		return 2
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	addr := fs.String("http", "", "serve streamable HTTP on `ADDR` (host:port), at /mcp")
	stdio := fs.Bool("stdio", false, "serve one session on standard input and output")
	verbose := fs.Bool("verbose", false, "log every warning of the server and the registry")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if fs.NArg() > 0 || (*addr == "") == !*stdio {
		fmt.Fprint(stderr, "mcp-conformance: give one of --http ADDR and --stdio\n\n"+usage)
		return 2
	}
	level := slog.LevelError
	if *verbose {
		level = slog.LevelWarn
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	srv, err := newServer(logger)
	if err != nil {
		fmt.Fprintln(stderr, "mcp-conformance:", err)
		return 1
	}
	go watch(ctx, srv)
	if *stdio {
		err = srv.RunStdio(ctx)
	} else {
		err = serveHTTP(ctx, srv, *addr, stdout, logger)
	}
	if err != nil {
		fmt.Fprintln(stderr, "mcp-conformance:", err)
		return 1
	}
	return 0
}

// newServer returns the MCP server of the fixture tools, with the
// suite's fixture prompts, resources and completions beside them.
func newServer(logger *slog.Logger) (*mcpserver.Server, error) {
	var srv *mcpserver.Server
	reg, err := fixtures.New(fixtures.Hooks{
		ToolsChanged:   func() { srv.ToolsChanged() },
		PromptsChanged: func() { fixtures.TriggerPrompt(srv) },
	}, runtime.WithLogger(logger))
	if err != nil {
		return nil, err
	}
	srv = mcpserver.New(reg,
		mcpserver.WithImplementation("toolcat-mcp-conformance", "1.0.0"),
		mcpserver.WithInstructions("The fixture tools of the MCP conformance suite, compiled from a toolcat catalog."),
		mcpserver.WithLogger(logger),
		mcpserver.WithCompletionHandler(fixtures.Complete),
		mcpserver.WithResourceSubscriptions(nil, nil))
	fixtures.AddFeatures(srv)
	return srv, nil
}

// watch tells the subscribers of the watched fixture resource that it
// changed, every few seconds until ctx ends.
func watch(ctx context.Context, srv *mcpserver.Server) {
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: fixtures.WatchedResourceURI})
		}
	}
}

// serveHTTP serves srv at http://addr/mcp until ctx ends.
func serveHTTP(ctx context.Context, srv *mcpserver.Server, addr string, stdout io.Writer, logger *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.Handler())
	hs := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	fmt.Fprintf(stdout, "http://%s/mcp\n", ln.Addr())
	return httpserve.Serve(ctx, hs, ln, 5*time.Second)
}
