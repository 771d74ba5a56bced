package main

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/runtime/telemetry/otlpenv/otlptest"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOTLPExport: with OTEL_EXPORTER_OTLP_ENDPOINT set, the requests and
// tool calls an MCP client makes reach an OTLP/HTTP receiver as spans and
// in the duration histograms, by the time the server has stopped.
func TestOTLPExport(t *testing.T) {
	rc := otlptest.NewReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rc.URL)

	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--http", "127.0.0.1:0"}, pw)
		pw.Close()
	}()
	lines := bufio.NewScanner(pr)
	var url string
	for lines.Scan() {
		if _, u, ok := strings.Cut(lines.Text(), "MCP at "); ok {
			url = u
			break
		}
	}
	go io.Copy(io.Discard, pr)
	if url == "" {
		cancel()
		t.Fatal("articles-serve printed no address")
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "otlp-test", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true}, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_articles_by_keyword", Arguments: map[string]any{"query": "pgvector"}})
	if err != nil || res.IsError {
		t.Errorf("call: %v %v", err, res)
	}
	cs.Close()
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("articles-serve exited %d", code)
	}
	if names := rc.SpanNames(t); names["execute_tool search_articles_by_keyword"] != 1 || names["tools/call search_articles_by_keyword"] != 1 {
		t.Fatalf("spans received: %v", names)
	}
	if calls := rc.HistogramCounts(t, "toolcat.tool.call.duration", "gen_ai.tool.name"); calls["search_articles_by_keyword"] != 1 {
		t.Errorf("tool calls in the metrics received: %v", calls)
	}
	if ops := rc.HistogramCounts(t, "mcp.server.operation.duration", "mcp.method.name"); ops["tools/call"] != 1 {
		t.Errorf("MCP operations in the metrics received: %v", ops)
	}
}
