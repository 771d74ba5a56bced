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
	articles, err := os.ReadFile("../examples/articles/catalog/tools.yaml")
	if err != nil {
		t.Fatal(err)
	}
	catalogs := map[string]catalog.File{
		"synthetic": {Name: "synthetic.yaml", Data: catalogtest.YAML(60)},
		"articles":  {Name: "tools.yaml", Data: articles},
		"meta":      {Name: "catalog.yaml", Data: []byte(metaCatalog)},
		"mapping":   {Name: "catalog.yaml", Data: mapping},
		"renamed":   {Name: "catalog.yaml", Data: []byte(renamed)},
		// Its constructors through jennifer, its renamed names as text.
		"renamed, a bracket": {Name: "catalog.yaml", Data: []byte(strings.Replace(renamed, "No order matched.", "No [order] matched.", 1))},
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
	// The metadata.
	"\t\tErrorHints: map[runtime.Code]string{\n",
	"\t\tErrorHints:     map[runtime.Code]string{runtime.CodeNotFound: ",
	"\t\tSideEffect:          runtime.SideEffectDestructive,\n",
	" * time.Millisecond,\n",
	"\t\tDependencies: ",
	"\t\tQueries: ",
	"\t\tFallbackTool: ",
	"\t\tMaxResultBytes: ",
	"\t\tOriginalName: ",
	"runtime.ExposureHidden",
	"runtime.AdditionalArgsStrip",
	"Schema   = \"{", // a schema holding a backquote, quoted
	"\\u2028",        // a line separator in a description, escaped
	// The interface, the error constructors and the renamed names.
	"\tRevert(ctx context.Context, args *",
	"\tDryRun(ctx context.Context, args *",
	".WithRetryAllowed(true)\n",
	".WithRetryAllowed(false)\n",
	"// Deprecated: SearchOrdersArgsStatusOpen is the Go name of a value",
	"\treturn FindOrdersNotFound(message)\n",
	"is the tool link_orders: Links [orders] to a customer.",
	"// \"See [the list] of customers.\".\n",
	"// \"No [order] matched.\".\n",
}

// metaCatalog has tools whose metadata sets every field, with
// descriptions and schemas that need quoting.
const metaCatalog = `package: shop
services:
  db:
    description: The database.
tools:
  wipe_orders:
    description: "Deletes every order of a customer; \"wipe\" cannot be undone.\n\nUse when: the customer asks, \u2028 in writing."
    original_name: wipeOrders
    category: orders
    version: 3.1.4
    owner: back office
    risk: high
    has_side_effects: true
    side_effect: destructive
    idempotent: true
    idempotency_required: true
    idempotency_key: argument
    supports_dry_run: true
    revertible: true
    returns_untrusted: true
    capability_required: orders:wipe
    exposure: hidden
    autonomy: supervised
    max_retries: 3
    sla_ms: 1500
    max_result_bytes: 4096
    fallback_tool: count_orders
    additional_args: strip
    dependencies: [db, count_orders]
    queries: [delete all my orders, "wipe the \"test\" customer"]
    args:
      type: object
      additionalProperties: false
      required: [customer]
      properties:
        customer: {type: string, description: "The customer, as ` + "`" + `name` + "`" + ` or id."}
    result:
      type: object
      properties:
        wiped: {type: integer}
    errors:
      not_found:
        suggestion: No such customer.
      idempotency_conflict:
        suggestion: "Orders are being written; try again in a minute."
      rate_limited:
        suggestion: Wait.
        retry_allowed: true
  count_orders:
    description: Counts the orders of a customer. Use when asked how many orders there are.
    category: orders
    args:
      type: object
      properties:
        customer: {type: string}
    errors:
      not_found:
        suggestion: No such customer.
  link_orders:
    description: "Links [orders] to a customer.\tUse when asked to link orders."
    args:
      type: object
    errors:
      not_found:
        suggestion: "See [the list] of customers."
  tab_orders:
    description: "Tabulates\torders. Use when asked for a table of orders."
    args:
      type: object
    errors:
      timeout:
        suggestion: "Try\tagain, [later]."
        retry_allowed: false
`
