package lint

import (
	"slices"

	"github.com/toolcat/toolcat/catalog"
)

// SchemaEnumOverString asks for enums where a free string invites guessing.
var SchemaEnumOverString = &Rule{
	ID:       "SCHEMA_ENUM_OVER_STRING",
	Category: "schemas",
	Purpose:  "Checks that string arguments whose name suggests a closed set of values (status, mode, sort_order, output_format...; configurable: enum_hint_names, matched on the whole name or its last word) list their values with enum; a string with enum, const, pattern or format is fine.",
	Check:    forEachProperty(true, checkSchemaEnumOverString),
}

func checkSchemaEnumOverString(p *Pass, t *catalog.Tool, pr propRef) {
	s := pr.Schema
	if s == nil || !hasType(s, "string") {
		return
	}
	for _, kw := range []string{"enum", "const", "pattern", "format", "$ref", "anyOf", "oneOf"} {
		if s.Get(kw) != nil {
			return
		}
	}
	words := nameWords(pr.Name)
	if len(words) == 0 {
		return
	}
	if !slices.Contains(p.Config.EnumHintNames, snakeCase(pr.Name)) && !slices.Contains(p.Config.EnumHintNames, words[len(words)-1]) {
		return
	}
	p.Reportf(t, pr.Field.KeyPos, "string property %q looks like a closed set of values; list them with \"enum\" so the model cannot guess", pr.Name)
}
