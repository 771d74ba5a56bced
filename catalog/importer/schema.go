package importer

import (
	"fmt"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// typeNames maps type names seen in real tool sets (Python, Java,
// JavaScript, OpenAPI's upper case) to JSON Schema's; "" means any type
// (the keyword is removed).
var typeNames = map[string]string{
	"dict": "object", "map": "object", "hash": "object", "hashmap": "object", "record": "object", "struct": "object", "json": "object",
	"float": "number", "double": "number", "decimal": "number", "bigdecimal": "number", "num": "number", "float32": "number", "float64": "number",
	"int": "integer", "long": "integer", "short": "integer", "byte": "integer", "bigint": "integer", "biginteger": "integer", "int32": "integer", "int64": "integer", "uint": "integer",
	"bool": "boolean",
	"list": "array", "tuple": "array", "set": "array", "arraylist": "array", "sequence": "array",
	"str": "string", "text": "string", "char": "string", "charsequence": "string", "date": "string", "datetime": "string",
	"none": "null", "nonetype": "null", "void": "null", "undefined": "null",
	"any": "", "mixed": "", "unknown": "", "java.lang.object": "",
}

var standardTypes = map[string]bool{"object": true, "array": true, "string": true, "number": true, "integer": true, "boolean": true, "null": true}

// schemaMaps are the keywords whose value maps names to schemas.
var schemaMaps = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}

// schemaOne are the keywords whose value is one schema.
var schemaOne = []string{"additionalProperties", "items", "additionalItems", "contains", "propertyNames", "not", "if", "then", "else",
	"unevaluatedItems", "unevaluatedProperties"}

// schemaLists are the keywords whose value is a list of schemas.
var schemaLists = []string{"allOf", "anyOf", "oneOf", "prefixItems"}

// normaliser converts one tool's schema to 2020-12, noting each change.
type normaliser struct {
	notes []string
	seen  map[string]bool
}

func (z *normaliser) note(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if z.seen == nil {
		z.seen = map[string]bool{}
	}
	if !z.seen[msg] {
		z.seen[msg] = true
		z.notes = append(z.notes, msg)
	}
}

// Normalise rewrites the schema n in place to JSON Schema 2020-12 and
// returns what it changed. at names the schema in the notes ("args").
func Normalise(n *yaml.Node, at string) []string {
	z := &normaliser{}
	if s := str(get(n, "$schema")); s != "" {
		if !strings.Contains(s, "2020-12") {
			z.note("%s: $schema %s: converted to 2020-12", at, s)
		}
		del(n, "$schema")
	}
	z.walk(n, at, 0)
	return z.notes
}

