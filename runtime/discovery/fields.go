package discovery

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// field is one part of a tool's text, scored with its own weight and
// length normalisation (BM25F).
type field uint8

const (
	fieldName     field = iota // words of the tool's name
	fieldSummary               // first sentence of the description
	fieldBody                  // the rest of the description
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
	fieldName:     {2.1, 0.75},
	fieldSummary:  {2.0, 0.75},
	fieldBody:     {0.8, 0.75},
	fieldArgName:  {0.42, 0.5},
	fieldArgText:  {0.2, 0.75},
	fieldEnum:     {0.35, 0.5},
	fieldQueries:  {1.5, 0.75},
	fieldCategory: {0.8, 0.3},
}

// texts is a document cut into its fields' texts.
type texts [numFields][]string

// splitDescription cuts a description into its first sentence and the
// rest.
func splitDescription(d string, out *texts) {
	if s, rest := firstSentence(clip(d, MaxDescriptionBytes)); s != "" {
		out[fieldSummary] = append(out[fieldSummary], s)
		out[fieldBody] = append(out[fieldBody], rest)
	}
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
// values of a JSON Schema. A schema that is not valid JSON or larger than
// MaxSchemaBytes gives nothing; schemas nested deeper than maxSchemaDepth
// within it, and those past the first maxSchemaNodes, are not read.
//
// The schema is read in one pass over its text, without building it: json.Valid
// first, then a reader that may assume valid JSON.
func schemaTexts(raw []byte, out *texts) {
	if len(raw) == 0 || len(raw) > MaxSchemaBytes || !json.Valid(raw) {
		return
	}
	r := schemaReader{s: string(raw), out: out} // texts are substrings of it
	r.ws()
	r.schema(0)
}

type schemaReader struct {
	s     string
	i     int
	nodes int
	out   *texts
}

func (r *schemaReader) ws() {
	for r.i < len(r.s) {
		switch r.s[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

func (r *schemaReader) peek() byte {
	if r.i < len(r.s) {
		return r.s[r.i]
	}
	return 0
}

// schema reads the value at r.i as a schema; anything but an object is
// skipped.
func (r *schemaReader) schema(depth int) {
	if r.peek() != '{' || depth > maxSchemaDepth || r.nodes >= maxSchemaNodes {
		r.skip()
		return
	}
	r.nodes++
	r.members(func(key string) {
		switch key {
		case "description", "title":
			if s, ok := r.str(); ok && depth > 0 {
				r.out[fieldArgText] = append(r.out[fieldArgText], clip(s, MaxDescriptionBytes))
			}
		case "const":
			if s, ok := r.str(); ok {
				r.out[fieldEnum] = append(r.out[fieldEnum], clip(s, maxEnumBytes))
			}
		case "enum":
			r.elements(func() {
				if s, ok := r.str(); ok && len(r.out[fieldEnum]) < maxSchemaNodes {
					r.out[fieldEnum] = append(r.out[fieldEnum], clip(s, maxEnumBytes))
				}
			})
		case "properties":
			r.members(func(name string) {
				r.out[fieldArgName] = append(r.out[fieldArgName], clip(name, maxEnumBytes))
				r.schema(depth + 1)
			})
		case "items", "additionalProperties", "contains", "not", "if", "then", "else":
			r.schema(depth + 1)
		case "prefixItems", "anyOf", "oneOf", "allOf":
			r.elements(func() { r.schema(depth + 1) })
		case "$defs", "definitions":
			r.members(func(string) { r.schema(depth + 1) })
		default:
			r.skip()
		}
	})
}

// members calls member with each key of the object at r.i, positioned at
// its value, which member must read or skip. Not an object: skipped.
func (r *schemaReader) members(member func(key string)) {
	if r.peek() != '{' {
		r.skip()
		return
	}
	r.i++
	for {
		r.ws()
		if r.peek() != '"' {
			r.i++ // '}' (valid JSON: nothing else can be here)
			return
		}
		key, _ := r.str()
		r.ws()
		r.i++ // ':'
		r.ws()
		start := r.i
		member(key)
		if r.i == start {
			r.skip()
		}
		r.ws()
		if r.peek() == ',' {
			r.i++
			continue
		}
		r.i++ // '}'
		return
	}
}

// elements calls elem with each element of the array at r.i. Not an
// array: skipped.
func (r *schemaReader) elements(elem func()) {
	if r.peek() != '[' {
		r.skip()
		return
	}
	r.i++
	for {
		r.ws()
		if r.peek() == ']' || r.i >= len(r.s) {
			r.i++
			return
		}
		start := r.i
		elem()
		if r.i == start {
			r.skip()
		}
		r.ws()
		if r.peek() == ',' {
			r.i++
			continue
		}
		r.i++ // ']'
		return
	}
}

// str reads the string at r.i; anything else is skipped.
func (r *schemaReader) str() (string, bool) {
	if r.peek() != '"' {
		r.skip()
		return "", false
	}
	start := r.i
	r.skipString()
	lit := r.s[start:min(r.i, len(r.s))]
	if len(lit) >= 2 && strings.IndexByte(lit, '\\') < 0 && utf8.ValidString(lit) {
		return lit[1 : len(lit)-1], true
	}
	var s string
	if json.Unmarshal([]byte(lit), &s) != nil {
		return "", false
	}
	return s, true
}

// skipString moves past the string at r.i.
func (r *schemaReader) skipString() {
	r.i++
	for r.i < len(r.s) {
		switch r.s[r.i] {
		case '\\':
			r.i += 2
		case '"':
			r.i++
			return
		default:
			r.i++
		}
	}
}

// skip moves past the value at r.i, without recursion.
func (r *schemaReader) skip() {
	depth := 0
	for r.i < len(r.s) {
		switch c := r.s[r.i]; c {
		case '"':
			r.skipString()
			if depth == 0 {
				return
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return // the end of the enclosing value
			}
			depth--
			if depth == 0 {
				r.i++
				return
			}
		case ',', ':':
			if depth == 0 {
				return
			}
		case ' ', '\t', '\n', '\r':
			if depth == 0 {
				return
			}
		}
		r.i++
	}
}
