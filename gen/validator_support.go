package gen

import (
	"fmt"
	"maps"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/runtime/jsonscan"
)

// What the one-pass validators support. A schema that uses anything the
// generator does not compile gets the general validator instead, and the
// generated file says why (see fallbackReasons).

// annotations are keywords that constrain nothing.
var annotations = map[string]bool{
	"description": true, "title": true, "examples": true, "$comment": true,
	"deprecated": true, "readOnly": true, "writeOnly": true, "default": true,
	"$schema": true, "$id": true, "$defs": true, "definitions": true, "nullable": true,
}

// fallbackReasons lists what the one-pass validator would not check in the
// tool's args schema: the keywords the type builder noted, and shapes the
// generator does not compile.
func fallbackReasons(t *toolModel) []string {
	r := map[string]bool{}
	for _, k := range t.general {
		r[k] = true
	}
	c := &checker{reasons: r, visiting: map[*goType]bool{}}
	root := t.t.Args
	if root == nil || root.SchemaTypes() == nil || len(root.SchemaTypes()) != 1 || root.SchemaTypes()[0] != "object" {
		r[`an args schema without "type": "object"`] = true
	} else {
		c.object(root, t.args, true, t.t.AdditionalArgs)
	}
	return slices.Sorted(maps.Keys(r))
}

// checker walks a schema alongside its Go types, noting what the one-pass
// validator cannot check.
type checker struct {
	reasons  map[string]bool
	visiting map[*goType]bool
}

func (c *checker) add(format string, args ...any) { c.reasons[fmt.Sprintf(format, args...)] = true }

// only notes the keywords of s outside allowed and the annotations.
func (c *checker) only(s *catalog.Node, what string, allowed ...string) {
	for _, f := range s.Fields {
		if !annotations[f.Key] && !slices.Contains(allowed, f.Key) {
			c.add("%s on %s", f.Key, what)
		}
	}
}

// value checks the schema s of one value (a property, an item, a map
// value) mapped to t.
func (c *checker) value(s *catalog.Node, t *goType) {
	if s == nil {
		return
	}
	if s.Kind == catalog.Bool {
		if !s.Bool {
			c.add("false schemas")
		}
		return
	}
	if s.Kind != catalog.Object {
		c.add("a schema that is not an object")
		return
	}
	if _, ok := s.Get("$ref").StringValue(); ok {
		c.only(s, "a $ref", "$ref")
		if t.Kind == kAny && t.Schema == nil {
			c.add("$ref outside the schema")
			return
		}
		if t.Recursive {
			c.add("recursive $ref")
			return
		}
		c.value(t.Schema, t)
		return
	}
	if inner, ok := nullableInner(s); ok {
		if s.Get("anyOf") != nil || s.Get("oneOf") != nil {
			c.only(s, "a nullable anyOf", "anyOf", "oneOf")
		}
		s = inner
		if _, ok := s.Get("$ref").StringValue(); ok {
			c.value(s, t)
			return
		}
	}
	types := s.SchemaTypes()
	switch t.Kind {
	case kUnion:
		if s.Get("anyOf") != nil {
			c.add("anyOf")
		}
		if s.Get("oneOf") != nil {
			c.add("oneOf")
		}
		if len(types) > 1 {
			c.add("a type list")
		}
		return
	case kAny:
		if len(types) == 0 {
			c.only(s, "a value without type")
		} else {
			c.add("type %s", strings.Join(types, ", "))
		}
		return
	}
	if len(types) == 0 {
		switch {
		case t.Kind == kEnum:
			c.scalarKeywords(s, t)
		case s.Get("const") != nil:
			c.only(s, "a const without type", "const")
			c.constValue(s, t)
		default:
			c.add(`a %s schema without "type"`, describeKind(t.Kind))
		}
		return
	}
	switch t.Kind {
	case kStruct:
		if c.visiting[t] {
			c.add("recursive $ref")
			return
		}
		c.visiting[t] = true
		c.object(s, t, false, "")
		delete(c.visiting, t)
	case kMap:
		c.only(s, "a map", "type", "properties", "additionalProperties")
		if ap := s.Get("additionalProperties"); ap != nil && ap.Kind == catalog.Object {
			c.value(ap, t.Elem)
		}
	case kSlice:
		c.only(s, "an array", "type", "items", "minItems", "maxItems", "uniqueItems")
		c.value(s.Get("items"), t.Elem)
		if u := s.Get("uniqueItems"); u != nil && u.Kind == catalog.Bool && u.Bool {
			switch t.Elem.Kind {
			case kBool, kInt, kFloat, kString, kEnum:
				if _, nullable := nullableInner(s.Get("items")); nullable {
					c.add("uniqueItems on nullable items")
				}
			default:
				c.add("uniqueItems on items of type %s", describeKind(t.Elem.Kind))
			}
		}
	default:
		c.scalarKeywords(s, t)
	}
}