func (z *normaliser) walk(n *yaml.Node, at string, depth int) {
	if n == nil || n.Kind != yaml.MappingNode || depth > maxDepth {
		return
	}
	if get(n, "$schema") != nil && depth > 0 {
		z.note("%s: $schema inside a schema removed", at)
		del(n, "$schema")
	}
	// definitions → $defs, with the references that point into it.
	if d := get(n, "definitions"); d != nil {
		if get(n, "$defs") == nil {
			rename(n, "definitions", "$defs")
			z.note("%s: definitions renamed $defs", at)
		}
	}
	if r := str(get(n, "$ref")); strings.HasPrefix(r, "#/definitions/") {
		set(n, "$ref", strNode("#/$defs/"+strings.TrimPrefix(r, "#/definitions/")))
	}
	if get(n, "id") != nil && get(n, "$id") == nil && str(get(n, "id")) != "" && strings.Contains(str(get(n, "id")), "/") {
		rename(n, "id", "$id")
		z.note("%s: id renamed $id", at)
	}
	z.bounds(n, at, "exclusiveMinimum", "minimum")
	z.bounds(n, at, "exclusiveMaximum", "maximum")
	// items as a list (draft-07 tuples) → prefixItems, additionalItems → items.
	if it := get(n, "items"); it != nil && it.Kind == yaml.SequenceNode {
		rename(n, "items", "prefixItems")
		if ai := get(n, "additionalItems"); ai != nil {
			rename(n, "additionalItems", "items")
		}
		z.note("%s: items as a list (a tuple) converted to prefixItems", at)
	} else if get(n, "additionalItems") != nil {
		del(n, "additionalItems")
		z.note("%s: additionalItems without a tuple has no effect; removed", at)
	}
	if d := get(n, "dependencies"); d != nil && d.Kind == yaml.MappingNode {
		req := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		sch := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for i := 0; i+1 < len(d.Content); i += 2 {
			if d.Content[i+1].Kind == yaml.SequenceNode {
				req.Content = append(req.Content, d.Content[i], d.Content[i+1])
			} else {
				sch.Content = append(sch.Content, d.Content[i], d.Content[i+1])
			}
		}
		del(n, "dependencies")
		if len(req.Content) > 0 {
			set(n, "dependentRequired", req)
		}
		if len(sch.Content) > 0 {
			set(n, "dependentSchemas", sch)
		}
		z.note("%s: dependencies split into dependentRequired and dependentSchemas", at)
	}
	z.types(n, at)
	if nb := get(n, "nullable"); nb != nil && nb.Kind == yaml.ScalarNode && nb.Tag == "!!bool" {
		del(n, "nullable")
		if nb.Value == "true" {
			if ty := get(n, "type"); ty != nil && ty.Kind == yaml.ScalarNode {
				set(n, "type", &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{strNode(ty.Value), strNode("null")}})
			}
		}
		z.note("%s: OpenAPI nullable converted to a null type", at)
	}
	for _, k := range schemaMaps {
		if m := get(n, k); m != nil && m.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(m.Content); i += 2 {
				z.walk(m.Content[i+1], at+"."+m.Content[i].Value, depth+1)
			}
		}
	}
	for _, k := range schemaOne {
		z.walk(get(n, k), at, depth+1)
	}
	for _, k := range schemaLists {
		if l := get(n, k); l != nil && l.Kind == yaml.SequenceNode {
			for _, s := range l.Content {
				z.walk(s, at, depth+1)
			}
		}
	}
}

// bounds converts draft-04's boolean exclusiveMinimum (or Maximum) to the
// number form.
func (z *normaliser) bounds(n *yaml.Node, at, excl, incl string) {
	e := get(n, excl)
	if e == nil || e.Tag != "!!bool" {
		return
	}
	if e.Value == "true" {
		if b := get(n, incl); b != nil {
			set(n, excl, b)
			del(n, incl)
		} else {
			del(n, excl)
		}
	} else {
		del(n, excl)
	}
	z.note("%s: boolean %s converted to the 2020-12 number form", at, excl)
}

// types maps non-standard type names.
func (z *normaliser) types(n *yaml.Node, at string) {
	ty := get(n, "type")
	if ty == nil {
		return
	}
	fix := func(name string) (string, bool) {
		if standardTypes[name] {
			return name, true
		}
		l := strings.ToLower(name)
		if standardTypes[l] {
			z.note("%s: type %s written %s", at, name, l)
			return l, true
		}
		if to, ok := typeNames[l]; ok {
			if to == "" {
				z.note("%s: type %s means any value; type removed", at, name)
			} else {
				z.note("%s: type %s mapped to %s", at, name, to)
			}
			if l == "tuple" || l == "set" {
				if l == "set" && get(n, "uniqueItems") == nil {
					set(n, "uniqueItems", boolNode(true))
				}
			}
			return to, to != ""
		}
		return name, true // left for lint to report
	}
	switch ty.Kind {
	case yaml.ScalarNode:
		to, ok := fix(ty.Value)
		if !ok {
			del(n, "type")
		} else if to != ty.Value {
			set(n, "type", strNode(to))
		}
	case yaml.SequenceNode:
		var out []*yaml.Node
		have := map[string]bool{}
		for _, c := range ty.Content {
			to, ok := fix(c.Value)
			if !ok {
				del(n, "type") // any of them means any
				return
			}
			if !have[to] {
				have[to] = true
				out = append(out, strNode(to))
			}
		}
		set(n, "type", &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: ty.Style, Content: out})
	}
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
