package lint

import (
	"slices"

	"github.com/toolcat/toolcat/catalog"
)

// SchemaProviderCompat checks args schemas against what each provider
// accepts for tool input.
var SchemaProviderCompat = &Rule{
	ID:       "SCHEMA_PROVIDER_COMPAT",
	Category: "schemas",
	Purpose: "Checks args schemas against the tool-input rules of each provider in providers, reporting the exact keyword a provider rejects: " +
		"openai and anthropic refuse anyOf, oneOf, allOf, enum or not at the top level; gemini takes an OpenAPI 3.0 subset and cannot express maps, tuples, pattern or dependent properties, not, if/then/else, allOf or type unions. " +
		"Keywords the exporter rewrites without loss for gemini are not reported: const (as a one-value enum), [T, \"null\"] (as nullable), oneOf (as anyOf), local $ref (inlined), additionalProperties: false, $schema, $id, $comment and examples (dropped).",
	Check: forEachTool(checkSchemaProviderCompat),
}

// topLevelRejected are the keywords openai and anthropic refuse at the top
// of a tool's input schema.
var topLevelRejected = map[string][]string{
	"openai":    {"anyOf", "oneOf", "allOf", "enum", "not"},
	"anthropic": {"anyOf", "oneOf", "allOf"},
}

// geminiLost are the keywords gemini's schema subset cannot express, with
// the way out.
var geminiLost = map[string]string{
	"patternProperties":     "declare the properties, or take an array of {name, value} objects",
	"propertyNames":         "describe the allowed names in the description",
	"prefixItems":           "use an object with named properties instead of a tuple",
	"contains":              "describe the constraint in the description",
	"not":                   "state the allowed values instead",
	"if":                    "split the tool, or describe the condition in the description",
	"then":                  "split the tool, or describe the condition in the description",
	"else":                  "split the tool, or describe the condition in the description",
	"dependentRequired":     "describe the dependency in the description",
	"dependentSchemas":      "describe the dependency in the description",
	"allOf":                 "merge the branches into one schema",
	"unevaluatedItems":      "use items",
	"$dynamicRef":           "use a plain schema",
	"additionalItems":       "use an object with named properties instead of a tuple",
	"additionalProperties":  "use an array of {key, value} objects instead of a map",
	"unevaluatedProperties": "use an array of {key, value} objects instead of a map",
}

func checkSchemaProviderCompat(p *Pass, t *catalog.Tool) {
	a := t.Args
	if a == nil || a.Kind != catalog.Object {
		return
	}
	for _, prov := range []string{"openai", "anthropic"} {
		if !slices.Contains(p.Config.Providers, prov) {
			continue
		}
		for _, kw := range topLevelRejected[prov] {
			if a.Get(kw) != nil {
				p.Reportf(t, a.KeyPos(kw), "%s does not accept %q at the top of args; move the alternatives into a property, or split the tool", prov, kw)
			}
		}
	}
	if slices.Contains(p.Config.Providers, "gemini") {
		walkSchema(t, "args", func(s schemaRef) bool {
			checkGemini(p, t, s)
			return true
		})
	}
}

func checkGemini(p *Pass, t *catalog.Tool, s schemaRef) {
	for _, f := range s.Node.Fields {
		how, lost := geminiLost[f.Key]
		switch f.Key {
		case "additionalProperties", "unevaluatedProperties":
			lost = f.Value.Kind == catalog.Object // false is dropped; true is gemini's own default
		case "items":
			lost, how = f.Value.Kind == catalog.Array, "use an object with named properties instead of a tuple"
		case "type":
			var named []string
			for _, ty := range s.Node.SchemaTypes() {
				if ty != "null" {
					named = append(named, ty)
				}
			}
			lost, how = len(named) > 1, "use anyOf with one schema per type"
		}
		if lost {
			p.Reportf(t, f.KeyPos, "gemini does not accept %q at %s; %s", f.Key, s.where(), how)
		}
	}
}