func describeKind(k kind) string {
	switch k {
	case kBool:
		return "boolean"
	case kInt:
		return "integer"
	case kFloat:
		return "number"
	case kString, kEnum:
		return "string"
	case kTime:
		return "date-time"
	case kStruct:
		return "object"
	case kMap:
		return "map"
	case kSlice:
		return "array"
	}
	return "any"
}

// scalarKeywords checks the keywords of a boolean, number or string.
func (c *checker) scalarKeywords(s *catalog.Node, t *goType) {
	switch t.Kind {
	case kBool:
		c.only(s, "a boolean", "type", "const")
	case kInt, kFloat:
		c.only(s, "a number", "type", "const", "enum", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "format")
		if e := s.Get("enum"); e != nil {
			if e.Kind != catalog.Array || len(e.Items) == 0 {
				c.add("enum")
			}
			for _, it := range e.Items {
				if it.Kind != catalog.Number || t.Kind == kFloat {
					c.add("enum on numbers")
					break
				}
				if _, err := jsonscan.ParseInt64([]byte(it.Num)); err != nil {
					c.add("enum on numbers")
					break
				}
			}
		}
		if m := s.Get("multipleOf"); m != nil {
			if f, ok := m.Float(); !ok || f <= 0 {
				c.add("multipleOf")
			}
		}
		for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
			if b := s.Get(k); b != nil {
				// Generated code compares numbers exactly with the bound's
				// float64, which must then be the bound as written.
				if _, ok := b.Float(); !ok || !exactFloat(b.Num) {
					c.add("%s that a float64 does not hold exactly", k)
				}
			}
		}
	case kString, kEnum, kTime:
		c.only(s, "a string", "type", "const", "enum", "minLength", "maxLength", "pattern", "format")
		if t.Kind != kEnum && s.Get("enum") != nil {
			c.add("enum on strings that are not all strings")
		}
		if p, ok := s.Get("pattern").StringValue(); ok {
			if _, err := regexp.Compile(p); err != nil {
				c.add("pattern %q, which Go does not compile", p)
			}
		}
		for _, k := range []string{"minLength", "maxLength"} {
			if n := s.Get(k); n != nil {
				if f, ok := n.Float(); !ok || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
					c.add("%s", k)
				}
			}
		}
	}
	if s.Get("const") != nil {
		c.constValue(s, t)
	}
}

func (c *checker) constValue(s *catalog.Node, t *goType) {
	v := s.Get("const")
	switch {
	case t.Kind == kBool && v.Kind == catalog.Bool,
		(t.Kind == kString || t.Kind == kEnum) && v.Kind == catalog.String:
	case t.Kind == kInt && v.Kind == catalog.Number:
		if _, err := jsonscan.ParseInt64([]byte(v.Num)); err != nil {
			c.add("const")
		}
	case t.Kind == kFloat && v.Kind == catalog.Number:
		if !exactFloat(v.Num) {
			c.add("const that a float64 does not hold exactly")
		}
	default:
		c.add("const of type %s", describeKind(t.Kind))
	}
}

// object checks an object schema with properties, mapped to the struct t.
func (c *checker) object(s *catalog.Node, t *goType, top bool, policy string) {
	allowed := []string{"type", "properties", "required", "additionalProperties"}
	c.only(s, "an object", allowed...)
	if t.Kind != kStruct {
		c.value(s, t)
		return
	}
	if len(t.Fields) > 64 {
		c.add("more than 64 properties in an object")
	}
	props := map[string]bool{}
	for _, fd := range t.Fields {
		props[fd.JSON] = true
		c.value(fd.Schema, fd.Type)
	}
	if r := s.Get("required"); r != nil {
		for _, it := range r.Items {
			if !props[it.Str] {
				c.add("required %q, which is not a property", it.Str)
			}
		}
	}
	if ap := s.Get("additionalProperties"); ap != nil && ap.Kind == catalog.Object {
		if !top || policy != "strip" || s.Get("properties") == nil {
			c.add("additionalProperties with a schema")
		}
	}
}

// exactFloat reports whether the number num as written is a float64
// exactly.
func exactFloat(num string) bool {
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return false
	}
	r, ok := new(big.Rat).SetString(num)
	return ok && r.Cmp(new(big.Rat).SetFloat64(f)) == 0
}

// formatAsserted reports whether the general validator asserts a format;
// it ignores the others.
func formatAsserted(f string) bool {
	switch f {
	case "json-pointer", "relative-json-pointer", "uuid", "duration", "period", "ipv4", "ipv6",
		"hostname", "email", "date", "time", "date-time", "uri", "iri", "uri-reference",
		"iri-reference", "uri-template", "semver", "regex":
		return true
	}
	return false
}
