package catalog

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// simpleKeywords are the keywords checkSimple understands; a schema with
// any other is left to the general validator.
var simpleKeywords = map[string]bool{
	"type": true, "enum": true, "const": true, "default": true, "description": true,
	"title": true, "examples": true, "minimum": true, "maximum": true,
	"exclusiveMinimum": true, "exclusiveMaximum": true, "minLength": true,
	"maxLength": true, "pattern": true, "deprecated": true, "readOnly": true,
	"writeOnly": true, "$comment": true,
}

// checkSimple validates a scalar value against a schema made only of
// simpleKeywords: most defaults and enum values sit in such a schema, and
// compiling a validator for each costs more than the rest of lint. It
// returns handled false when the schema or the value is not that simple,
// and otherwise the problem found ("" when valid).
func checkSimple(schema, v *Node) (problem string, handled bool) {
	if schema.Kind != Object || v.Kind == Object || v.Kind == Array {
		return "", false
	}
	if f, ok := v.Float(); v.Kind == Number && (!ok || math.Abs(f) >= 1e15 || f != 0 && math.Abs(f) < 1e-4) {
		// Beyond float64, or written by the general validator's messages
		// in its own way: it decides.
		return "", false
	}
	for _, f := range schema.Fields {
		if !simpleKeywords[f.Key] {
			return "", false
		}
	}
	if types := schema.SchemaTypes(); schema.Get("type") != nil {
		if types == nil {
			return "", false
		}
		ok := false
		for _, t := range types {
			if kindMatches(t, v) {
				ok = true
			}
		}
		if !ok {
			sorted := slices.Sorted(slices.Values(types))
			return fmt.Sprintf("got %s, want %s", jsonKind(v), strings.Join(sorted, " or ")), true
		}
	}
	if c := schema.Get("const"); c != nil && !sameValue(c, v) {
		return "value must be " + quoted(c), true
	}
	if e := schema.Get("enum"); e != nil {
		if e.Kind != Array {
			return "", false
		}
		found := false
		for _, it := range e.Items {
			if sameValue(it, v) {
				found = true
			}
		}
		if !found {
			vals := make([]string, len(e.Items))
			for i, it := range e.Items {
				vals[i] = quoted(it)
			}
			return "value must be one of " + strings.Join(vals, ", "), true
		}
	}
	if v.Kind == Number {
		x, err := strconv.ParseFloat(v.Num, 64)
		if err != nil {
			return "", false
		}
		for _, b := range []struct {
			kw  string
			bad func(x, b float64) bool
			msg string
		}{
			{"minimum", func(x, b float64) bool { return x < b }, "minimum"},
			{"maximum", func(x, b float64) bool { return x > b }, "maximum"},
			{"exclusiveMinimum", func(x, b float64) bool { return x <= b }, "exclusiveMinimum"},
			{"exclusiveMaximum", func(x, b float64) bool { return x >= b }, "exclusiveMaximum"},
		} {
			if n := schema.Get(b.kw); n != nil {
				bound, ok := n.Float()
				if !ok {
					return "", false
				}
				if b.bad(x, bound) {
					return fmt.Sprintf("%s: got %s, want %s", b.msg, formatNum(x), formatNum(bound)), true
				}
			}
		}
	}
	if v.Kind == String {
		n := utf8.RuneCountInString(v.Str)
		if m := schema.Get("minLength"); m != nil {
			if f, ok := m.Float(); !ok || float64(n) < f {
				if !ok {
					return "", false
				}
				return fmt.Sprintf("minLength: got %d, want %s", n, m.Num), true
			}
		}
		if m := schema.Get("maxLength"); m != nil {
			if f, ok := m.Float(); !ok || float64(n) > f {
				if !ok {
					return "", false
				}
				return fmt.Sprintf("maxLength: got %d, want %s", n, m.Num), true
			}
		}
		if p, ok := schema.Get("pattern").StringValue(); ok {
			re, err := regexp.Compile(p)
			if err != nil {
				return "", false
			}
			if !re.MatchString(v.Str) {
				return fmt.Sprintf("'%s' does not match pattern '%s'", v.Str, p), true
			}
		}
	}
	return "", true
}

func formatNum(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// quoted writes a value as the general validator's messages do: strings
// in single quotes, anything else as JSON.
func quoted(n *Node) string {
	if n.Kind == String {
		return "'" + n.Str + "'"
	}
	return string(n.JSON())
}

func kindMatches(t string, v *Node) bool {
	switch t {
	case "string":
		return v.Kind == String
	case "boolean":
		return v.Kind == Bool
	case "null":
		return v.Kind == Null
	case "number":
		return v.Kind == Number
	case "integer":
		if v.Kind != Number {
			return false
		}
		f, err := strconv.ParseFloat(v.Num, 64)
		return err == nil && f == math.Trunc(f)
	}
	return false
}

func jsonKind(v *Node) string {
	if v.Kind == Number {
		return "number"
	}
	return v.Kind.String()
}

// sameValue compares two scalars as JSON values (1 and 1.0 are equal).
func sameValue(a, b *Node) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case Number:
		x, e1 := strconv.ParseFloat(a.Num, 64)
		y, e2 := strconv.ParseFloat(b.Num, 64)
		return e1 == nil && e2 == nil && x == y
	case String:
		return a.Str == b.Str
	case Bool:
		return a.Bool == b.Bool
	case Null:
		return true
	}
	return string(a.JSON()) == string(b.JSON())
}
