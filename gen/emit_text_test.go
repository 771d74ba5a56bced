package gen_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/catalog/catalogtest"
	"github.com/toolcat/toolcat/gen"
)

// The functions gen writes as text (a tool's data-mode validator and its
// binding) are laid out as gofmt lays them out, in both validator modes,
// for tools with and without DryRun and Revert, and for a renamed tool:
// the files are the same byte for byte as when jennifer emits them and
// gofmt formats them.
func TestFuncTextIsGofmt(t *testing.T) {
	mapping, err := os.ReadFile("testdata/mapping/catalog.yaml")
	if err != nil {
		t.Fatal(err)
	}
	renamed := strings.Replace(renamedOld, "  search_orders:\n", "  find_orders:\n    renamed_from: [search_orders]\n", 1)
	catalogs := map[string]catalog.File{
		"synthetic": {Name: "synthetic.yaml", Data: catalogtest.YAML(60)},
		"mapping":   {Name: "catalog.yaml", Data: mapping},
		"renamed":   {Name: "catalog.yaml", Data: []byte(renamed)},
	}
	seen := map[string]int{}
	for name, file := range catalogs {
		cat, err := catalog.LoadFiles(file)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, mode := range []gen.ValidatorMode{gen.ValidatorsCode, gen.ValidatorsData} {
			fast, err := gen.Generate(cat, gen.WithValidators(mode))
			if err != nil {
				t.Fatalf("%s, %s: %v", name, mode, err)
			}
			gen.SetPreformatDescs(false)
			slow, err := gen.Generate(cat, gen.WithValidators(mode))
			gen.SetPreformatDescs(true)
			if err != nil {
				t.Fatalf("%s, %s: %v with gofmt's layout only", name, mode, err)
			}
			if len(fast) != len(slow) {
				t.Fatalf("%s, %s: %d files, %d with gofmt's layout", name, mode, len(fast), len(slow))
			}
			bindings := 0
			for file, b := range slow {
				if !bytes.Equal(fast[file], b) {
					t.Errorf("%s, %s: %s differs from gofmt's layout:\n%s\ngofmt:\n%s", name, mode, file, fast[file], b)
				}
				bindings += bytes.Count(b, []byte("(impls *Tools) (tool runtime.Tool, ok bool, err error) {"))
				for _, s := range shapes {
					seen[s] += bytes.Count(b, []byte(s))
				}
			}
			if bindings != len(cat.Tools) {
				t.Errorf("%s, %s: %d tool bindings, want %d", name, mode, bindings, len(cat.Tools))
			}
		}
	}
	for _, s := range shapes {
		if seen[s] == 0 {
			t.Errorf("no file holds %q: the test misses a shape of the functions", s)
		}
	}
}

// shapes are parts of the functions written as text that only some tools
// have.
var shapes = []string{
	"\t\tDryRun:    runtime.Bind(impl.DryRun),\n",
	"\t\tRevert:    runtime.BindRevert(impl.Revert),\n",
	"\tif impl == nil {\n\t\timpl = impls.",
	"runtime.DataPassFor reads them in one pass",
}
