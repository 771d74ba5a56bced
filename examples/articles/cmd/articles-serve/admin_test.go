package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestAdminAPI: --admin serves the admin API beside the MCP endpoint, where
// a tool can be switched off, and the command refuses --admin without a
// token.
func TestAdminAPI(t *testing.T) {
	const token = "articles-admin-token-0123456789"
	t.Setenv(adminTokenEnv, token)
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--http", "127.0.0.1:0", "--admin", "127.0.0.1:0"}, pw)
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("articles-serve exited %d", code)
		}
	})
	lines := bufio.NewScanner(pr)
	var adminURL string
	for lines.Scan() {
		if _, u, ok := strings.Cut(lines.Text(), "admin API at "); ok {
			adminURL = strings.TrimSuffix(u, "/api/tools")
		}
		if strings.Contains(lines.Text(), "MCP at ") {
			break
		}
	}
	go io.Copy(io.Discard, pr)
	if adminURL == "" {
		t.Fatal("articles-serve printed no admin address")
	}
	send := func(method, path, body string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(method, adminURL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, out
	}
	code, list := send("GET", "/api/tools", "")
	tools, _ := list["tools"].([]any)
	if code != 200 || len(tools) == 0 {
		t.Fatalf("GET /api/tools: %d %v", code, list)
	}
	if code, st := send("PUT", "/api/tools/delete_article/state", `{"enabled": false, "reason": "deletions paused"}`); code != 200 || st["state"] != "disabled" {
		t.Fatalf("PUT: %d %v", code, st)
	}
	if code, _ := send("GET", "/api/metrics", ""); code != 200 {
		t.Errorf("GET /api/metrics: %d", code)
	}

	t.Setenv(adminTokenEnv, "")
	var stderr strings.Builder
	if code := run(context.Background(), []string{"--http", "127.0.0.1:0", "--admin", "127.0.0.1:0"}, &stderr); code != 2 ||
		!strings.Contains(stderr.String(), "--admin needs the token in "+adminTokenEnv) {
		t.Errorf("--admin without a token: exit %d, %q", code, stderr.String())
	}
}
