package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/catalog/importer"
	"github.com/toolcat/toolcat/gen"
	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/export"
	"github.com/toolcat/toolcat/runtime/mcpserver"
)

// importCLI runs toolcat import with args and returns the loaded catalog
// it wrote and its stderr.
func importCLI(t *testing.T, args ...string) (*catalog.Catalog, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "catalog", "tools.yaml")
	var stdout, stderr bytes.Buffer
	if code := Main(append([]string{"import", "--out", out}, args...), nil, &stdout, &stderr); code != 0 {
		t.Fatalf("toolcat import %v: exit %d\n%s", args, code, stderr.String())
	}
	cat, err := catalog.Load(filepath.Dir(out))
	if err != nil {
		data, _ := os.ReadFile(out)
		t.Fatalf("the imported catalog does not load: %v\n%s", err, data)
	}
	return cat, stderr.String()
}

// canonical is the JSON of a schema with the keys the exporters add or
// take away for the model's sake ($schema, $comment) left out.
func canonical(t *testing.T, raw []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	var strip func(any)
	strip = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			delete(v, "$schema")
			delete(v, "$comment")
			for _, c := range v {
				strip(c)
			}
		case []any:
			for _, c := range v {
				strip(c)
			}
		}
	}
	strip(v)
	return v
}

// TestImportRoundTrip exports the repository's catalogs (the example,
// the MCP conformance fixtures, basetools) as toolcat docs does for MCP,
// OpenAI (Chat and Responses), Anthropic and Gemini, imports each file
// and checks the catalog is equivalent: the same tools, wire names,
// descriptions and argument schemas (Gemini's: the names and
// descriptions); from MCP also the result schemas, side effects,
// idempotency and untrusted output the annotations carry. In each, one
// tool is given a camelCase wire name (getArticleById), which comes back
// as original_name.
func TestImportRoundTrip(t *testing.T) {
	for _, dir := range []string{"examples/articles/catalog", "examples/mcp-conformance/fixtures/catalog", "basetools/catalog", "examples/agent-host/tickets/catalog"} {
		t.Run(strings.ReplaceAll(strings.TrimSuffix(dir, "/catalog"), "/", "_"), func(t *testing.T) {
			src, err := catalog.Load(filepath.Join("..", "..", filepath.FromSlash(dir)))
			if err != nil {
				t.Fatal(err)
			}
			roundTrip(t, src)
		})
	}
}

