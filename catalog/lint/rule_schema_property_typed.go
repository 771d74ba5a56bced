package lint

import (
	"github.com/toolcat/toolcat/catalog"
)

// SchemaPropertyTyped checks that every property says what it holds.
var SchemaPropertyTyped = &Rule{
	ID:       "SCHEMA_PROPERTY_TYPED",
	Category: "schemas",
	Purpose:  "Checks that every property of the args and result schemas has a type (type, enum, const, $ref, anyOf, oneOf or allOf count), so the model knows what to send and the generator knows which Go type to use.",
	Check:    forEachProperty(false, checkSchemaPropertyTyped),
}

var typingKeywords = []string{"type", "enum", "const", "$ref", "$dynamicRef", "anyOf", "oneOf", "allOf"}

func checkSchemaPropertyTyped(p *Pass, t *catalog.Tool, pr propRef) {
	if pr.Schema == nil {
		return // a boolean schema: true accepts anything on purpose, false nothing
	}
	for _, kw := range typingKeywords {
		if pr.Schema.Get(kw) != nil {
			return
		}
	}
	p.Reportf(t, pr.Field.KeyPos, "property %q in %s has no type; add \"type\" (or enum, const, $ref), listing every type if any value is accepted", pr.Name, pr.Object.where())
}
