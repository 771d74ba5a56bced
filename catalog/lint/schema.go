package lint

import (
	"strconv"
	"strings"

	"github.com/toolcat/toolcat/catalog"
)

// schemaRef is one (sub)schema inside a tool's args or result schema.
type schemaRef struct {
	// Root is "args" or "result".
	Root string
	// Ptr is the JSON pointer of the schema inside its root, "" for the
	// root itself.
	Ptr string
	// Node is the schema; its Kind is always Object.
	Node *catalog.Node
	// KeyPos is where the schema is named: the key of the property or
	// keyword holding it, or the schema itself for the root and array
	// members.
	KeyPos catalog.Pos
	// Depth counts the objects and arrays from the root down to this
	// schema, the root object being 1. Combinators (anyOf, allOf...) and
	// $defs add no level.
	Depth int
	// Property is the property name when the schema is a property's.
	Property string
	// InDefs is true inside $defs or definitions.
	InDefs bool
}

// where names the schema for messages: `args`, `args/properties/query`.
func (s schemaRef) where() string {
	return s.Root + s.Ptr
}

// The keywords holding subschemas, by shape.
var (
	singleSchemaKeywords = catalog.SchemaKeywords
	mapSchemaKeywords    = catalog.SchemaMapKeywords
	listSchemaKeywords   = catalog.SchemaListKeywords
)

// walkSchema calls fn for the tool's schema rootName ("args" or "result")
// and every subschema below it, depth first in source order. Boolean
// schemas are skipped. fn returns false to skip the children of a schema.
func walkSchema(t *catalog.Tool, rootName string, fn func(s schemaRef) bool) {
	root := t.Args
	if rootName == "result" {
		root = t.Result
	}
	if root == nil || root.Kind != catalog.Object {
		return
	}
	walkSchemaNode(schemaRef{Root: rootName, Node: root, KeyPos: t.PosOf(rootName), Depth: 1}, fn)
}

func walkSchemaNode(s schemaRef, fn func(schemaRef) bool) {
	if !fn(s) {
		return
	}
	for _, f := range s.Node.Fields {
		key := f.Key
		v := f.Value
		ptr := s.Ptr + catalog.Pointer(key)
		switch {
		case isOneOf(key, mapSchemaKeywords):
			if v.Kind != catalog.Object {
				continue
			}
			for _, m := range v.Fields {
				if m.Value.Kind != catalog.Object {
					continue
				}
				child := schemaRef{Root: s.Root, Ptr: ptr + catalog.Pointer(m.Key), Node: m.Value, KeyPos: m.KeyPos, Depth: s.Depth, InDefs: s.InDefs}
				switch key {
				case "properties", "patternProperties":
					child.Depth = s.Depth + 1
					child.Property = m.Key
				case "$defs", "definitions":
					child.InDefs = true
				}
				walkSchemaNode(child, fn)
			}
		case isOneOf(key, listSchemaKeywords):
			if v.Kind != catalog.Array {
				continue
			}
			for i, it := range v.Items {
				if it.Kind != catalog.Object {
					continue
				}
				child := schemaRef{Root: s.Root, Ptr: ptr + "/" + strconv.Itoa(i), Node: it, KeyPos: it.Pos, Depth: s.Depth, InDefs: s.InDefs, Property: s.Property}
				if key == "prefixItems" {
					child.Depth, child.Property = s.Depth+1, ""
				}
				walkSchemaNode(child, fn)
			}
		case isOneOf(key, singleSchemaKeywords):
			if key == "items" && v.Kind == catalog.Array { // draft 4-7 tuple form
				for i, it := range v.Items {
					if it.Kind == catalog.Object {
						walkSchemaNode(schemaRef{Root: s.Root, Ptr: ptr + "/" + strconv.Itoa(i), Node: it, KeyPos: it.Pos, Depth: s.Depth + 1, InDefs: s.InDefs}, fn)
					}
				}
				continue
			}
			if v.Kind != catalog.Object {
				continue
			}
			child := schemaRef{Root: s.Root, Ptr: ptr, Node: v, KeyPos: f.KeyPos, Depth: s.Depth, InDefs: s.InDefs}
			switch key {
			case "items", "additionalItems", "unevaluatedItems", "contains", "additionalProperties", "unevaluatedProperties":
				child.Depth = s.Depth + 1
			case "not", "if", "then", "else":
				child.Property = s.Property
			}
			walkSchemaNode(child, fn)
		}
	}
}

func isOneOf(s string, list []string) bool {
	for _, x := range list {
		if s == x {
			return true
		}
	}
	return false
}

// namedSchema is one of a tool's root schemas: args or result.
type namedSchema struct {
	name string
	node *catalog.Node
}

// toolSchemas lists the tool's root schemas: args, and result when set.
func toolSchemas(t *catalog.Tool) []namedSchema {
	out := []namedSchema{{"args", t.Args}}
	if t.Result != nil {
		out = append(out, namedSchema{"result", t.Result})
	}
	return out
}

