package lint

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcat/toolcat/catalog"
)

// TestCorpusSets runs each rule set on tools written by others
// (testdata/corpus) and compares, per set and rule, how many tools have a
// finding with testdata/corpus/want-sets.txt (-update rewrites it). It
// shows what a team adopting toolcat on existing tools meets in each set:
// BASIC stays quiet on well-kept tools, STANDARD asks for toolcat's
// conventions.
func TestCorpusSets(t *testing.T) {
	cat, err := catalog.Load(filepath.Join("testdata", "corpus", "github-mcp-server.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range Sets {
		cfg := DefaultConfig()
		cfg.Use = []string{s.Name}
		tools := map[string]map[string]bool{}
		for _, d := range Run(cat, cfg) {
			if tools[d.RuleID] == nil {
				tools[d.RuleID] = map[string]bool{}
			}
			tools[d.RuleID][d.Tool] = true
		}
		seen := map[string]bool{}
		for _, id := range slices.Sorted(maps.Keys(tools)) {
			got = append(got, fmt.Sprintf("%s %s %d/%d", s.Name, id, len(tools[id]), len(cat.Tools)))
			for tool := range tools[id] {
				seen[tool] = true
			}
		}
		got = append(got, fmt.Sprintf("%s any %d/%d", s.Name, len(seen), len(cat.Tools)))
	}
	file := filepath.Join("testdata", "corpus", "want-sets.txt")
	if *update {
		if err := os.WriteFile(file, []byte(strings.Join(got, "\n")+"\n"), 0o666); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools with findings per set and rule (-want +got):\n%s", diff)
	}
}
