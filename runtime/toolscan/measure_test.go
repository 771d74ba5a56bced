package toolscan

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// realTool is a tool definition of a real server, with the names of the
// other tools of its server.
type realTool struct {
	server string
	tool   Tool
}

type listedTool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  struct {
		Title string `json:"title"`
	} `json:"annotations"`
}

func (l listedTool) tool() Tool {
	title := l.Title
	if title == "" {
		title = l.Annotations.Title
	}
	return Tool{Name: l.Name, Title: title, Description: l.Description, InputSchema: l.InputSchema, OutputSchema: l.OutputSchema}
}

// corpusTools reads the test corpus (TOOLCAT_CORPUS): the GitHub MCP
// server's tool snapshots and the reference servers' tool lists.
func corpusTools(t *testing.T, dir string) []realTool {
	t.Helper()
	var out []realTool
	snaps, _ := filepath.Glob(filepath.Join(dir, "github-mcp-server", "__toolsnaps__", "*.snap"))
	for _, f := range snaps {
		var l listedTool
		readJSON(t, f, &l)
		out = append(out, realTool{"github", l.tool()})
	}
	lists, _ := filepath.Glob(filepath.Join(dir, "mcp-reference-servers", "*.tools.json"))
	for _, f := range lists {
		var l struct{ Tools []listedTool }
		readJSON(t, f, &l)
		for _, x := range l.Tools {
			out = append(out, realTool{strings.TrimSuffix(filepath.Base(f), ".tools.json"), x.tool()})
		}
	}
	if len(out) == 0 {
		t.Fatalf("no tools in the corpus at %s", dir)
	}
	return out
}

// poolTools reads the discovery pool (TOOLCAT_DISCOVERY_POOL): one file
// per server, as internal/discoverypool writes it, the corpus's servers
// included.
func poolTools(t *testing.T, dir string) []realTool {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	var out []realTool
	for _, f := range files {
		if filepath.Base(f) == "manifest.json" {
			continue
		}
		var l struct {
			Server  string
			Package string
			Tools   []listedTool
		}
		readJSON(t, f, &l)
		for _, x := range l.Tools {
			out = append(out, realTool{l.Server, x.tool()})
		}
	}
	if len(out) == 0 {
		t.Fatalf("no tools in the discovery pool at %s", dir)
	}
	return out
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// scanServers scans each tool with its server's other tools as siblings,
// and returns the flagged tools with their findings.
func scanServers(tools []realTool) map[string][]Finding {
	names := map[string][]string{}
	for _, rt := range tools {
		names[rt.server] = append(names[rt.server], rt.tool.Name)
	}
	bases := map[string]*Context{}
	for s, n := range names {
		bases[s] = &Context{Siblings: n}
		bases[s].Prepare()
	}
	flagged := map[string][]Finding{}
	for _, rt := range tools {
		c := *bases[rt.server]
		c.Self = rt.tool.Name
		if fs := ScanTool(rt.tool, &c); len(fs) > 0 {
			flagged[rt.server+"/"+rt.tool.Name] = fs
		}
	}
	return flagged
}

// maxFalsePositiveRate is the share of real tools the check may flag.
const maxFalsePositiveRate = 0.005

func checkFalsePositives(t *testing.T, what string, tools []realTool) {
	flagged := scanServers(tools)
	keys := make([]string, 0, len(flagged))
	for k := range flagged {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, f := range flagged[k] {
			t.Logf("%s: %s", k, f)
		}
	}
	rate := float64(len(flagged)) / float64(len(tools))
	t.Logf("%s: %d of %d real tools flagged (%.2f%%)", what, len(flagged), len(tools), 100*rate)
	if rate > maxFalsePositiveRate {
		t.Errorf("%s: %d of %d real tools flagged (%.2f%%), above %.1f%%", what, len(flagged), len(tools), 100*rate, 100*maxFalsePositiveRate)
	}
}

// TestFalsePositivesCorpus scans every tool of the test corpus: real
// servers' definitions, which should not be flagged.
func TestFalsePositivesCorpus(t *testing.T) {
	dir := os.Getenv("TOOLCAT_CORPUS")
	if dir == "" {
		t.Skip("TOOLCAT_CORPUS is not set (make test-corpus sets it)")
	}
	checkFalsePositives(t, "corpus", corpusTools(t, dir))
}

// TestFalsePositivesPool scans the discovery pool's tools.
func TestFalsePositivesPool(t *testing.T) {
	dir := os.Getenv("TOOLCAT_DISCOVERY_POOL")
	if dir == "" {
		t.Skip("TOOLCAT_DISCOVERY_POOL is not set (make eval-discovery sets it)")
	}
	checkFalsePositives(t, "discovery pool", poolTools(t, dir))
}
