package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcat/toolcat/runtime/mcpserver/oauth/oauthtest"
)

// TestAuthorization: with --auth-issuer, the endpoint takes the issuer's
// tokens for its own address, lists the tools of the token's scopes (the
// capability_required of each, with --auth-scope-prefix, or what
// --auth-tool-scope says) and serves its metadata.
func TestAuthorization(t *testing.T) {
	op := oauthtest.Start(t, nil, oauthtest.Client{ID: "reader", Secret: "reader-secret",
		Scopes: []string{"articles/db:read:articles", "articles/undo"}})
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var rest strings.Builder
	copied := make(chan struct{})
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--http", "127.0.0.1:0", "--auth-issuer", op.URL, "--auth-scope-prefix", "articles/",
			"--auth-tool-scope", "undo_last_actions=articles/undo", "--auth-tool-scope", "fetch_web_page="}, pw)
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		code := <-done
		<-copied
		if code != 0 {
			t.Errorf("articles-serve exited %d: %s", code, rest.String())
		}
	})
	lines := bufio.NewScanner(pr)
	var endpoint string
	for lines.Scan() {
		if _, u, ok := strings.Cut(lines.Text(), "MCP at "); ok {
			endpoint = u
			break
		}
	}
	go func() {
		io.Copy(&rest, pr)
		close(copied)
	}()
	if endpoint == "" {
		t.Fatal("articles-serve printed no MCP address")
	}

	resp, err := http.Get(strings.Replace(endpoint, "/mcp", "/.well-known/oauth-protected-resource/mcp", 1))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Resource string   `json:"resource"`
		Servers  []string `json:"authorization_servers"`
		Scopes   []string `json:"scopes_supported"`
	}
	json.NewDecoder(resp.Body).Decode(&meta)
	resp.Body.Close()
	if want := []string{"articles/cms:delete:articles", "articles/cms:publish:articles", "articles/db:read:articles", "articles/undo"}; meta.Resource != endpoint ||
		!slices.Equal(meta.Servers, []string{op.URL}) || !slices.Equal(meta.Scopes, want) {
		t.Errorf("metadata %+v, want resource %s, server %s, scopes %v", meta, endpoint, op.URL, want)
	}
	resp, err = http.Post(endpoint, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: %v, want 401", resp.Status)
	}

	tok, err := op.ClientCredentials(ctx, "reader", "reader-secret", endpoint, "articles/db:read:articles", "articles/undo")
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: endpoint, DisableStandaloneSSE: true, HTTPClient: &http.Client{Transport: bearer(tok)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tool := range res.Tools {
		got = append(got, tool.Name)
	}
	if want := []string{"fetch_web_page", "get_article_by_id", "search_articles_by_keyword", "search_tools_by_keywords", "search_tools_by_regex", "undo_last_actions"}; !slices.Equal(got, want) {
		t.Errorf("the reader lists %v, want %v", got, want)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "publish_article", Arguments: map[string]any{"id": 42}}); err == nil || !strings.Contains(err.Error(), "Forbidden") {
		t.Errorf("publish_article without its scope: %v, want 403", err)
	}
}

type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// TestAuthorizationFlags: the --auth-... flags are refused without
// --auth-issuer, and --auth-issuer without --http.
func TestAuthorizationFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--http", "127.0.0.1:0", "--auth-scope-prefix", "x/"},
		{"--stdio", "--auth-issuer", "https://auth.example.com"},
		{"--http", "127.0.0.1:0", "--auth-issuer", "https://auth.example.com", "--auth-tool-scope", "=x"},
	} {
		if _, err := parse(args, io.Discard); err == nil {
			t.Errorf("%v: accepted", args)
		}
	}
}
