package lint

import (
	"fmt"
	"slices"

	"github.com/toolcat/toolcat/catalog"
)

// SchemaStrictMode tells which tools lose OpenAI's strict mode.
var SchemaStrictMode = &Rule{
	ID:       "SCHEMA_STRICT_MODE",
	Category: "schemas",
	Purpose: "Notes, once per tool, args schemas that OpenAI strict mode (structured outputs) cannot take, so the exporter sends strict: false and the model's arguments are not guaranteed to match: " +
		"strict mode needs every object closed with \"additionalProperties\": false and every property in required (optional ones typed [T, \"null\"]), " +
		"and refuses allOf, oneOf, not, if/then/else, dependentRequired, dependentSchemas, patternProperties, unevaluatedProperties, unevaluatedItems, propertyNames, minProperties, maxProperties and contains. " +
		"Only checked when providers lists openai.",
	Check: forEachTool(checkSchemaStrictMode),
}

var strictRejected = []string{
	"allOf", "oneOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas",
	"patternProperties", "unevaluatedProperties", "unevaluatedItems", "propertyNames",
	"minProperties", "maxProperties", "contains", "minContains", "maxContains",
}

func checkSchemaStrictMode(p *Pass, t *catalog.Tool) {
	if !slices.Contains(p.Config.Providers, "openai") || t.Args == nil || t.Args.Kind != catalog.Object {
		return
	}
	type reason struct {
		pos catalog.Pos
		msg string
	}
	var reasons []reason
	walkSchema(t, "args", func(s schemaRef) bool {
		n := s.Node
		for _, f := range n.Fields {
			if slices.Contains(strictRejected, f.Key) {
				reasons = append(reasons, reason{f.KeyPos, fmt.Sprintf("%q at %s is not supported", f.Key, s.where())})
			}
		}
		if isObjectSchema(n) && !isFalse(n, "additionalProperties") && !allOfBranch.MatchString(s.Ptr) {
			reasons = append(reasons, reason{s.KeyPos, fmt.Sprintf("object at %s lacks \"additionalProperties\": false", s.where())})
		}
		if props := n.Get("properties"); props != nil && props.Kind == catalog.Object {
			req := requiredNames(n)
			for _, f := range props.Fields {
				if !req[f.Key] {
					reasons = append(reasons, reason{f.KeyPos, fmt.Sprintf("optional property %q is not in required (make it required with type [T, \"null\"])", f.Key)})
				}
			}
		}
		return true
	})
	if len(reasons) == 0 {
		return
	}
	more := ""
	if len(reasons) > 1 {
		more = fmt.Sprintf(" (and %d more)", len(reasons)-1)
	}
	p.Reportf(t, reasons[0].pos, "args are not openai strict-compatible: %s%s; the exporter will send strict: false", reasons[0].msg, more)
}
