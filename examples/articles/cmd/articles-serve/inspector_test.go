package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// inspectorVersion is the @modelcontextprotocol/inspector-cli the tests run.
const inspectorVersion = "1.0.3"

// inspector returns the inspector CLI's entry point, installing the npm
// package under the cache directory (TOOLCAT_NPM_DIR, else toolcat/npm in
// the user's cache directory) when it is missing. Without npm the test fails: make deps
// installs it.
func inspector(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("TOOLCAT_NPM_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Fatalf("no cache directory for npm packages (set TOOLCAT_NPM_DIR): %v", err)
		}
		dir = filepath.Join(cache, "toolcat", "npm")
	}
	// A folder of its own per package and version: tests of other
	// packages install theirs at the same time.
	dir = filepath.Join(dir, "inspector-cli@"+inspectorVersion)
	pkg := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "inspector-cli")
	entry := filepath.Join(pkg, "build", "index.js")
	if b, err := os.ReadFile(filepath.Join(pkg, "package.json")); err == nil && strings.Contains(string(b), `"version": "`+inspectorVersion+`"`) {
		return entry
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatalf("npm is not on PATH: the inspector tests need Node.js and npm (make deps installs them)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node is not on PATH: the inspector tests need Node.js (make deps installs it)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, npm, "install", "--prefix", dir, "--no-audit", "--no-fund",
		"@modelcontextprotocol/inspector-cli@"+inspectorVersion).CombinedOutput()
	if err != nil {
		t.Fatalf("npm install @modelcontextprotocol/inspector-cli@%s: %v\n%s", inspectorVersion, err, out)
	}
	return entry
}

// inspect runs the inspector CLI with args and decodes what it prints.
func inspect(t *testing.T, entry string, args ...string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append([]string{entry}, args...)...)
	// The CLI finds its package.json relative to the working directory.
	cmd.Dir = filepath.Dir(entry)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("inspector %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("inspector %s printed no JSON object: %v\n%s", strings.Join(args, " "), err, out)
	}
	return v
}

// build compiles the command for the inspector to start.
func build(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "articles-serve")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// checkTarget lists and calls the articles tools through the inspector,
// target being the command line of a stdio server or the URL of an HTTP one.
func checkTarget(t *testing.T, entry string, target ...string) {
	list := inspect(t, entry, append(target, "--method", "tools/list")...)
	var got []string
	for _, tool := range list["tools"].([]any) {
		got = append(got, tool.(map[string]any)["name"].(string))
	}
	want := []string{"fetch_web_page", "get_article_by_id", "publish_article", "search_articles_by_keyword",
		"search_tools_by_keywords", "search_tools_by_regex", "undo_last_actions"}
	if !slices.Equal(got, want) {
		t.Errorf("tools/list = %v, want %v", got, want)
	}

	res := inspect(t, entry, append(target, "--method", "tools/call", "--tool-name", "get_article_by_id", "--tool-arg", "article_id=42")...)
	if res["isError"] == true {
		t.Fatalf("get_article_by_id: %v", res)
	}
	sc, _ := res["structuredContent"].(map[string]any)
	if sc["title"] != "pgvector in production" {
		t.Errorf("structuredContent = %v", res["structuredContent"])
	}

	res = inspect(t, entry, append(target, "--method", "tools/call", "--tool-name", "get_article_by_id", "--tool-arg", "article_id=9999")...)
	content, _ := res["content"].([]any)
	if res["isError"] != true || len(content) != 1 || !strings.Contains(content[0].(map[string]any)["text"].(string), `"code":"not_found"`) {
		t.Errorf("a missing article: %v", res)
	}
}

// TestInspectorStdio: the MCP inspector starts the server and talks to it
// over stdio.
func TestInspectorStdio(t *testing.T) {
	entry := inspector(t)
	checkTarget(t, entry, build(t), "--stdio")
}

// TestInspectorHTTP: the MCP inspector talks to the server over
// streamable HTTP.
func TestInspectorHTTP(t *testing.T) {
	entry := inspector(t)
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--http", "127.0.0.1:0"}, pw)
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("articles-serve exited %d", code)
		}
	})
	lines := bufio.NewScanner(pr)
	var url string
	for lines.Scan() {
		if _, u, ok := strings.Cut(lines.Text(), "MCP at "); ok {
			url = u
			break
		}
	}
	if url == "" {
		t.Fatal("articles-serve printed no address")
	}
	go io.Copy(io.Discard, pr)
	checkTarget(t, entry, url)
}

func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		desc string
		args []string
		want string
	}{
		{"nothing", nil, "give one of --stdio and --http ADDR"},
		{"both", []string{"--stdio", "--http", "127.0.0.1:0"}, "give one of --stdio and --http ADDR"},
		{"admin without http", []string{"--stdio", "--admin", "127.0.0.1:0"}, "--admin needs --http"},
		{"bad autonomy", []string{"--stdio", "--autonomy", "yolo"}, `unknown autonomy "yolo"`},
		{"extra", []string{"--stdio", "serve"}, "unexpected arguments: serve"},
		{"bad address", []string{"--http", "256.0.0.1:x"}, "articles-serve:"},
	} {
		var stderr strings.Builder
		if code := run(context.Background(), tc.args, &stderr); code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", tc.desc, code, stderr.String(), tc.want)
		}
	}
}
