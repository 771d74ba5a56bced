package conformance

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/runtime"
)

// randSchema returns a random object schema of a few properties, some of
// them nested, with the keywords the harness mutates and, now and then,
// keywords that tie properties together (dependentRequired, if/then,
// maxProperties), under which a smaller set of arguments is not valid.
func randSchema(r *rand.Rand, depth int) map[string]any {
	props := map[string]any{}
	var required []any
	n := 1 + r.IntN(6)
	for i := range n {
		name := fmt.Sprintf("f%d", i)
		props[name] = randProperty(r, depth)
		if r.IntN(3) == 0 {
			required = append(required, name)
		}
	}
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	if r.IntN(2) == 0 {
		s["additionalProperties"] = false
	}
	if n >= 2 {
		switch r.IntN(6) {
		case 0:
			s["dependentRequired"] = map[string]any{"f0": []any{"f1"}}
		case 1:
			s["if"] = map[string]any{"required": []any{"f0"}}
			s["then"] = map[string]any{"required": []any{"f1"}}
		case 2:
			s["maxProperties"] = len(required) + 1
		}
	}
	return s
}

func randProperty(r *rand.Rand, depth int) any {
	k := r.IntN(7)
	if depth >= 2 && k >= 5 {
		k = r.IntN(5)
	}
	switch k {
	case 0:
		s := map[string]any{"type": "string"}
		switch r.IntN(4) {
		case 0:
			s["enum"] = []any{"a", "b"}
		case 1:
			s["pattern"] = "^[a-z]+$"
		case 2:
			s["format"] = "email"
		}
		if r.IntN(2) == 0 {
			s["maxLength"] = 8
		}
		if r.IntN(2) == 0 {
			s["minLength"] = 1
		}
		return s
	case 1:
		return map[string]any{"type": "integer", "minimum": r.IntN(3), "maximum": 10 + r.IntN(10)}
	case 2:
		return map[string]any{"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 5}
	case 3:
		return map[string]any{"type": "boolean"}
	case 4:
		return map[string]any{"type": "array", "minItems": r.IntN(2), "maxItems": 3,
			"items": map[string]any{"type": "integer", "maximum": 5}}
	case 5:
		return map[string]any{"type": "array", "minItems": 1, "items": randSchema(r, depth+1)}
	default:
		return randSchema(r, depth+1)
	}
}

// mutationPlace reads where a mutation breaks its rule from its
// description: the JSON pointer and whether the value there was replaced
// (else a property was left out or added).
var mutationPlace = regexp.MustCompile(`^(?:required argument (\S+) left out|unknown argument (\S+)|.* at (/\S*)(?: \(\w+\))?)$`)

// Each mutation breaks one rule only: putting back the valid value at its
// place (or the left-out property, or taking the unknown one away) gives
// arguments the schema accepts.
func TestMutationsBreakOneRule(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	checked := 0
	for i := range 400 {
		doc, err := json.Marshal(randSchema(r, 0))
		if err != nil {
			t.Fatal(err)
		}
		s, err := compileSchema("t", "args", doc)
		if err != nil {
			t.Fatalf("schema %d %s: %v", i, doc, err)
		}
		valid, _ := validArgs(s)
		if len(valid) == 0 {
			continue
		}
		var base, lowerDoc any
		_ = json.Unmarshal(valid[len(valid)-1].json, &base)
		_ = json.Unmarshal(valid[0].json, &lowerDoc)
		for _, m := range invalidArgs(s, valid[len(valid)-1].doc, runtime.AdditionalArgsReject) {
			if m.what == "arguments that are not an object" {
				continue
			}
			if !m.policy && s.validateJSON(m.json) == nil {
				t.Errorf("schema %s: %s: %s is valid", doc, m.what, m.json)
				continue
			}
			sub := mutationPlace.FindStringSubmatch(m.what)
			if sub == nil {
				t.Fatalf("cannot read the place of %q", m.what)
			}
			var got any
			if err := json.Unmarshal(m.json, &got); err != nil {
				t.Fatal(err)
			}
			var candidates []any
			switch {
			case sub[1] != "": // put the property back, at either edge
				for _, from := range []any{base, lowerDoc} {
					if v, ok := pointerGet(from, "#"+sub[1]); ok {
						candidates = append(candidates, setAt(clonePlain(got), sub[1], v, false))
					}
				}
			case sub[2] != "":
				candidates = append(candidates, setAt(clonePlain(got), sub[2], nil, true))
			default:
				if v, ok := pointerGet(base, "#"+sub[3]); ok {
					candidates = append(candidates, setAt(clonePlain(got), sub[3], v, false))
				}
			}
			ok := false
			for _, c := range candidates {
				if b, err := json.Marshal(c); err == nil && s.validateJSON(b) == nil {
					ok = true
					break
				}
			}
			if !ok {
				t.Errorf("schema %s: %s: %s breaks more than one rule", doc, m.what, m.json)
			}
			checked++
		}
	}
	if checked < 1000 {
		t.Errorf("only %d mutations checked", checked)
	}
}

// setAt sets (or with remove, deletes) the value at the JSON pointer ptr
// of doc, and returns doc.
func setAt(doc any, ptr string, v any, remove bool) any {
	toks := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	cur := doc
	for i, tok := range toks {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		last := i == len(toks)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				if remove {
					delete(c, tok)
				} else {
					c[tok] = v
				}
				return doc
			}
			cur = c[tok]
		case []any:
			j, err := strconv.Atoi(tok)
			if err != nil || j >= len(c) {
				return doc
			}
			if last {
				c[j] = v
				return doc
			}
			cur = c[j]
		default:
			return doc
		}
	}
	return doc
}

// clonePlain deep-copies decoded JSON.
func clonePlain(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = clonePlain(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = clonePlain(x)
		}
		return out
	}
	return v
}
