package lint

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/catalog"
)

// syntheticCatalog writes a catalog of n tools shaped like real ones:
// a description with markers, a closed args object of a few typed and
// described properties, some fallbacks and dependencies.
func syntheticCatalog(n int) []byte {
	var b strings.Builder
	b.WriteString("services:\n  db: {description: \"The database\"}\ntools:\n")
	objects := []string{"invoice", "customer", "order", "ticket", "article", "refund", "shipment", "product"}
	verbs := []string{"list", "get", "create", "update", "search", "archive", "export", "count"}
	for i := range n {
		obj, verb := objects[i%len(objects)], verbs[(i/len(objects))%len(verbs)]
		name := fmt.Sprintf("%s_%s_%d", verb, obj, i)
		fmt.Fprintf(&b, "  %s:\n", name)
		fmt.Fprintf(&b, "    description: |\n      %s one %s of the shop, region %d, with its history and owner.\n      Use when: the user names a %s. Do not use: for other regions.\n", strings.ToUpper(verb[:1])+verb[1:], obj, i, obj)
		fmt.Fprintf(&b, "    version: 1.%d.0\n    sla_ms: %d\n    dependencies: [db]\n", i%10, 500+i%7*100)
		if i%5 == 1 {
			fmt.Fprintf(&b, "    fallback_tool: %s_%s_%d\n", verbs[((i-1)/len(objects))%len(verbs)], objects[(i-1)%len(objects)], i-1)
		}
		b.WriteString("    args:\n      type: object\n      additionalProperties: false\n      required: [id]\n      properties:\n")
		b.WriteString("        id: {type: string, pattern: \"^[a-z0-9_]+$\", description: \"The id, such as inv_12\"}\n")
		b.WriteString("        limit: {type: integer, minimum: 1, maximum: 50, default: 10, description: \"How many at most\"}\n")
		b.WriteString("        status: {type: string, enum: [open, closed], description: \"Which ones\"}\n")
		b.WriteString("    errors:\n      not_found: {suggestion: \"Check the id with a list tool.\"}\n")
		b.WriteString("    examples:\n      - args: {id: \"x1\", limit: 3}\n")
	}
	return []byte(b.String())
}

// BenchmarkRun measures linting a catalog of 1,000 tools with every rule
// (loading excluded).
func BenchmarkRun(b *testing.B) {
	cat, err := catalog.LoadFiles(catalog.File{Name: "big.yaml", Data: syntheticCatalog(1000)})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		Run(cat, nil)
	}
}