func roundTrip(t *testing.T, src *catalog.Catalog) {
	metas := gen.Metas(src)
	wire := ""
	for i := range metas {
		if c := camelCase(metas[i].Name); c != metas[i].Name && importer.SnakeCase(c) == metas[i].Name {
			metas[i].OriginalName, wire = c, c
			break
		}
	}
	if wire == "" {
		t.Fatal("no tool name to give a camelCase wire name")
	}
	exporters := []struct {
		name string
		fn   func([]runtime.Meta, ...export.Option) ([]byte, error)
		mcp  bool
		// Gemini's schemas are an OpenAPI subset: they load, lint and
		// compile, but are not the source's.
		gemini bool
	}{
		{"mcp", export.MCP, true, false},
		{"openai", export.OpenAIChat, false, false},
		{"openai-responses", export.OpenAIResponses, false, false},
		{"anthropic", export.Anthropic, false, false},
		{"gemini", export.Gemini, false, true},
	}
	for _, ex := range exporters {
		t.Run(ex.name, func(t *testing.T) {
			data, err := ex.fn(metas, export.IncludeHidden())
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(t.TempDir(), ex.name+".json")
			if err := os.WriteFile(file, data, 0o644); err != nil {
				t.Fatal(err)
			}
			got, report := importCLI(t, "--package", src.Package, file)
			t.Log(lastLine(report))
			if len(got.Tools) != len(metas) {
				t.Fatalf("%d tools imported, want %d", len(got.Tools), len(metas))
			}
			for _, m := range metas {
				g := got.Tool(m.Name)
				if g == nil {
					t.Errorf("tool %s is missing", m.Name)
					continue
				}
				if g.OriginalName != m.OriginalName {
					t.Errorf("%s: original_name %q, want %q", m.Name, g.OriginalName, m.OriginalName)
				}
				if strings.TrimSpace(g.Description) != strings.TrimSpace(m.Description) {
					t.Errorf("%s: description %q, want %q", m.Name, g.Description, m.Description)
				}
				// A schema with the idempotency_key argument is exported
				// with it.
				if d := cmp.Diff(canonical(t, m.ArgsSchema), canonical(t, g.Args.JSON())); d != "" && !m.IdempotencyKeyArg && !ex.gemini {
					t.Errorf("%s: args differ (-want +got):\n%s", m.Name, d)
				}
				if !ex.mcp {
					continue
				}
				if g.HasSideEffects != m.HasSideEffects || g.ReturnsUntrusted != m.ReturnsUntrusted || (m.HasSideEffects && g.Idempotent != m.Idempotent) {
					t.Errorf("%s: side effects %v idempotent %v untrusted %v, want %v %v %v", m.Name,
						g.HasSideEffects, g.Idempotent, g.ReturnsUntrusted, m.HasSideEffects, m.Idempotent, m.ReturnsUntrusted)
				}
				if len(m.ResultSchema) > 0 && strings.Contains(string(m.ResultSchema), `"type":"object"`) {
					if g.Result == nil {
						t.Errorf("%s: no result schema", m.Name)
					} else if d := cmp.Diff(canonical(t, m.ResultSchema), canonical(t, g.Result.JSON())); d != "" {
						t.Errorf("%s: result differs (-want +got):\n%s", m.Name, d)
					}
				}
			}
			var stdout, stderr bytes.Buffer
			dir := filepath.Dir(got.Files[0])
			if code := Main([]string{"lint", "--format", "text", dir}, nil, &stdout, &stderr); code == 2 {
				t.Errorf("toolcat lint: exit 2\n%s%s", stdout.String(), stderr.String())
			}
			if _, err := gen.Generate(got); err != nil {
				t.Errorf("gen: %v", err)
			}
			// The wire names survive a second export.
			again, err := ex.fn(gen.Metas(got), export.IncludeHidden())
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(again, []byte(`"`+wire+`"`)) {
				t.Errorf("the re-export lacks the wire name %s", wire)
			}
		})
	}
}

