package breaking

import (
	"slices"
	"strings"

	"github.com/toolcat/toolcat/catalog"
)

// walkPairs calls fn on every pair of subschemas found at the same place
// in old and new: the roots, the properties of both, and array items. ptr
// names the place as a path of property names: "filter.since", "tags[]";
// "" is the root.
func walkPairs(old, new *catalog.Node, fn func(ptr string, old, new *catalog.Node)) {
	walkPairsAt("", old, new, fn, 0)
}

// maxWalkDepth bounds the recursion on a deeply nested schema.
const maxWalkDepth = 64

func walkPairsAt(ptr string, old, new *catalog.Node, fn func(string, *catalog.Node, *catalog.Node), depth int) {
	if old == nil || new == nil || old.Kind != catalog.Object || new.Kind != catalog.Object || depth > maxWalkDepth {
		return
	}
	fn(ptr, old, new)
	if op, np := old.Get("properties"), new.Get("properties"); op != nil && np != nil && op.Kind == catalog.Object {
		for _, f := range op.Fields {
			if n := np.Get(f.Key); n != nil {
				walkPairsAt(join(ptr, f.Key), f.Value, n, fn, depth+1)
			}
		}
	}
	walkPairsAt(ptr+"[]", old.Get("items"), new.Get("items"), fn, depth+1)
}

func join(ptr, key string) string {
	if ptr == "" {
		return key
	}
	return ptr + "." + key
}

// where names the place ptr in a message: "argument filter.since", or
// "the arguments" at the root.
func where(ptr string) string {
	if ptr == "" {
		return "the arguments"
	}
	return "argument " + ptr
}

// required lists the required property names of an object schema.
func required(s *catalog.Node) []string {
	r := s.Get("required")
	if r == nil || r.Kind != catalog.Array {
		return nil
	}
	var out []string
	for _, it := range r.Items {
		if v, ok := it.StringValue(); ok {
			out = append(out, v)
		}
	}
	return out
}

// requiredPos returns the position of name in the required list of s.
func requiredPos(s *catalog.Node, name string) catalog.Pos {
	r := s.Get("required")
	if r != nil && r.Kind == catalog.Array {
		for _, it := range r.Items {
			if v, _ := it.StringValue(); v == name {
				return it.Pos
			}
		}
	}
	return s.KeyPos("required")
}

// types returns the JSON types a schema allows, sorted; nil when it
// does not say.
func types(s *catalog.Node) []string {
	t := s.SchemaTypes()
	slices.Sort(t)
	return t
}

// lost returns the types of old that new no longer allows (integer is
// within number).
func lost(old, new []string) []string {
	if len(new) == 0 {
		return nil
	}
	var out []string
	for _, t := range old {
		if slices.Contains(new, t) || t == "integer" && slices.Contains(new, "number") {
			continue
		}
		out = append(out, t)
	}
	return out
}

func list(s []string) string { return strings.Join(s, ", ") }

// toolPos is where a finding about a pair lands: the field in the new
// catalog.
func toolPos(t *catalog.Tool, field string) catalog.Pos { return t.PosOf(field) }