// forEachSchema adapts a per-schema check into a rule's Check: it visits
// every (sub)schema of every tool's args and, when argsOnly is false,
// result.
func forEachSchema(argsOnly bool, check func(p *Pass, t *catalog.Tool, s schemaRef)) func(*Pass) {
	return forEachTool(func(p *Pass, t *catalog.Tool) {
		for _, r := range toolSchemas(t) {
			if argsOnly && r.name != "args" {
				continue
			}
			for _, s := range p.schemas(t, r.name) {
				check(p, t, s)
			}
		}
	})
}

// schemas returns every (sub)schema of a tool's args or result, as
// walkSchema visits them. A run walks each schema once and shares the list
// among its rules.
func (p *Pass) schemas(t *catalog.Tool, root string) []schemaRef {
	key := schemaKey{t, root}
	if p.shared != nil {
		if refs, ok := p.shared.schemas[key]; ok {
			return refs
		}
	}
	var refs []schemaRef
	walkSchema(t, root, func(s schemaRef) bool {
		refs = append(refs, s)
		return true
	})
	if p.shared != nil {
		p.shared.schemas[key] = refs
	}
	return refs
}

type schemaKey struct {
	tool *catalog.Tool
	root string
}

// propRef is one declared property of an object schema.
type propRef struct {
	// Object is the schema declaring the property.
	Object schemaRef
	Name   string
	Field  *catalog.Field
	// Schema is the property's schema; nil when it is a boolean schema.
	Schema *catalog.Node
	// Required is true when the object lists the property in required.
	Required bool
}

// forEachProperty adapts a per-property check into a rule's Check: it
// visits every entry of every "properties" keyword in the tool's args
// and, when argsOnly is false, result.
func forEachProperty(argsOnly bool, check func(p *Pass, t *catalog.Tool, pr propRef)) func(*Pass) {
	return forEachSchema(argsOnly, func(p *Pass, t *catalog.Tool, s schemaRef) {
		props := s.Node.Get("properties")
		if props == nil || props.Kind != catalog.Object {
			return
		}
		req := requiredNames(s.Node)
		for _, f := range props.Fields {
			pr := propRef{Object: s, Name: f.Key, Field: f, Required: req[f.Key]}
			if f.Value.Kind == catalog.Object {
				pr.Schema = f.Value
			}
			check(p, t, pr)
		}
	})
}

func requiredNames(n *catalog.Node) map[string]bool {
	req := n.Get("required")
	if req == nil || req.Kind != catalog.Array {
		return nil
	}
	m := make(map[string]bool, len(req.Items))
	for _, it := range req.Items {
		if it.Kind == catalog.String {
			m[it.Str] = true
		}
	}
	return m
}

func hasType(n *catalog.Node, typ string) bool {
	for _, x := range n.SchemaTypes() {
		if x == typ {
			return true
		}
	}
	return false
}

// isObjectSchema reports whether a schema describes objects: it says
// type object, or declares properties without saying a type.
func isObjectSchema(n *catalog.Node) bool {
	if hasType(n, "object") {
		return true
	}
	return n.Get("type") == nil && (n.Get("properties") != nil || n.Get("required") != nil)
}

// isFalse reports whether keyword kw of n is the boolean false.
func isFalse(n *catalog.Node, kw string) bool {
	v := n.Get(kw)
	return v != nil && v.Kind == catalog.Bool && !v.Bool
}

// nameWords splits a name into lower-case words at _, -, ., spaces and
// camelCase boundaries: "getUser-v2" → get, user, v2.
func nameWords(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(name)
	for i, r := range rs {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ' || r == '/' || r == ':':
			flush()
		case r >= 'A' && r <= 'Z':
			// A new word starts at an upper-case letter after a lower-case
			// one or a digit, or before a lower-case one in an acronym run.
			if i > 0 && len(cur) > 0 {
				prev := rs[i-1]
				nextLower := i+1 < len(rs) && rs[i+1] >= 'a' && rs[i+1] <= 'z'
				if (prev >= 'a' && prev <= 'z') || (prev >= '0' && prev <= '9') || (prev >= 'A' && prev <= 'Z' && nextLower) {
					flush()
				}
			}
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return words
}

// estimateTokens estimates how many tokens a model's tokenizer makes of s.
// It takes the larger of two rules of thumb for BPE tokenizers on English
// text and JSON: one token per 4 bytes, and 4 tokens per 3 words (runs of
// letters and digits). Taking the larger keeps the estimate on the safe
// side for both prose (word-bound) and punctuation-heavy JSON
// (byte-bound). It is an estimate, good to about 20%.
func estimateTokens(s string) int {
	words := 0
	in := false
	for _, r := range s {
		w := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r > 127
		if w && !in {
			words++
		}
		in = w
	}
	byBytes := (len(s) + 3) / 4
	byWords := (words*4 + 2) / 3
	return max(byBytes, byWords)
}

// didYouMean formats the suggestion of closest, or "".
func didYouMean(name string, candidates []string) string {
	if c := catalog.Closest(name, candidates); c != "" {
		return "; did you mean " + strconv.Quote(c) + "?"
	}
	return ""
}

// quoteList formats names as "a", "b" and "c".
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	switch len(q) {
	case 0:
		return ""
	case 1:
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}
