package conformance

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/toolcat/toolcat/runtime"
)

// unknownArg is the name of the argument added to test additional_args.
const unknownArg = "toolcat_unknown_argument"

// mutation is a set of arguments that breaks one rule of the schema.
type mutation struct {
	what string // "wrong type at /max_results"
	json []byte
	// policy: the runtime's additional_args policy refuses it even where
	// the schema alone would accept it.
	policy bool
}

// invalidArgs derives invalid arguments from the valid base: for every
// property a wrong type and values out of its bounds, every required
// property dropped, and an unknown argument where the schema or the
// additional_args policy refuses it. Each one is kept only if the schema
// refuses it (a top-level unknown argument under reject excepted).
func invalidArgs(args *schema, base any, policy runtime.AdditionalArgs) []mutation {
	if args == nil {
		return nil
	}
	var out []mutation
	seen := map[string]bool{}
	add := func(what string, doc any, policy bool) {
		b, err := json.Marshal(doc)
		if err != nil || seen[string(b)] {
			return
		}
		if !policy && args.validateJSON(b) == nil {
			return // the schema accepts it after all (oneOf, open schemas)
		}
		seen[string(b)] = true
		out = append(out, mutation{what: what, json: b, policy: policy})
	}
	add("arguments that are not an object", []any{"example"}, false)
	var walk func(s any, v any, ptr string, set func(any) any)
	walk = func(s any, v any, ptr string, set func(any) any) {
		sm, ok := resolve(args.doc, s, 0)
		if !ok || sm == nil {
			return
		}
		switch v := v.(type) {
		case map[string]any:
			props, _ := sm["properties"].(map[string]any)
			names := slices.Sorted(maps.Keys(v))
			if r, ok := sm["required"].([]any); ok {
				for _, x := range r {
					n, _ := x.(string)
					if _, present := v[n]; !present {
						continue
					}
					cp := clone(v)
					delete(cp, n)
					add("required argument "+ptr+"/"+escape(n)+" left out", set(cp), false)
				}
			}
			for _, n := range names {
				sub, ok := props[n]
				if !ok {
					continue
				}
				child := ptr + "/" + escape(n)
				setChild := func(x any) any {
					cp := clone(v)
					cp[n] = x
					return set(cp)
				}
				subm, _ := resolve(args.doc, sub, 0)
				if w, ok := wrongType(subm); ok {
					add(fmt.Sprintf("wrong type at %s (%s)", child, jsonType(w)), setChild(w), false)
				}
				for _, b := range outOfBounds(subm, v[n]) {
					add(b.what+" at "+child, setChild(b.value), false)
				}
				walk(sub, v[n], child, setChild)
			}
			closed := sm["additionalProperties"] == false
			refused := closed
			if ptr == "" {
				// At the top, the additional_args policy comes first: strip
				// drops the unknown argument wherever the schema names its
				// properties, reject refuses it.
				switch policy {
				case runtime.AdditionalArgsReject:
					refused = closed || props != nil
				case runtime.AdditionalArgsStrip:
					refused = closed && props == nil
				}
			}
			if _, taken := props[unknownArg]; refused && !taken {
				cp := clone(v)
				cp[unknownArg] = "example"
				add("unknown argument "+ptr+"/"+unknownArg, set(cp), ptr == "" && policy == runtime.AdditionalArgsReject)
			}
		case []any:
			if len(v) == 0 {
				return
			}
			items := sm["items"]
			if prefix, ok := sm["prefixItems"].([]any); ok && len(prefix) > 0 {
				items = prefix[0]
			}
			if items == nil {
				return
			}
			child := ptr + "/0"
			setElem := func(x any) any {
				cp := append([]any(nil), v...)
				cp[0] = x
				return set(cp)
			}
			im, _ := resolve(args.doc, items, 0)
			if w, ok := wrongType(im); ok {
				add(fmt.Sprintf("wrong type at %s (%s)", child, jsonType(w)), setElem(w), false)
			}
			for _, b := range outOfBounds(im, v[0]) {
				add(b.what+" at "+child, setElem(b.value), false)
			}
			walk(items, v[0], child, setElem)
		}
	}
	walk(args.doc, base, "", func(x any) any { return x })
	return out
}

