package gen_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/gen"
)

const renamedOld = `package: shop
tools:
  search_orders:
    description: Searches orders by customer name.
    args:
      type: object
      additionalProperties: false
      properties:
        query: {type: string, description: "Customer name"}
        status: {type: string, enum: [open, closed]}
        filter:
          type: object
          additionalProperties: false
          properties:
            since: {type: string}
    result:
      type: object
      properties:
        count: {type: integer}
    errors:
      not_found: {suggestion: "No order matched."}
`

// userCode is what a user wrote against the old package: the scaffolded
// implementation, and code that names the tool's Go API.
const userCode = `package shop

import "context"

func use() error {
	var impl SearchOrders = &searchOrders{}
	args := &SearchOrdersArgs{Status: new(SearchOrdersArgsStatus), Filter: &SearchOrdersArgsFilter{}}
	*args.Status = SearchOrdersArgsStatusOpen
	var r *SearchOrdersResult
	r, _ = impl.Execute(context.Background(), args)
	_ = r
	_ = SearchOrdersNotFound("none")
	_, err := NewRegistry(Tools{SearchOrders: impl})
	return err
}
`

// TestRenamedFromKeepsOldCodeCompiling renames a tool and checks that code
// written against the old generated package compiles against the new one,
// and that it does not without renamed_from.
func TestRenamedFromKeepsOldCodeCompiling(t *testing.T) {
	old := load(t, renamedOld)
	scaffolds, err := gen.Scaffolds(old)
	if err != nil {
		t.Fatal(err)
	}
	renamed := strings.Replace(renamedOld, "  search_orders:\n", "  find_orders:\n    renamed_from: [search_orders]\n", 1)
	if errs := typeCheck(t, load(t, renamed), scaffolds, userCode); len(errs) > 0 {
		t.Errorf("old code does not compile against the renamed tool:\n%s", strings.Join(errs, "\n"))
	}
	plain := strings.Replace(renamedOld, "  search_orders:\n", "  find_orders:\n", 1)
	if errs := typeCheck(t, load(t, plain), scaffolds, userCode); len(errs) == 0 {
		t.Error("old code compiles against a rename without renamed_from; the test proves nothing")
	}
}

func load(t *testing.T, src string) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.LoadFiles(catalog.File{Name: "tools.yaml", Data: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// typeCheck type-checks the package generated from cat with the old
// scaffolds and the user code user, and returns the errors.
func typeCheck(t *testing.T, cat *catalog.Catalog, scaffolds []gen.Scaffold, user string) []string {
	t.Helper()
	files, err := gen.Generate(cat)
	if err != nil {
		t.Fatal(err)
	}
	delete(files, gen.ConformanceFile) // a test file, of the new implementation types
	for _, s := range scaffolds {
		files[s.File] = s.Data
	}
	files["use.go"] = []byte(user)
	imp, err := exportImporter()
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var parsed []*ast.File
	for _, name := range slices.Sorted(maps.Keys(files)) {
		f, err := parser.ParseFile(fset, name, files[name], parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, f)
	}
	var errs []string
	conf := types.Config{Importer: imp, Error: func(err error) { errs = append(errs, err.Error()) }}
	conf.Check(cat.Package, fset, parsed, nil)
	return errs
}
