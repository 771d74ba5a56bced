package export

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolcat/toolcat/internal/jsonptr"
	"github.com/toolcat/toolcat/runtime"
)

// OpenAIChat returns the "tools" array of an OpenAI Chat Completions
// request:
//
//	[{"type": "function", "function": {"name", "description", "parameters", "strict": true}}]
//
// "strict": true is written only for tools whose args schema qualifies for
// Structured Outputs (StrictProblem returns ""); for the others it is left
// out, which the API reads as false.
//
// Chat Completions has no deferred tools: with DeferHidden it returns an
// error wrapping ErrDeferUnsupported (use OpenAIResponses).
func OpenAIChat(metas []runtime.Meta, opts ...Option) ([]byte, error) {
	o := newOptions(opts)
	if o.deferHidden {
		return nil, deferUnsupported("OpenAIChat", "Chat Completions takes no defer_loading and no tool_search; the Responses API does (OpenAIResponses)")
	}
	tools, err := prepare(metas, o, openAINames)
	if err != nil {
		return nil, err
	}
	out := array()
	for _, t := range tools {
		params, strict := openAIParameters(t)
		fn := withDescription(object().set("name", str(t.meta.WireName())), t.desc).set("parameters", params)
		if strict {
			fn.set("strict", boolean(true))
		}
		out.items = append(out.items, object().set("type", str("function")).set("function", fn))
	}
	return render(out), nil
}

// OpenAIResponses returns the "tools" array of an OpenAI Responses API
// request:
//
//	[{"type": "function", "name", "description", "parameters", "strict"}]
//
// The Responses API treats a missing "strict" as true, so it is always
// written: true when the args schema qualifies for Structured Outputs,
// false otherwise.
//
// With DeferHidden, hidden functions are included with "defer_loading":
// true, their parameters and strict as without the option, and the hosted
// tool-search tool {"type": "tool_search"} comes last.
func OpenAIResponses(metas []runtime.Meta, opts ...Option) ([]byte, error) {
	o := newOptions(opts)
	tools, err := prepare(metas, o, openAINames)
	if err != nil {
		return nil, err
	}
	search, err := openAISearchTool(o, tools)
	if err != nil {
		return nil, err
	}
	out := array()
	spaces, err := openAINamespaces(o, tools)
	if err != nil {
		return nil, err
	}
	for _, t := range tools {
		params, strict := openAIParameters(t)
		fn := withDescription(object().set("type", str("function")).set("name", str(t.meta.WireName())), t.desc)
		fn.set("parameters", params).set("strict", boolean(strict))
		if o.deferred(t) {
			fn.set("defer_loading", boolean(true))
		}
		if ns := spaces.of(o, t); ns != nil {
			ns.items = append(ns.items, fn)
			continue
		}
		out.items = append(out.items, fn)
	}
	for _, ns := range spaces.list {
		out.items = append(out.items, ns)
	}
	if search != nil {
		out.items = append(out.items, search)
	}
	return render(out), nil
}

// openAIParameters is the args schema less the "$schema" and "$comment"
// annotations, which address tooling, not the model, and whether it
// qualifies for strict mode. The idempotency_key argument takes its strict
// form when that makes the schema qualify.
func openAIParameters(t tool) (*node, bool) {
	p := t.args.clone()
	eachSchema(p, func(n *node) {
		n.del("$schema")
		n.del("$comment")
	})
	if StrictProblem(rawOf(p)) == "" {
		return p, true
	}
	if t.meta.IdempotencyKeyArg {
		if s := keyArgStrict(t.meta, p); StrictProblem(rawOf(s)) == "" {
			return s, true
		}
	}
	return p, false
}

// eachSchema calls f on the schema n and on every schema inside it (not on
// values such as enum, const or default, nor on property names).
func eachSchema(n *node, f func(*node)) {
	if n == nil || n.kind != 'o' {
		return
	}
	f(n)
	for i, k := range n.keys {
		v := n.vals[i]
		switch k {
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas":
			if v.kind == 'o' {
				for _, s := range v.vals {
					eachSchema(s, f)
				}
			}
		case "items", "prefixItems", "anyOf", "oneOf", "allOf":
			if v.kind == 'a' {
				for _, s := range v.items {
					eachSchema(s, f)
				}
			} else {
				eachSchema(v, f)
			}
		case "not", "if", "then", "else", "additionalProperties", "additionalItems", "contains",
			"propertyNames", "unevaluatedItems", "unevaluatedProperties":
			eachSchema(v, f)
		}
	}
}

// strictKeywords are the keywords OpenAI Structured Outputs accepts.
// "default", "minLength", "maxLength" and "uniqueItems" are left out: the
// API rejects them in strict mode (some deployments reject "default" only).
var strictKeywords = []string{
	"type", "description", "title", "properties", "required", "additionalProperties",
	"items", "enum", "const", "anyOf", "$ref", "$defs", "definitions",
	"pattern", "format", "multipleOf", "minimum", "maximum", "exclusiveMinimum",
	"exclusiveMaximum", "minItems", "maxItems",
}

