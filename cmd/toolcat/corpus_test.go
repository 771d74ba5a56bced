package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/internal/gomodtest"
)

// CorpusEnv names a directory of tool definitions written by others: MCP
// tools/list answers (an object with "tools") and one-tool snapshots (an
// object with "name" and "inputSchema"), in .json or .snap files at any
// depth.
const CorpusEnv = "TOOLCAT_CORPUS"

// TestCorpus takes every tool set of the corpus in $TOOLCAT_CORPUS (one
// folder of JSON files, or one tools/list file, a package each) through
// what a new user does: write a catalog, toolcat lint, toolcat gen, and
// go vet and go test of the generated package. Every catalog that loads
// must give a package that builds, vets clean and passes its generated
// conformance test; the MINIMAL and BASIC rule sets must report at most a
// tenth of the tools. `make test-corpus` runs it.
func TestCorpus(t *testing.T) {
	t.Parallel() // child processes build Go packages: such tests run side by side
	dir := os.Getenv(CorpusEnv)
	if dir == "" {
		t.Skipf("%s is not set: `make test-corpus` runs this test on a corpus of real tool definitions", CorpusEnv)
	}
	sets, err := corpusSets(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(sets) == 0 {
		t.Fatalf("%s=%s holds no tool definitions", CorpusEnv, dir)
	}
	mod := t.TempDir()
	if err := gomodtest.Write(mod, "example.com/corpus"); err != nil {
		t.Fatal(err)
	}

	var tools, loaded, generated int
	flagged := map[string]int{} // tools with a finding, by rule set
	for i, set := range sets {
		pkg := fmt.Sprintf("set%02d", i)
		catDir := filepath.Join(mod, pkg, "catalog")
		cat := map[string]any{"package": pkg, "tools": set.tools}
		data, err := json.MarshalIndent(cat, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(catDir, "catalog.json"), data)
		tools += len(set.tools)

		var stdout, stderr bytes.Buffer
		code := Main([]string{"lint", "--format", "text", catDir}, nil, &stdout, &stderr)
		if code == 2 {
			t.Logf("%s (%d tools): does not load:\n%s", set.name, len(set.tools), firstLines(stderr.String()+stdout.String(), 5))
			os.RemoveAll(filepath.Join(mod, pkg))
			continue
		}
		loaded++
		findings := strings.Count(stdout.String(), "\n")
		for _, ruleSet := range ruleSets {
			flagged[ruleSet] += toolsFlagged(t, catDir, ruleSet)
		}
		stdout.Reset()
		stderr.Reset()
		if code := Main([]string{"gen", "--cache=false", "--out", filepath.Join(mod, pkg), catDir}, nil, &stdout, &stderr); code != 0 {
			t.Errorf("%s (%d tools): the catalog loads but toolcat gen exits %d:\n%s", set.name, len(set.tools), code, stderr.String())
			os.RemoveAll(filepath.Join(mod, pkg))
			continue
		}
		generated++
		skipImplemented(t, filepath.Join(mod, pkg), set.tools)
		t.Logf("%s: %d tools, %d lint lines, generated as %s", set.name, len(set.tools), findings, pkg)
	}
	t.Logf("corpus: %d tool sets, %d tools; %d sets load, %d generate", len(sets), tools, loaded, generated)
	if generated == 0 {
		t.Fatal("no tool set of the corpus generated")
	}
	// The smaller rule sets are for tool sets written without toolcat:
	// they must leave well-kept ones nearly alone.
	for _, ruleSet := range ruleSets {
		t.Logf("rule set %s: %d of %d tools have a finding (%.1f%%)", ruleSet, flagged[ruleSet], tools, 100*float64(flagged[ruleSet])/float64(tools))
		if ruleSet != "STANDARD" && flagged[ruleSet]*10 > tools {
			t.Errorf("rule set %s reports %d of the corpus's %d tools, more than a tenth", ruleSet, flagged[ruleSet], tools)
		}
	}
	for _, args := range [][]string{{"mod", "tidy"}, {"vet", "./..."}, {"test", "-count=1", "./..."}} {
		gomodtest.Go(t, mod, args...)
	}
}

// skipImplemented turns off the conformance check that the tools have
// bodies, in the scaffolded conformance_tools_test.go of pkg: the
// corpus gives schemas, not implementations. Every other check runs over
// the stubs, which answer unsupported.
func skipImplemented(t *testing.T, pkg string, tools []map[string]any) {
	t.Helper()
	path := filepath.Join(pkg, "conformance_tools_test.go")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var skip strings.Builder
	skip.WriteString("\topts.Skip = map[string]map[conformance.Check]string{}\n")
	for _, tool := range tools {
		fmt.Fprintf(&skip, "\topts.Skip[%q] = map[conformance.Check]string{conformance.CheckImplemented: \"the corpus has no bodies\"}\n", tool["name"])
	}
	const ret = "\treturn impls, opts\n}"
	if !bytes.Contains(src, []byte(ret)) {
		t.Fatalf("%s does not end with %q as toolcat scaffolds it", path, ret)
	}
	write(t, path, bytes.Replace(src, []byte(ret), []byte(skip.String()+ret), 1))
}

// ruleSets are the lint rule sets TestCorpus measures.
var ruleSets = []string{"MINIMAL", "BASIC", "STANDARD"}

// toolsFlagged runs toolcat lint on catDir with only ruleSet and counts
// the tools that have a finding.
func toolsFlagged(t *testing.T, catDir, ruleSet string) int {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "toolcat.yaml")
	write(t, cfg, []byte("lint:\n  use: ["+ruleSet+"]\n"))
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"lint", "--format", "json", "--config", cfg, catDir}, nil, &stdout, &stderr); code == 2 {
		t.Fatalf("toolcat lint with %s: %s", ruleSet, stderr.String())
	}
	var report struct {
		Diagnostics []struct {
			Tool string `json:"tool"`
		} `json:"diagnostics"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &report); err != nil {
		t.Fatalf("toolcat lint --format json with %s: %v", ruleSet, err)
	}
	tools := map[string]bool{}
	for _, d := range report.Diagnostics {
		if d.Tool != "" {
			tools[d.Tool] = true
		}
	}
	return len(tools)
}

// A corpusSet is the tools of one server, in catalog form.
type corpusSet struct {
	name  string
	tools []map[string]any
}

// corpusSets reads dir: a file with a "tools" list is a set of its own;
// the one-tool files of a folder make one set together.
func corpusSets(dir string) ([]corpusSet, error) {
	folders := map[string][]map[string]any{}
	var sets []corpusSet
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || (filepath.Ext(path) != ".json" && filepath.Ext(path) != ".snap") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var doc struct {
			Tools []mcpTool `json:"tools"`
			mcpTool
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		rel, _ := filepath.Rel(dir, path)
		switch {
		case len(doc.Tools) > 0:
			set := corpusSet{name: filepath.ToSlash(rel)}
			for _, mt := range doc.Tools {
				set.tools = append(set.tools, mt.catalogTool())
			}
			sets = append(sets, set)
		case doc.Name != "":
			folder := filepath.ToSlash(filepath.Dir(rel))
			folders[folder] = append(folders[folder], doc.catalogTool())
		}
		return nil
	})
	for _, folder := range slices.Sorted(func(yield func(string) bool) {
		for k := range folders {
			if !yield(k) {
				return
			}
		}
	}) {
		sets = append(sets, corpusSet{name: folder + "/", tools: folders[folder]})
	}
	slices.SortFunc(sets, func(a, b corpusSet) int { return strings.Compare(a.name, b.name) })
	return sets, err
}

// mcpTool is a tool as MCP's tools/list gives it.
type mcpTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  struct {
		ReadOnly    *bool `json:"readOnlyHint"`
		Destructive *bool `json:"destructiveHint"`
		Idempotent  *bool `json:"idempotentHint"`
		OpenWorld   *bool `json:"openWorldHint"`
	} `json:"annotations"`
}

// catalogTool maps t onto a catalog entry the way MCP defines the hints:
// a tool is read-only only when it says so, destructive unless it says
// otherwise, and open-world (its output comes from outside) by default.
func (t mcpTool) catalogTool() map[string]any {
	is := func(p *bool, def bool) bool {
		if p == nil {
			return def
		}
		return *p
	}
	a := t.Annotations
	readOnly := is(a.ReadOnly, false)
	out := map[string]any{
		"name":              t.Name,
		"description":       t.Description,
		"has_side_effects":  !readOnly,
		"idempotent":        readOnly || is(a.Idempotent, false),
		"returns_untrusted": is(a.OpenWorld, true),
	}
	switch {
	case readOnly:
		out["risk"] = "low"
	case is(a.Destructive, true):
		out["risk"] = "high"
	default:
		out["risk"] = "medium"
	}
	if len(t.InputSchema) > 0 {
		out["args"] = t.InputSchema
	}
	if len(t.OutputSchema) > 0 {
		out["result"] = t.OutputSchema
	}
	return out
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines[n] = "..."
	}
	return strings.Join(lines, "\n")
}