func TestImportUsage(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "tools.json")
	write(t, good, []byte(`{"tools":[{"name":"getUser","description":"Reads a user.","inputSchema":{"type":"object"}}]}`))
	write(t, filepath.Join(dir, "empty", "README"), []byte("x"))
	exists := filepath.Join(dir, "exists.yaml")
	write(t, exists, []byte("x"))
	tests := []struct {
		desc string
		args []string
		code int
		want string
	}{
		{"no input", nil, 2, "give files or directories"},
		{"missing file", []string{filepath.Join(dir, "nope.json")}, 2, "no such file"},
		{"directory without json", []string{filepath.Join(dir, "empty")}, 2, "no .json or .snap files"},
		{"out exists", []string{"--out", exists, good}, 2, "--force overwrites it"},
		{"bad package", []string{"--package", "My-Tools", good}, 2, "not a lower-case Go identifier"},
		{"bad command", []string{"--mcp-command", `"unterminated`}, 2, "unterminated quote"},
		{"bad header", []string{"--header", "no colon", "--mcp-url", "http://127.0.0.1:9/mcp"}, 2, `want "Name: value"`},
		{"command not found", []string{"--mcp-command", "toolcat-no-such-server --x", "--timeout", "10s"}, 2, "connect"},
		{"stdout", []string{good}, 0, "1 tools (1 renamed"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Main(append([]string{"import"}, tt.args...), nil, &stdout, &stderr)
			if code != tt.code || !strings.Contains(stderr.String(), tt.want) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr.String(), tt.code, tt.want)
			}
			if code == 0 && !strings.Contains(stdout.String(), "original_name: getUser") {
				t.Errorf("stdout:\n%s", stdout.String())
			}
		})
	}
}

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"node server.js", []string{"node", "server.js"}},
		{`npx -y "@scope/pkg@1.0" 'a b' c\ d`, []string{"npx", "-y", "@scope/pkg@1.0", "a b", "c d"}},
		{`  a  ""  `, []string{"a", ""}},
	}
	for _, tt := range tests {
		got, err := splitCommand(tt.in)
		if err != nil || !cmp.Equal(got, tt.want) {
			t.Errorf("splitCommand(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "   ", `a "b`, `a\`} {
		if _, err := splitCommand(bad); err == nil {
			t.Errorf("splitCommand(%q): no error", bad)
		}
	}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndex(s, "\n")+1:]
}

// TestImportMCPURL serves the example catalog's tools over streamable
// HTTP with runtime/mcpserver and imports them with --mcp-url: the wire
// name and what the annotations carry come back.
func TestImportMCPURL(t *testing.T) {
	src, err := catalog.Load(filepath.Join("..", "..", "examples", "articles", "catalog"))
	if err != nil {
		t.Fatal(err)
	}
	reg := runtime.New()
	metas := gen.Metas(src)
	for _, m := range metas {
		if m.Name == "get_article_by_id" {
			m.OriginalName = "getArticleById"
		}
		m.Exposure = runtime.ExposureCore // listed without a search
		reg.MustRegister(runtime.Tool{Meta: m, Execute: func(context.Context, any) (any, error) { return nil, nil }})
	}
	h := mcpserver.New(reg, mcpserver.WithLogger(slog.New(slog.DiscardHandler))).Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"import", "--mcp-url", srv.URL, "--timeout", "10s"}, nil, &stdout, &stderr); code != 2 {
		t.Errorf("without the header: exit %d, want 2\n%s", code, stderr.String())
	}
	got, report := importCLI(t, "--mcp-url", srv.URL, "--header", "Authorization: Bearer s3cret", "--timeout", "20s")
	t.Log(lastLine(report))
	if len(got.Tools) != len(metas) {
		t.Fatalf("%d tools imported, want %d", len(got.Tools), len(metas))
	}
	for _, m := range metas {
		g := got.Tool(m.Name)
		if g == nil {
			t.Fatalf("%s is missing", m.Name)
		}
		if g.HasSideEffects != m.HasSideEffects || g.ReturnsUntrusted != m.ReturnsUntrusted {
			t.Errorf("%s: side effects %v untrusted %v, want %v %v", m.Name, g.HasSideEffects, g.ReturnsUntrusted, m.HasSideEffects, m.ReturnsUntrusted)
		}
	}
	if g := got.Tool("get_article_by_id"); g.OriginalName != "getArticleById" {
		t.Errorf("get_article_by_id: original_name %q, want getArticleById", g.OriginalName)
	}
}

// A server's stderr is kept to its last lines, however much it writes.
func TestTailBuffer(t *testing.T) {
	var b tailBuffer
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	got := stderrTail(&b)
	if len(got) > tailMax+100 || !strings.HasSuffix(got, "line 999") || !strings.Contains(got, "...") {
		t.Errorf("stderrTail: %d bytes, ends %q", len(got), got[max(0, len(got)-20):])
	}
}

// TestImportKeepsValues checks that strings YAML would read as other
// types, numbers past float64's exact range, nulls and nested defaults
// load from the imported catalog as the source wrote them.
func TestImportKeepsValues(t *testing.T) {
	schema := `{"type":"object","additionalProperties":false,"properties":{
		"a":{"type":"string","enum":["1","true","null","0x10","~","yes","no","on","1e3","-","a: b","#x"," lead","trail ","multi\nline","","é","\u0007bell","007"],"default":"007"},
		"n":{"type":"number","minimum":-1.5e3,"maximum":12345678901234567890},
		"b":{"const":false},"z":{"const":null},"o":{"default":{"k":[1,"2",true]}}}}`
	file := filepath.Join(t.TempDir(), "tools.json")
	write(t, file, []byte(`{"tools":[{"name":"check_values","description":"d","inputSchema":`+schema+`}]}`))
	cat, _ := importCLI(t, file)
	if d := cmp.Diff(canonical(t, []byte(schema)), canonical(t, cat.Tools[0].Args.JSON())); d != "" {
		t.Errorf("args differ (-source +imported):\n%s", d)
	}
}

// camelCase writes get_article_by_id as getArticleById.
func camelCase(s string) string {
	parts := strings.Split(s, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}