// strictFormats are the string formats Structured Outputs accepts.
var strictFormats = []string{"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}

// The size limits of a strict schema.
const (
	strictMaxDepth      = 10   // levels of nested objects
	strictMaxProperties = 5000 // properties in all
	strictMaxEnumValues = 1000 // enum values in all
)

// StrictProblem returns why an args schema does not qualify for OpenAI's
// Structured Outputs (strict function calling), or "" when it does. A schema
// qualifies when:
//
//   - its top is an object without anyOf;
//   - every object sets "additionalProperties": false and lists every
//     property in "required" (optional ones are typed [T, "null"]);
//   - every schema has a type, an enum or const, anyOf or a local $ref;
//     "type" is one type, or one type and "null"; an array has items;
//   - a $ref stands alone, without keywords such as "description" beside it;
//   - it uses only the keywords OpenAI lists as supported (type,
//     description, title, properties, required, additionalProperties,
//     items, enum, const, anyOf, $ref, $defs, definitions, pattern, format,
//     multipleOf, minimum, maximum, exclusiveMinimum, exclusiveMaximum,
//     minItems, maxItems) and the listed string formats (date-time, time,
//     date, duration, email, hostname, ipv4, ipv6, uuid), so "default",
//     "minLength", "maxLength" and "uniqueItems" disqualify it;
//   - it stays within 10 levels of nested objects, 5000 properties and
//     1000 enum values.
//
// The schema is taken as OpenAIChat sends it: pass the args schema without
// "$schema" or "$comment".
func StrictProblem(schema []byte) string {
	root, err := parse(schema)
	if err != nil {
		return "the schema is not JSON: " + err.Error()
	}
	if root.kind != 'o' || root.get("type").text() != "object" {
		return "the top of the schema is not an object"
	}
	if root.get("anyOf") != nil {
		return "anyOf at the top of the schema"
	}
	c := strictChecker{}
	c.check(root, "", 0)
	if c.props > strictMaxProperties {
		return fmt.Sprintf("%d properties, more than %d", c.props, strictMaxProperties)
	}
	if c.enums > strictMaxEnumValues {
		return fmt.Sprintf("%d enum values, more than %d", c.enums, strictMaxEnumValues)
	}
	return c.problem
}

type strictChecker struct {
	problem      string
	props, enums int
}

func (c *strictChecker) fail(format string, args ...any) {
	if c.problem == "" {
		c.problem = fmt.Sprintf(format, args...)
	}
}

// check looks at the schema n at JSON pointer at, depth objects deep.
func (c *strictChecker) check(n *node, at string, depth int) {
	where := at
	if where == "" {
		where = "the top"
	}
	if n.kind != 'o' {
		c.fail("schema at %s is not an object", where)
		return
	}
	for _, k := range n.keys {
		if !slices.Contains(strictKeywords, k) {
			c.fail("%q at %s is not supported", k, where)
		}
	}
	ty := n.get("type")
	var types []string
	switch {
	case ty == nil:
		if n.get("enum") == nil && n.get("const") == nil && n.get("anyOf") == nil && n.get("$ref") == nil {
			c.fail("schema at %s has no type", where)
		}
	case ty.kind == 's':
		types = []string{ty.str}
	case ty.kind == 'a':
		named := 0
		for _, t := range ty.items {
			types = append(types, t.text())
			if t.text() != "null" {
				named++
			}
		}
		if named > 1 {
			c.fail("type %s at %s names more than one type besides null", ty, where)
		}
	}
	if f := n.get("format"); f != nil && !slices.Contains(strictFormats, f.text()) {
		c.fail("format %s at %s is not supported", f, where)
	}
	if r := n.get("$ref"); r != nil {
		if !strings.HasPrefix(r.text(), "#") {
			c.fail("$ref %s at %s is not local", r, where)
		}
		if len(n.keys) > 1 {
			c.fail("$ref at %s has other keywords beside it", where)
		}
	}
	if e := n.get("enum"); e != nil {
		c.enums += len(e.items)
	}
	if slices.Contains(types, "object") || n.get("properties") != nil {
		if depth+1 > strictMaxDepth {
			c.fail("objects nested more than %d deep at %s", strictMaxDepth, where)
		}
		if !n.get("additionalProperties").isFalse() {
			c.fail("object at %s lacks \"additionalProperties\": false", where)
		}
		req := map[string]bool{}
		if r := n.get("required"); r != nil {
			for _, x := range r.items {
				req[x.text()] = true
			}
		}
		if props := n.get("properties"); props != nil && props.kind == 'o' {
			for i, k := range props.keys {
				c.props++
				if !req[k] {
					c.fail("property %q at %s is not in required", k, where)
				}
				c.check(props.vals[i], jsonptr.Append(at, "properties", k), depth+1)
			}
		}
	}
	if items := n.get("items"); items == nil {
		if slices.Contains(types, "array") {
			c.fail("array at %s has no items", where)
		}
	} else {
		if items.kind == 'a' {
			c.fail("items at %s is a tuple", where)
		} else {
			c.check(items, at+"/items", depth)
		}
	}
	if alts := n.get("anyOf"); alts != nil {
		for i, b := range alts.items {
			c.check(b, fmt.Sprintf("%s/anyOf/%d", at, i), depth)
		}
	}
	for _, defs := range []string{"$defs", "definitions"} {
		if d := n.get(defs); d != nil && d.kind == 'o' {
			for i, k := range d.keys {
				c.check(d.vals[i], jsonptr.Append(at, defs, k), depth)
			}
		}
	}
}
