package lint

import (
	"strings"

	"github.com/toolcat/toolcat/catalog"
)

// SchemaPropertyDescribed checks that every argument is explained.
var SchemaPropertyDescribed = &Rule{
	ID:       "SCHEMA_PROPERTY_DESCRIBED",
	Category: "schemas",
	Purpose:  "Checks that every property of the args schema has a description (its own, or that of the local $ref it names): the model fills arguments from their descriptions.",
	Check:    forEachProperty(true, checkSchemaPropertyDescribed),
}

func checkSchemaPropertyDescribed(p *Pass, t *catalog.Tool, pr propRef) {
	if pr.Schema == nil || hasDescription(pr.Schema) {
		return
	}
	if ref, ok := pr.Schema.Get("$ref").StringValue(); ok && strings.HasPrefix(ref, "#") {
		if target := t.Args.Lookup(strings.TrimPrefix(ref, "#")); hasDescription(target) {
			return
		}
	}
	p.Reportf(t, pr.Field.KeyPos, "property %q in %s has no description; say what it holds, its format and an example", pr.Name, pr.Object.where())
}

func hasDescription(n *catalog.Node) bool {
	d, _ := n.Get("description").StringValue()
	return strings.TrimSpace(d) != ""
}
