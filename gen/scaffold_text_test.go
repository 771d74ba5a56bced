package gen_test

import (
	"bytes"
	"go/format"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/catalog/catalogtest"
	"github.com/toolcat/toolcat/gen"
)

// The scaffolds are written in gofmt's layout without go/format, for
// tools with and without DryRun, Revert, an idempotency key argument, a
// result that is not a struct, and a renamed tool; and Generate's
// OnScaffolds gives what Scaffolds gives.
func TestScaffoldsAreGofmt(t *testing.T) {
	catalogs := map[string][]byte{
		"synthetic": catalogtest.YAML(60),
		"meta":      []byte(metaCatalog),
		"renamed":   []byte(strings.Replace(renamedOld, "  search_orders:\n", "  find_orders:\n    renamed_from: [search_orders]\n", 1)),
	}
	for _, name := range []string{"../examples/articles/catalog/tools.yaml", "testdata/mapping/catalog.yaml"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		catalogs[name] = b
	}
	for _, seed := range seedCatalogs(8) {
		catalogs[string(seed)] = (&draw{data: seed}).catalogJSON()
	}
	seen := map[string]int{}
	for name, data := range catalogs {
		file := "catalog.yaml"
		if bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
			file = "catalog.json"
		}
		cat, err := catalog.LoadFiles(catalog.File{Name: file, Data: data})
		if err != nil {
			continue // a drawn catalog that does not load
		}
		scaffolds, err := gen.Scaffolds(cat)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, s := range scaffolds {
			want, err := format.Source(s.Data)
			if err != nil {
				t.Fatalf("%s: %s: %v", name, s.File, err)
			}
			if !bytes.Equal(s.Data, want) {
				t.Errorf("%s: %s is not in gofmt's layout:\n%s\ngofmt:\n%s", name, s.File, s.Data, want)
			}
			for _, shape := range scaffoldShapes {
				seen[shape] += bytes.Count(s.Data, []byte(shape))
			}
		}
		var got []gen.Scaffold
		if _, err := gen.Generate(cat, gen.OnScaffolds(func(s []gen.Scaffold) { got = s })); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, scaffolds) {
			t.Errorf("%s: OnScaffolds gave other scaffolds than Scaffolds", name)
		}
	}
	for _, shape := range scaffoldShapes {
		if seen[shape] == 0 {
			t.Errorf("no scaffold holds %q: the test misses a shape", shape)
		}
	}
}

var scaffoldShapes = []string{
	") DryRun(ctx context.Context, args *",
	") Revert(ctx context.Context, args *",
	"// runtime.IdempotencyKeyFrom(ctx) is the call's idempotency key",
	"\treturn \"\", runtime.ErrNotImplemented\n",
	"\treturn nil, runtime.ErrNotImplemented\n",
}
