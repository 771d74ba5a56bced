package catalog

import (
	"math"
	"regexp"
	"strconv"
)

// quickSchemaOK reports whether a schema is surely valid against the JSON
// Schema 2020-12 metaschema: every keyword it knows has a value of the
// right shape. It answers false whenever it is not sure (a keyword it does
// not model, a $ref it does not parse), and the loader then asks the
// metaschema itself, which is slow (about 150 µs a schema) but says
// precisely what is wrong. A fuzz test holds it to never accepting what
// the metaschema rejects.
func quickSchemaOK(n *Node) bool {
	return quickSchema(n, 0)
}

var simpleTypes = map[string]bool{
	"array": true, "boolean": true, "integer": true, "null": true,
	"number": true, "object": true, "string": true,
}

// quickRef matches the local references toolcat resolves: #, #/a/b.
var quickRef = regexp.MustCompile(`^#(/[A-Za-z0-9_.\-$~]*)*$`)

var quickAnchor = regexp.MustCompile(`^[A-Za-z_][-A-Za-z0-9._]*$`)

func quickSchema(n *Node, depth int) bool {
	if depth > 64 {
		return false
	}
	switch n.Kind {
	case Bool:
		return true
	case Object:
	default:
		return false
	}
	for _, f := range n.Fields {
		v := f.Value
		switch f.Key {
		case "type":
			if !quickType(v) {
				return false
			}
		case "enum", "examples":
			if v.Kind != Array {
				return false
			}
		case "const", "default":
		case "multipleOf":
			if x, ok := v.Float(); !ok || x <= 0 {
				return false
			}
		case "maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum":
			if _, ok := v.Float(); !ok {
				return false
			}
		case "maxLength", "minLength", "maxItems", "minItems", "maxProperties",
			"minProperties", "maxContains", "minContains":
			if !quickCount(v) {
				return false
			}
		case "pattern":
			if v.Kind != String || !validRegexp(v.Str) {
				return false
			}
		case "uniqueItems", "deprecated", "readOnly", "writeOnly":
			if v.Kind != Bool {
				return false
			}
		case "required":
			if !quickStringSet(v) {
				return false
			}
		case "title", "description", "$comment", "format", "contentEncoding", "contentMediaType":
			if v.Kind != String {
				return false
			}
		case "properties", "$defs", "dependentSchemas":
			if v.Kind != Object {
				return false
			}
			for _, p := range v.Fields {
				if !quickSchema(p.Value, depth+1) {
					return false
				}
			}
		case "patternProperties":
			if v.Kind != Object {
				return false
			}
			for _, p := range v.Fields {
				if !validRegexp(p.Key) || !quickSchema(p.Value, depth+1) {
					return false
				}
			}
		case "items", "additionalProperties", "propertyNames", "contains", "not",
			"if", "then", "else", "unevaluatedItems", "unevaluatedProperties", "contentSchema":
			if !quickSchema(v, depth+1) {
				return false
			}
		case "prefixItems", "allOf", "anyOf", "oneOf":
			if v.Kind != Array || len(v.Items) == 0 {
				return false
			}
			for _, it := range v.Items {
				if !quickSchema(it, depth+1) {
					return false
				}
			}
		case "$ref":
			if v.Kind != String || !quickRef.MatchString(v.Str) {
				return false
			}
		case "$anchor":
			if v.Kind != String || !quickAnchor.MatchString(v.Str) {
				return false
			}
		case "$schema":
			if v.Kind != String || v.Str != "https://json-schema.org/draft/2020-12/schema" {
				return false
			}
		default:
			// $id, $dynamicRef, $vocabulary, the draft-07 definitions and
			// dependencies, and any $-keyword: the metaschema decides.
			// Other unknown keywords are allowed by it.
			if len(f.Key) > 0 && f.Key[0] == '$' || f.Key == "definitions" || f.Key == "dependencies" || f.Key == "dependentRequired" {
				return false
			}
		}
	}
	return true
}

func quickType(v *Node) bool {
	switch v.Kind {
	case String:
		return simpleTypes[v.Str]
	case Array:
		if len(v.Items) == 0 {
			return false
		}
		seen := map[string]bool{}
		for _, it := range v.Items {
			if it.Kind != String || !simpleTypes[it.Str] || seen[it.Str] {
				return false
			}
			seen[it.Str] = true
		}
		return true
	}
	return false
}

// quickCount accepts a non-negative integer (2.0 counts as one).
func quickCount(v *Node) bool {
	x, ok := v.Float()
	if !ok || x < 0 || x != math.Trunc(x) || x > 1<<53 {
		return false
	}
	_, err := strconv.ParseFloat(v.Num, 64)
	return err == nil
}

func quickStringSet(v *Node) bool {
	if v.Kind != Array {
		return false
	}
	seen := make(map[string]bool, len(v.Items))
	for _, it := range v.Items {
		if it.Kind != String || seen[it.Str] {
			return false
		}
		seen[it.Str] = true
	}
	return true
}

func validRegexp(s string) bool {
	_, err := regexp.Compile(s)
	return err == nil
}
