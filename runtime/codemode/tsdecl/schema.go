package tsdecl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// maxDepth bounds how deep a schema is written; deeper parts are unknown.
const maxDepth = 24

// object is a JSON object with its members in the order written, so that
// arguments are declared in the order the catalog gives them.
type object struct {
	keys []string
	vals map[string]any
}

func (o *object) get(k string) (any, bool) {
	if o == nil {
		return nil, false
	}
	v, ok := o.vals[k]
	return v, ok
}

// parseOrdered decodes JSON keeping the order of object members; numbers
// stay as written (json.Number).
func parseOrdered(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := parseValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, fmt.Errorf("text after the schema")
	}
	return v, nil
}

func parseValue(dec *json.Decoder, depth int) (any, error) {
	if depth > 10*maxDepth {
		return nil, fmt.Errorf("the schema nests too deep")
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &object{vals: map[string]any{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := parseValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				if _, dup := o.vals[k]; !dup {
					o.keys = append(o.keys, k)
				}
				o.vals[k] = v
			}
			_, err := dec.Token()
			return o, err
		case '[':
			var a []any
			for dec.More() {
				v, err := parseValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token()
			return a, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return tok, nil
	}
}

// conv writes the TypeScript type of a schema, following local $refs
// from the root.
type conv struct {
	root     any
	visiting map[string]bool
}

func newConv(root any) *conv { return &conv{root: root, visiting: map[string]bool{}} }

// typ returns the type of schema s written at nesting depth.
func (c *conv) typ(s any, depth int) string {
	if depth > maxDepth {
		return "unknown"
	}
	switch s := s.(type) {
	case bool:
		if s {
			return "unknown"
		}
		return "never"
	case *object:
		return c.objectSchema(s, depth)
	}
	return "unknown"
}

func (c *conv) objectSchema(s *object, depth int) string {
	if ref, ok := s.get("$ref"); ok {
		r, _ := ref.(string)
		target, found := c.resolve(r)
		if !found || c.visiting[r] {
			return "unknown"
		}
		c.visiting[r] = true
		defer delete(c.visiting, r)
		return c.typ(target, depth)
	}
	if v, ok := s.get("const"); ok {
		return literal(v)
	}
	if e, ok := s.get("enum"); ok {
		if vals, ok := e.([]any); ok && len(vals) > 0 {
			lits := make([]string, len(vals))
			for i, v := range vals {
				lits[i] = literal(v)
			}
			return strings.Join(dedupe(lits), " | ")
		}
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := s.get(k); ok {
			if list, ok := alts.([]any); ok && len(list) > 0 {
				var parts []string
				for _, a := range list {
					parts = append(parts, paren(c.typ(a, depth)))
				}
				return strings.Join(dedupe(parts), " | ")
			}
		}
	}
	if all, ok := s.get("allOf"); ok {
		if list, ok := all.([]any); ok && len(list) > 0 {
			var parts []string
			for _, a := range list {
				parts = append(parts, paren(c.typ(a, depth)))
			}
			if rest := withoutKeys(s, "allOf"); len(rest.keys) > 0 && hasShape(rest) {
				parts = append(parts, paren(c.typ(rest, depth)))
			}
			return strings.Join(parts, " & ")
		}
	}
	var types []string
	switch t := s.vals["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, x := range t {
			if str, ok := x.(string); ok {
				types = append(types, str)
			}
		}
	}
	if len(types) == 0 {
		switch {
		case has(s, "properties"), has(s, "additionalProperties"), has(s, "required"):
			types = []string{"object"}
		case has(s, "items"), has(s, "prefixItems"):
			types = []string{"array"}
		default:
			return "unknown"
		}
	}
	var parts []string
	for _, t := range types {
		parts = append(parts, c.ofType(t, s, depth))
	}
	return strings.Join(dedupe(parts), " | ")
}

func (c *conv) ofType(t string, s *object, depth int) string {
	switch t {
	case "string":
		return "string"
	case "integer", "number":
		return "number"
	case "boolean":
		return "boolean"
	case "null":
		return "null"
	case "array":
		return c.array(s, depth)
	case "object":
		return c.object(s, depth)
	}
	return "unknown"
}

func (c *conv) array(s *object, depth int) string {
	if pre, ok := s.get("prefixItems"); ok {
		if list, ok := pre.([]any); ok {
			var parts []string
			for _, p := range list {
				parts = append(parts, c.typ(p, depth))
			}
			if it, ok := s.get("items"); ok && it != false {
				parts = append(parts, "..."+paren(c.typ(it, depth))+"[]")
			}
			return "[" + strings.Join(parts, ", ") + "]"
		}
	}
	it, ok := s.get("items")
	if !ok {
		return "unknown[]"
	}
	return paren(c.typ(it, depth)) + "[]"
}

func (c *conv) object(s *object, depth int) string {
	props, _ := s.vals["properties"].(*object)
	required := map[string]bool{}
	if r, ok := s.vals["required"].([]any); ok {
		for _, x := range r {
			if name, ok := x.(string); ok {
				required[name] = true
			}
		}
	}
	ind := strings.Repeat("  ", depth+1)
	var b strings.Builder
	b.WriteString("{\n")
	if props != nil {
		for _, k := range props.keys {
			p := props.vals[k]
			var doc []string
			if po, ok := p.(*object); ok {
				doc = propDoc(po)
			}
			writeDoc(&b, ind, doc)
			opt := "?"
			if required[k] {
				opt = ""
			}
			fmt.Fprintf(&b, "%s%s%s: %s;\n", ind, member(k), opt, c.typ(p, depth+1))
		}
	}
	extra, hasExtra := s.get("additionalProperties")
	_, patterned := s.get("patternProperties")
	switch {
	case patterned:
		fmt.Fprintf(&b, "%s[key: string]: unknown;\n", ind)
	case hasExtra && extra != false && extra != true:
		fmt.Fprintf(&b, "%s[key: string]: %s;\n", ind, c.typ(extra, depth+1))
	case props == nil && extra != false:
		fmt.Fprintf(&b, "%s[key: string]: unknown;\n", ind)
	}
	if b.Len() == 2 {
		return "{}"
	}
	b.WriteString(strings.Repeat("  ", depth) + "}")
	return b.String()
}

// resolve follows a local reference, "#/$defs/name" or any JSON pointer
// into the root.
func (c *conv) resolve(ref string) (any, bool) {
	p, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, false
	}
	cur := c.root
	if p == "" {
		return cur, true
	}
	for _, tok := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch v := cur.(type) {
		case *object:
			next, ok := v.vals[tok]
			if !ok {
				return nil, false
			}
			cur = next
		default:
			return nil, false
		}
	}
	return cur, true
}

