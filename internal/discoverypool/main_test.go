package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// With TOOLCAT_POOL_TEST_SERVER set, the test binary is an MCP server over
// stdio with two tools (or none, for "empty"), for listTools to list.
func TestMain(m *testing.M) {
	switch os.Getenv("TOOLCAT_POOL_TEST_SERVER") {
	case "":
		os.Exit(m.Run())
	case "exit":
		os.Stderr.WriteString("missing API key\n")
		os.Exit(1)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	if os.Getenv("TOOLCAT_POOL_TEST_SERVER") == "tools" {
		for _, name := range []string{"list_widgets", "create_widget"} {
			s.AddTool(&mcp.Tool{
				Name:        name,
				Description: "Does " + name + ".",
				InputSchema: map[string]any{"type": "object", "properties": map[string]any{"size": map[string]any{"type": "integer"}}},
			}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
		}
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

func serverCmd(ctx context.Context, mode string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "TOOLCAT_POOL_TEST_SERVER="+mode)
	return cmd
}

func TestListTools(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tools, err := listTools(ctx, serverCmd(ctx, "tools"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 2 || tools[0].Name != "create_widget" && tools[0].Name != "list_widgets" {
		t.Fatalf("tools %+v", tools)
	}
	for _, tl := range tools {
		var schema struct {
			Type       string         `json:"type"`
			Properties map[string]any `json:"properties"`
		}
		if err := json.Unmarshal(tl.InputSchema, &schema); err != nil || schema.Type != "object" || schema.Properties["size"] == nil {
			t.Errorf("%s: schema %s (%v)", tl.Name, tl.InputSchema, err)
		}
		if tl.Description != "Does "+tl.Name+"." {
			t.Errorf("%s: description %q", tl.Name, tl.Description)
		}
	}
}

func TestListToolsFailures(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := listTools(ctx, serverCmd(ctx, "empty")); err == nil || !strings.Contains(err.Error(), "no tools") {
		t.Errorf("a server without tools: %v", err)
	}
	if _, err := listTools(ctx, serverCmd(ctx, "exit")); err == nil || !strings.Contains(err.Error(), "missing API key") {
		t.Errorf("a server that exits: %v, want its last line of stderr", err)
	}
	short, cancel2 := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel2()
	if _, err := listTools(short, exec.CommandContext(short, "sleep", "10")); err == nil {
		t.Error("a server that never answers: no error")
	}
}

func TestCorpusSets(t *testing.T) {
	dir := t.TempDir()
	snaps := filepath.Join(dir, "github-mcp-server", "__toolsnaps__")
	refs := filepath.Join(dir, "mcp-reference-servers")
	for _, d := range []string{snaps, refs} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path, s string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(snaps, "get_me.snap"), `{"name":"get_me","description":"Who am I.","inputSchema":{"type":"object"}}`)
	write(filepath.Join(refs, "time.tools.json"), `{"commit":"0123456789abcdef","tools":[{"name":"get_current_time"},{"name":"convert_time"}]}`)
	sets, err := corpusSets(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, s := range sets {
		got[s.entry.Server] = len(s.tools)
	}
	if len(got) != 2 || got["github"] != 1 || got["time"] != 2 {
		t.Errorf("sets %v", got)
	}
	write(filepath.Join(refs, "bad.tools.json"), `{"tools": [`)
	if _, err := corpusSets(dir); err == nil || !strings.Contains(err.Error(), "bad.tools.json") {
		t.Errorf("a broken list: %v", err)
	}
	if _, err := corpusSets(t.TempDir()); err == nil {
		t.Error("an empty folder: no error")
	}
}

func TestBinPath(t *testing.T) {
	dir := t.TempDir()
	pkg := func(name, pj string) {
		root := filepath.Join(dir, "node_modules", filepath.FromSlash(name))
		if err := os.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "package.json"), []byte(pj), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pkg("one", `{"bin":"dist/index.js"}`)
	pkg("@s/many", `{"bin":{"many":"a.js","other":"b.js"}}`)
	pkg("two", `{"bin":{"x":"a.js","y":"b.js"}}`)
	for _, c := range []struct {
		s    server
		want string // suffix, or "" for an error
	}{
		{server{Package: "one"}, "one/dist/index.js"},
		{server{Package: "@s/many"}, "many/a.js"},
		{server{Package: "@s/many", Bin: "other"}, "many/b.js"},
		{server{Package: "two"}, ""},
		{server{Package: "absent"}, ""},
	} {
		got, err := binPath(dir, c.s)
		if c.want == "" {
			if err == nil {
				t.Errorf("%s: %s, want an error", c.s.Package, got)
			}
			continue
		}
		if err != nil || !strings.HasSuffix(filepath.ToSlash(got), c.want) {
			t.Errorf("%s: %s, %v; want …%s", c.s.Package, got, err, c.want)
		}
	}
}

func TestUsage(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(nil, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "usage") {
		t.Errorf("no -pool: exit %d, %q", code, errOut.String())
	}
}

func TestServersJSON(t *testing.T) {
	var servers []server
	if err := json.Unmarshal(serversJSON, &servers); err != nil {
		t.Fatal(err)
	}
	// The corpus's servers have these names.
	seen := map[string]bool{"github": true, "git": true, "time": true, "fetch": true, "memory": true,
		"filesystem": true, "everything": true, "sequentialthinking": true}
	for _, s := range servers {
		if s.Name == "" || s.Package == "" || s.Version == "" || strings.Contains(s.Name, "/") {
			t.Errorf("server %+v: name (without /), package and version needed", s)
		}
		if seen[s.Name] {
			t.Errorf("server name %s twice", s.Name)
		}
		seen[s.Name] = true
	}
}
