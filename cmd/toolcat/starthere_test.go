package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolcat/toolcat/internal/gomodtest"
)

// TestStartHere follows docs/start-here.md as a newcomer would: in an
// empty folder, with this checkout as the page's ../toolcat, it
// runs every sh block of the page in order (but those marked notest,
// which need the published module) and writes every Go block that names
// its file, then checks what the MCP inspector printed of the served
// tool. It needs the network for go mod tidy and npx, as a newcomer does.
func TestStartHere(t *testing.T) {
	t.Parallel() // child processes build Go packages: such tests run side by side
	if testing.Short() {
		t.Skip("builds a module and runs the MCP inspector from npm")
	}
	if _, err := exec.LookPath("npx"); err != nil {
		t.Fatal("npx is not on PATH: docs/start-here.md calls the server with the MCP inspector (make deps installs Node.js and npm)")
	}
	root, err := gomodtest.Root()
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(root, "docs", "start-here.md"))
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOFLAGS=") { // the page's commands as they are
			env = append(env, kv)
		}
	}
	cwd := base
	var outputs []string
	blocks := fencedBlocks(string(page))
	if len(blocks) < 8 {
		t.Fatalf("docs/start-here.md has %d code blocks; the test expects the page's steps", len(blocks))
	}
	for _, b := range blocks {
		switch {
		case b.info == "sh":
			// The checkout beside the module is this one, named by its
			// own path: the build cache then serves the packages this
			// test run has built, which a path through another folder
			// (a link named ../toolcat) would build again.
			b.text = strings.ReplaceAll(b.text, "=../toolcat", "="+root)
			out := runStep(t, env, &cwd, b)
			outputs = append(outputs, out)
		case strings.HasPrefix(b.info, "sh ") && strings.Contains(b.info, "notest"):
		case b.info == "go":
			first, _, _ := strings.Cut(b.text, "\n")
			name, ok := strings.CutPrefix(first, "// File: ")
			if !ok {
				continue // an excerpt, not a file
			}
			path := filepath.Join(cwd, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(b.text), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("wrote %s (line %d)", name, b.line)
		}
	}
	all := strings.Join(outputs, "\n")
	for _, want := range []string{`"name": "get_current_time"`, `"readOnlyHint": true`, `"structuredContent"`, `"time": "`} {
		if !strings.Contains(all, want) {
			t.Errorf("the page's commands printed no %s:\n%s", want, all)
		}
	}
	if strings.Contains(all, `"isError": true`) {
		t.Errorf("the tool call failed:\n%s", all)
	}
}

// A fencedBlock is one fenced code block of a Markdown page.
type fencedBlock struct {
	info, text string
	line       int
}

// fencedBlocks returns the ``` blocks of page, in order.
func fencedBlocks(page string) []fencedBlock {
	var blocks []fencedBlock
	var cur *fencedBlock
	var text strings.Builder
	sc := bufio.NewScanner(strings.NewReader(page))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &fencedBlock{info: strings.TrimSpace(strings.TrimPrefix(line, "```")), line: n}
			text.Reset()
		case cur != nil && strings.TrimSpace(line) == "```":
			cur.text = text.String()
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			text.WriteString(line + "\n")
		}
	}
	return blocks
}

// runStep runs the lines of an sh block in *cwd with sh -e, and moves
// *cwd where the block ends (a block may cd).
func runStep(t *testing.T, env []string, cwd *string, b fencedBlock) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	where := filepath.Join(t.TempDir(), "pwd")
	script := b.text + "pwd > '" + where + "'\n"
	cmd := exec.CommandContext(ctx, "sh", "-e", "-c", script)
	cmd.Dir = *cwd
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("docs/start-here.md:%d: %v\n%s\n%s", b.line, err, b.text, out.String())
	}
	t.Logf("docs/start-here.md:%d: ran in %v:\n%s", b.line, time.Since(start).Round(time.Millisecond), b.text)
	if d, err := os.ReadFile(where); err == nil {
		*cwd = strings.TrimSpace(string(d))
	}
	return out.String()
}
