package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/toolcat/toolcat/internal/jsonptr"
)

// printer formats schema errors (jsonschema needs one).
var printer = message.NewPrinter(language.English)

// schema is a compiled JSON Schema together with its decoded document, from
// which arguments are generated.
type schema struct {
	compiled *jsonschema.Schema
	doc      any
}

// compileSchema compiles raw as the runtime does (draft 2020-12, formats
// asserted). It returns nil for an empty schema.
func compileSchema(tool, kind string, raw json.RawMessage) (*schema, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%s schema: %w", kind, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	url := "mem://conformance/" + tool + "/" + kind + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("%s schema: %w", kind, err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("%s schema: %w", kind, err)
	}
	return &schema{compiled: sch, doc: doc}, nil
}

// refusesAt reports whether the compiled subschema sub refuses the JSON
// value b. When sub applies to a place of the arguments whatever the rest
// holds (it is reached from the root through properties and items only), a
// document with b at that place is refused too. false when sub is nil.
func refusesAt(sub *jsonschema.Schema, b []byte) bool {
	if sub == nil {
		return false
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	return err == nil && sub.Validate(v) != nil
}

// validateJSON validates the JSON document b; it returns nil when it is
// valid, else the reasons in one line.
func (s *schema) validateJSON(b []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	if err := s.compiled.Validate(v); err != nil {
		if ve, ok := err.(*jsonschema.ValidationError); ok {
			return fmt.Errorf("%s", leafMessages(ve))
		}
		return err
	}
	return nil
}

// validate validates a Go value by its JSON encoding.
func (s *schema) validate(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.validateJSON(b)
}

// leafMessages joins the innermost errors of ve as "at /ptr: message".
func leafMessages(ve *jsonschema.ValidationError) string {
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			ptr := "/" + strings.Join(e.InstanceLocation, "/")
			out = append(out, fmt.Sprintf("at %s: %s", ptr, e.ErrorKind.LocalizedString(printer)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Strings(out)
	if len(out) > 3 {
		out = append(out[:3], fmt.Sprintf("and %d more", len(out)-3))
	}
	return strings.Join(out, "; ")
}

// resolve follows $ref (local JSON pointers only) and merges allOf into one
// schema map, so that generation sees the keywords that apply. It returns
// nil for a schema it cannot read (true, or an unresolvable reference),
// false for the schema false.
func resolve(root, s any, depth int) (map[string]any, bool) {
	if depth > 16 {
		return nil, true
	}
	switch s := s.(type) {
	case bool:
		return nil, s
	case map[string]any:
		out := s
		if ref, ok := s["$ref"].(string); ok {
			target, found := pointerGet(root, ref)
			if !found {
				return nil, true
			}
			t, ok := resolve(root, target, depth+1)
			if !ok {
				return nil, false
			}
			out = merge(t, without(s, "$ref"))
		}
		if all, ok := out["allOf"].([]any); ok {
			m := without(out, "allOf")
			for _, sub := range all {
				t, ok := resolve(root, sub, depth+1)
				if !ok {
					return nil, false
				}
				m = merge(m, t)
			}
			out = m
		}
		return out, true
	}
	return nil, true
}

// pointerGet returns the value at a local reference "#/a/b" of root.
func pointerGet(root any, ref string) (any, bool) {
	ptr, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, false
	}
	return jsonptr.Get(root, ptr)
}

func without(m map[string]any, key string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if k != key {
			out[k] = v
		}
	}
	return out
}

// merge combines two schemas' keywords: properties are united, required
// lists joined, and other keywords of b win.
func merge(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		switch k {
		case "properties":
			pa, _ := out[k].(map[string]any)
			pb, _ := v.(map[string]any)
			m := map[string]any{}
			for n, s := range pa {
				m[n] = s
			}
			for n, s := range pb {
				m[n] = s
			}
			out[k] = m
		case "required":
			ra, _ := out[k].([]any)
			rb, _ := v.([]any)
			out[k] = append(append([]any{}, ra...), rb...)
		default:
			out[k] = v
		}
	}
	return out
}

// types returns the JSON types a schema allows by its type keyword; nil when
// it has none.
func types(s map[string]any) []string {
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if str, ok := x.(string); ok {
				out = append(out, str)
			}
		}
		return out
	}
	return nil
}

func hasType(ts []string, t string) bool {
	for _, x := range ts {
		if x == t || t == "integer" && x == "number" {
			return true
		}
	}
	return false
}

// num reads a number keyword.
func num(s map[string]any, kw string) (float64, bool) {
	switch v := s[kw].(type) {
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	case float64:
		return v, true
	case int:
		return float64(v), true
	}
	return 0, false
}

// count reads a non-negative integer keyword (minLength, maxItems...).
func count(s map[string]any, kw string) (int, bool) {
	f, ok := num(s, kw)
	if !ok || f < 0 || f > math.MaxInt32 {
		return 0, false
	}
	return int(f), true
}

// jsonType names the JSON type of a decoded value.
func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if _, err := v.Int64(); err == nil {
			return "integer"
		}
		return "number"
	case float64:
		if v == math.Trunc(v) {
			return "integer"
		}
		return "number"
	case int, int64:
		return "integer"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
