package lint

import (
	"strings"

	"github.com/toolcat/toolcat/catalog"
)

// SchemaUnknownKeyword catches keys that are no JSON Schema keyword.
var SchemaUnknownKeyword = &Rule{
	ID:       "SCHEMA_UNKNOWN_KEYWORD",
	Category: "schemas",
	Purpose:  "Checks that every key of a schema is a JSON Schema 2020-12 keyword (or an x- extension): validators ignore the others, so a typo such as maxLenght, or a YAML flow mapping split by an unquoted comma, silently drops a constraint.",
	Check:    forEachSchema(false, checkSchemaUnknownKeyword),
}

// schemaKeywords are the keywords of JSON Schema 2020-12 (core, applicator,
// unevaluated, validation, meta-data, format, content), with the draft-07
// ones toolcat's inputs still use, and OpenAPI's nullable.
var schemaKeywords = map[string]bool{
	"$schema": true, "$id": true, "$ref": true, "$anchor": true, "$dynamicRef": true,
	"$dynamicAnchor": true, "$vocabulary": true, "$comment": true, "$defs": true,
	"definitions": true, "dependencies": true, "$recursiveRef": true, "$recursiveAnchor": true,
	"allOf": true, "anyOf": true, "oneOf": true, "not": true, "if": true, "then": true,
	"else": true, "dependentSchemas": true, "prefixItems": true, "items": true,
	"additionalItems": true, "contains": true, "properties": true, "patternProperties": true,
	"additionalProperties": true, "propertyNames": true, "unevaluatedItems": true,
	"unevaluatedProperties": true, "type": true, "enum": true, "const": true,
	"multipleOf": true, "maximum": true, "exclusiveMaximum": true, "minimum": true,
	"exclusiveMinimum": true, "maxLength": true, "minLength": true, "pattern": true,
	"maxItems": true, "minItems": true, "uniqueItems": true, "maxContains": true,
	"minContains": true, "maxProperties": true, "minProperties": true, "required": true,
	"dependentRequired": true, "title": true, "description": true, "default": true,
	"deprecated": true, "readOnly": true, "writeOnly": true, "examples": true,
	"format": true, "contentEncoding": true, "contentMediaType": true, "contentSchema": true,
	"nullable": true,
}

// schemaKeywordList is schemaKeywords as a list, for suggestions.
var schemaKeywordList = func() []string {
	out := make([]string, 0, len(schemaKeywords))
	for k := range schemaKeywords {
		out = append(out, k)
	}
	return out
}()

func checkSchemaUnknownKeyword(p *Pass, t *catalog.Tool, s schemaRef) {
	for _, f := range s.Node.Fields {
		if schemaKeywords[f.Key] || strings.HasPrefix(f.Key, "x-") {
			continue
		}
		switch close := catalog.Closest(f.Key, schemaKeywordList); {
		case close != "":
			p.Reportf(t, f.KeyPos, "%q in %s is no JSON Schema keyword; did you mean %q?", f.Key, s.where(), close)
		case f.Value.Kind == catalog.Null && strings.ContainsAny(f.Key, " ,."):
			p.Reportf(t, f.KeyPos, "%q in %s is no JSON Schema keyword; in a YAML flow mapping {...}, a comma ends the value: quote text that has one", f.Key, s.where())
		default:
			p.Reportf(t, f.KeyPos, "%q in %s is no JSON Schema keyword, and validators ignore it; remove it, or name it x-%s if it is an extension", f.Key, s.where(), f.Key)
		}
	}
}