// propDoc is the doc comment of a member: its description, then its
// constraints in one line.
func propDoc(s *object) []string {
	var doc []string
	if d, ok := s.vals["description"].(string); ok && strings.TrimSpace(d) != "" {
		doc = append(doc, strings.Split(strings.TrimSpace(d), "\n")...)
	}
	var cons []string
	for _, k := range []struct{ key, say string }{
		{"minimum", "minimum"}, {"exclusiveMinimum", "above"}, {"maximum", "maximum"}, {"exclusiveMaximum", "below"},
		{"multipleOf", "multiple of"}, {"minLength", "at least %s characters"}, {"maxLength", "at most %s characters"},
		{"minItems", "at least %s items"}, {"maxItems", "at most %s items"}, {"pattern", "pattern"}, {"format", "format"},
		{"uniqueItems", "unique items"}, {"default", "default"},
	} {
		v, ok := s.vals[k.key]
		if !ok {
			continue
		}
		lit := literal(v)
		switch {
		case k.key == "uniqueItems":
			if v == true {
				cons = append(cons, k.say)
			}
		case strings.Contains(k.say, "%s"):
			say := k.say
			if lit == "1" {
				say = strings.TrimSuffix(say, "s") // at least 1 character
			}
			cons = append(cons, fmt.Sprintf(say, lit))
		case k.key == "pattern" || k.key == "format":
			str, _ := v.(string)
			cons = append(cons, k.say+" "+str)
		default:
			cons = append(cons, k.say+" "+lit)
		}
	}
	if len(cons) > 0 {
		line := strings.Join(cons, ", ")
		doc = append(doc, strings.ToUpper(line[:1])+line[1:]+".")
	}
	return doc
}

// literal writes a JSON value as a TypeScript literal type.
func literal(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool, json.Number:
		return fmt.Sprint(v)
	case string:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.Encode(v) //nolint:errcheck // a string always encodes
		return strings.TrimSuffix(buf.String(), "\n")
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = literal(x)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *object:
		var parts []string
		for _, k := range v.keys {
			parts = append(parts, member(k)+": "+literal(v.vals[k]))
		}
		return "{ " + strings.Join(parts, "; ") + " }"
	}
	return "unknown"
}

func paren(t string) string {
	if strings.ContainsAny(t, "|&") && !strings.HasPrefix(t, "{") {
		return "(" + t + ")"
	}
	return t
}

func dedupe(xs []string) []string {
	var out []string
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func has(s *object, k string) bool { _, ok := s.vals[k]; return ok }

// hasShape reports whether s says anything about a value's type.
func hasShape(s *object) bool {
	for _, k := range []string{"type", "properties", "items", "enum", "const", "$ref", "additionalProperties"} {
		if has(s, k) {
			return true
		}
	}
	return false
}

func withoutKeys(s *object, drop ...string) *object {
	o := &object{vals: map[string]any{}}
	for _, k := range s.keys {
		if !slices.Contains(drop, k) {
			o.keys = append(o.keys, k)
			o.vals[k] = s.vals[k]
		}
	}
	return o
}