// wrongType returns a value of a type the schema does not allow: the
// mistakes models make, such as a number sent as a string.
func wrongType(s map[string]any) (any, bool) {
	ts := types(s)
	if len(ts) == 0 {
		return nil, false
	}
	for _, c := range []any{"12", 12, true, []any{"example"}, map[string]any{}} {
		if !hasType(ts, jsonType(c)) {
			return c, true
		}
	}
	return nil, false
}

type bound struct {
	what  string
	value any
}

// outOfBounds returns values just outside each bound of s.
func outOfBounds(s map[string]any, cur any) []bound {
	if s == nil {
		return nil
	}
	var out []bound
	if x, ok := num(s, "minimum"); ok {
		out = append(out, bound{"below the minimum", below(s, x)})
	}
	if x, ok := num(s, "exclusiveMinimum"); ok {
		out = append(out, bound{"at the exclusive minimum", x})
	}
	if x, ok := num(s, "maximum"); ok {
		out = append(out, bound{"above the maximum", above(s, x)})
	}
	if x, ok := num(s, "exclusiveMaximum"); ok {
		out = append(out, bound{"at the exclusive maximum", x})
	}
	if n, ok := count(s, "minLength"); ok && n > 0 {
		out = append(out, bound{"shorter than minLength", strings.Repeat("x", n-1)})
	}
	if n, ok := count(s, "maxLength"); ok {
		out = append(out, bound{"longer than maxLength", strings.Repeat("x", n+1)})
	}
	if p, ok := s["pattern"].(string); ok {
		if re, err := regexp.Compile(p); err == nil {
			for _, c := range []string{"", "!", "example", " ", "0"} {
				if !re.MatchString(c) {
					out = append(out, bound{"not matching the pattern", c})
					break
				}
			}
		}
	}
	if f, ok := s["format"].(string); ok {
		if _, known := formatSamples[f]; known {
			out = append(out, bound{"not in format " + f, "not a " + f + " %%"})
		}
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		out = append(out, bound{"not in the enum", notIn(e)})
	}
	if c, ok := s["const"]; ok {
		out = append(out, bound{"other than the const", notIn([]any{c})})
	}
	if arr, ok := cur.([]any); ok && len(arr) > 0 {
		if n, ok := count(s, "minItems"); ok && n > 0 {
			out = append(out, bound{"fewer items than minItems", arr[:n-1]})
		}
		if n, ok := count(s, "maxItems"); ok && n < 1000 {
			more := make([]any, 0, n+1)
			for len(more) < n+1 {
				more = append(more, arr[len(more)%len(arr)])
			}
			out = append(out, bound{"more items than maxItems", more})
		}
	}
	return out
}

func below(s map[string]any, x float64) any {
	if isInteger(s) {
		return int64(x) - 1
	}
	return x - 0.5
}

func above(s map[string]any, x float64) any {
	if isInteger(s) {
		return int64(x) + 1
	}
	return x + 0.5
}

func isInteger(s map[string]any) bool {
	ts := types(s)
	return len(ts) > 0 && hasType(ts, "integer") && !containsStr(ts, "number")
}

func containsStr(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// notIn returns a value of the same type as the values of e, equal to none.
func notIn(e []any) any {
	switch e[0].(type) {
	case string:
		for i := 0; ; i++ {
			c := fmt.Sprintf("not_a_value_%d", i)
			if !containsAny(e, c) {
				return c
			}
		}
	case json.Number, float64, int, int64:
		for i := 987654; ; i++ {
			if !containsAny(e, json.Number(fmt.Sprint(i))) && !containsAny(e, float64(i)) {
				return i
			}
		}
	case bool:
		if !containsAny(e, true) {
			return true
		}
		return false
	}
	return "not_a_value"
}

func containsAny(e []any, v any) bool {
	for _, x := range e {
		if x == v {
			return true
		}
	}
	return false
}

func clone(m map[string]any) map[string]any {
	cp := make(map[string]any, len(m))
	for k, v := range m {
		cp[k] = v
	}
	return cp
}
