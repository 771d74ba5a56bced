package discovery

import (
	"encoding/json"
	"sort"
	"strings"
)

// field is one part of a tool's text, scored with its own weight and
// length normalisation (BM25F).
type field uint8

const (
	fieldName     field = iota // words of the tool's name
	fieldSummary               // first sentence of the description
	fieldBody                  // the rest of the description
	fieldUseWhen               // "Use when:" text of the description
	fieldArgName               // names of the arguments, at any depth
	fieldArgText               // descriptions and titles of the arguments
	fieldEnum                  // enum and const string values
	fieldQueries               // example requests (Doc.Queries)
	fieldCategory              // Doc.Category
	numFields
)

// fieldParams are the weight and the length normalisation b of each field.
// Weights say how much one occurrence counts; b how much a long field is
// discounted (0: not at all, 1: in full proportion to its length).
var fieldParams = [numFields]struct {
	weight float32
	b      float32
}{
	fieldName:     {3.0, 0.5},
	fieldSummary:  {1.5, 0.6},
	fieldBody:     {0.8, 0.75},
	fieldUseWhen:  {1.2, 0.6},
	fieldArgName:  {0.6, 0.5},
	fieldArgText:  {0.4, 0.75},
	fieldEnum:     {0.5, 0.5},
	fieldQueries:  {1.5, 0.6},
	fieldCategory: {0.8, 0.3},
}

// texts is a document cut into its fields' texts.
type texts [numFields][]string

// splitDescription cuts a description into summary, body and "Use when:"
// text. Text after "Do not use" (or "Don't use", "Never use") up to the
// next marker or line is left out, since it names what the tool is not for.
func splitDescription(d string, out *texts) {
	d = clip(d, MaxDescriptionBytes)
	lower := asciiLowerCopy(d)
	type mark struct {
		at, end int
		f       field // numFields: dropped
	}
	var marks []mark
	for _, m := range []struct {
		s string
		f field
	}{
		{"use when", fieldUseWhen}, {"use this when", fieldUseWhen}, {"use it when", fieldUseWhen},
		{"use this tool when", fieldUseWhen},
		{"do not use", numFields}, {"don't use", numFields}, {"never use", numFields},
		{"do not call", numFields}, {"not for:", numFields},
	} {
		for off := 0; ; {
			i := strings.Index(lower[off:], m.s)
			if i < 0 {
				break
			}
			i += off
			off = i + len(m.s)
			if i > 0 && isASCIIWordByte(lower[i-1]) {
				continue
			}
			marks = append(marks, mark{at: i, end: i + len(m.s), f: m.f})
		}
	}
	sort.Slice(marks, func(i, j int) bool { return marks[i].at < marks[j].at })

	first := len(d)
	if len(marks) > 0 {
		first = marks[0].at
	}
	main := d[:first]
	if s, rest := firstSentence(main); s != "" {
		out[fieldSummary] = append(out[fieldSummary], s)
		out[fieldBody] = append(out[fieldBody], rest)
	}
	for i, m := range marks {
		if i > 0 && m.at < marks[i-1].end {
			continue // overlapping markers ("use this tool when")
		}
		end := len(d)
		if i+1 < len(marks) {
			end = marks[i+1].at
		}
		seg := d[m.end:end]
		if m.f == numFields {
			// A "do not use" passage ends at the end of its line; what
			// follows on later lines is description again.
			if nl := strings.IndexByte(seg, '\n'); nl >= 0 {
				out[fieldBody] = append(out[fieldBody], seg[nl+1:])
			}
			continue
		}
		out[m.f] = append(out[m.f], seg)
	}
}

func isASCIIWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
}

// asciiLowerCopy lower-cases ASCII letters only, so byte offsets match s.
func asciiLowerCopy(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// firstSentence returns the text up to the first end of sentence (., ! or ?
// followed by a space or the end) or line break, and the rest.
func firstSentence(s string) (string, string) {
	s = strings.TrimSpace(s)
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\n':
			return s[:i], s[i+1:]
		case '.', '!', '?':
			if i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\n' || s[i+1] == '\t' {
				return s[:i], s[i+1:]
			}
		}
	}
	return s, ""
}

// clip cuts s to at most n bytes, at a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// schemaTexts reads the argument names, descriptions, titles and enum
// values of a JSON Schema. A schema that is not JSON, too large or too
// deep gives nothing (or what was read within the limits).
func schemaTexts(raw []byte, out *texts) {
	if len(raw) == 0 || len(raw) > MaxSchemaBytes {
		return
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return
	}
	w := schemaWalker{out: out}
	w.walk(v, 0)
}

type schemaWalker struct {
	out   *texts
	nodes int
}

func (w *schemaWalker) walk(v any, depth int) {
	m, ok := v.(map[string]any)
	if !ok || depth > maxSchemaDepth || w.nodes >= maxSchemaNodes {
		return
	}
	w.nodes++
	if s, ok := m["description"].(string); ok && depth > 0 {
		w.out[fieldArgText] = append(w.out[fieldArgText], clip(s, MaxDescriptionBytes))
	}
	if s, ok := m["title"].(string); ok && depth > 0 {
		w.out[fieldArgText] = append(w.out[fieldArgText], clip(s, MaxDescriptionBytes))
	}
	if list, ok := m["enum"].([]any); ok {
		for i, e := range list {
			if i >= maxSchemaNodes {
				break
			}
			if s, ok := e.(string); ok {
				w.out[fieldEnum] = append(w.out[fieldEnum], clip(s, maxEnumBytes))
			}
		}
	}
	if s, ok := m["const"].(string); ok {
		w.out[fieldEnum] = append(w.out[fieldEnum], clip(s, maxEnumBytes))
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for _, name := range sortedKeys(props) {
			w.out[fieldArgName] = append(w.out[fieldArgName], clip(name, maxEnumBytes))
			w.walk(props[name], depth+1)
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
			for _, name := range sortedKeys(defs) {
				w.walk(defs[name], depth+1)
			}
		}
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
