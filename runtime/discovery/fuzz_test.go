package discovery

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// FuzzSearch indexes drawn tools and searches them with a drawn query:
// no panic, at most k results, each a tool of the index, scores positive
// and in order (equal scores by name).
func FuzzSearch(f *testing.F) {
	f.Add("search_issues", "Search issues.\nUse when: the user asks.", `{"properties":{"q":{"enum":["a"]}}}`, "find open bugs", 5)
	f.Add("getUserHTTP2", "Do not use: ever. use when", `[[[[`, "https://x.y/z a@b.c notes.txt", 1)
	f.Add("天気", "天気予報", `{"properties":{"p":{"properties":{"q":{}}}}}`, "天気 ÄNDERN İ", 3)
	f.Add("", "", "", "", 0)
	f.Fuzz(func(t *testing.T, name, desc, args, query string, k int) {
		docs := []Doc{
			{Name: name, Description: desc, Args: []byte(args), Queries: []string{query}},
			{Name: name + "_2", Description: query, Category: desc},
			{Name: "list_" + desc, Description: name + " " + args},
		}
		ix := New(docs)
		known := map[string]bool{}
		for _, d := range docs {
			if d.Name != "" {
				known[d.Name] = true
			}
		}
		k = k % 8
		for _, q := range []string{query, name, desc, strings.ToUpper(query)} {
			hits := ix.Search(q, k)
			if len(hits) > max(k, 0) {
				t.Fatalf("%d hits for k=%d", len(hits), k)
			}
			for i, h := range hits {
				if !known[h.Name] || !(h.Score > 0) {
					t.Fatalf("hit %d: %+v", i, h)
				}
				if i > 0 {
					p := hits[i-1]
					if p.Score < h.Score || p.Score == h.Score && p.Name >= h.Name {
						t.Fatalf("hits out of order: %+v before %+v", p, h)
					}
				}
			}
		}
	})
}

// FuzzSchemaTexts compares the one-pass schema reader with a reading of
// the schema decoded by encoding/json, on schemas within the limits and
// without duplicate keys (which encoding/json resolves to the last).
func FuzzSchemaTexts(f *testing.F) {
	for _, t := range devTools {
		f.Add(t.args)
	}
	f.Add(`{"properties":{"a\"b":{"description":"x\u00e9\ny","enum":["p",1,{"q":"r"},["s"]]}},"items":[{"title":"t"}]}`)
	f.Add(`{"anyOf":[{"const":"c"},7,"s"],"$defs":{"d":{"properties":{"e":true}}},"not":{"title":"n"}}`)
	f.Add(`[{"description":"not a schema"}]`)
	f.Fuzz(func(t *testing.T, raw string) {
		var got texts
		schemaTexts([]byte(raw), &got)
		var v any
		if len(raw) > MaxSchemaBytes || json.Unmarshal([]byte(raw), &v) != nil {
			for f, list := range got {
				if len(list) > 0 {
					t.Fatalf("not JSON, yet field %d = %q", f, list)
				}
			}
			return
		}
		if hasDuplicateKeys([]byte(raw)) {
			return
		}
		ref := refWalker{}
		ref.walk(v, 0)
		if ref.nodes >= maxSchemaNodes {
			return
		}
		for f := range numFields {
			a, b := slices.Clone(got[f]), slices.Clone(ref.out[f])
			slices.Sort(a)
			slices.Sort(b)
			if !slices.Equal(a, b) {
				t.Fatalf("field %d: reader %q, reference %q", f, a, b)
			}
		}
	})
}

// refWalker reads a decoded schema by the rules of schemaReader.
type refWalker struct {
	out   texts
	nodes int
}

func (w *refWalker) walk(v any, depth int) {
	m, ok := v.(map[string]any)
	if !ok || depth > maxSchemaDepth || w.nodes >= maxSchemaNodes {
		return
	}
	w.nodes++
	for _, k := range []string{"description", "title"} {
		if s, ok := m[k].(string); ok && depth > 0 {
			w.out[fieldArgText] = append(w.out[fieldArgText], clip(s, MaxDescriptionBytes))
		}
	}
	if s, ok := m["const"].(string); ok {
		w.out[fieldEnum] = append(w.out[fieldEnum], clip(s, maxEnumBytes))
	}
	if list, ok := m["enum"].([]any); ok {
		for _, e := range list {
			if s, ok := e.(string); ok {
				w.out[fieldEnum] = append(w.out[fieldEnum], clip(s, maxEnumBytes))
			}
		}
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for name, p := range props {
			w.out[fieldArgName] = append(w.out[fieldArgName], clip(name, maxEnumBytes))
			w.walk(p, depth+1)
		}
	}
	for _, k := range []string{"items", "additionalProperties", "contains", "not", "if", "then", "else"} {
		w.walk(m[k], depth+1)
	}
	for _, k := range []string{"prefixItems", "anyOf", "oneOf", "allOf"} {
		if list, ok := m[k].([]any); ok {
			for _, s := range list {
				w.walk(s, depth+1)
			}
		}
	}
	for _, k := range []string{"$defs", "definitions"} {
		if defs, ok := m[k].(map[string]any); ok {
			for _, s := range defs {
				w.walk(s, depth+1)
			}
		}
	}
}

func hasDuplicateKeys(raw []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(raw))
	type frame struct {
		object bool
		keys   map[string]bool
		expect bool // the next string token is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch tk := tok.(type) {
		case json.Delim:
			switch tk {
			case '{', '[':
				if top != nil && top.object {
					top.expect = true
				}
				stack = append(stack, &frame{object: tk == '{', keys: map[string]bool{}, expect: tk == '{'})
				continue
			default:
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].object {
					stack[len(stack)-1].expect = true
				}
				continue
			}
		case string:
			if top != nil && top.object && top.expect {
				if top.keys[tk] {
					return true
				}
				top.keys[tk] = true
				top.expect = false
				continue
			}
		}
		if top != nil && top.object {
			top.expect = true
		}
	}
}
