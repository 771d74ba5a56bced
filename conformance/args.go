package conformance

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"sort"
	"strings"
	"unicode"

	"github.com/toolcat/toolcat/internal/jsonptr"
)

// Arguments are generated from a tool's args schema in two shapes: the
// required properties only, at the lower edge of their bounds, and every
// property, at the upper edge. Invalid arguments are mutations of the
// valid ones, one broken rule each.

type mode int

const (
	lowerEdge mode = iota // required properties only, lower bounds
	upperEdge             // every property, upper bounds
)

// generator builds values for the schemas of one document.
type generator struct {
	root any
	// skipped records properties left out of a generated value, and why.
	skipped []string
}

// value returns a value valid for s, or an error saying why none could be
// made.
func (g *generator) value(s any, ptr string, m mode, depth int) (any, error) {
	if depth > 12 {
		return nil, fmt.Errorf("%s: the schema nests too deep", orRoot(ptr))
	}
	sm, ok := resolve(g.root, s, 0)
	if !ok {
		return nil, fmt.Errorf("%s: the schema is false", orRoot(ptr))
	}
	if sm == nil {
		return "example", nil
	}
	if c, ok := sm["const"]; ok {
		return c, nil
	}
	if e, ok := sm["enum"].([]any); ok && len(e) > 0 {
		if m == upperEdge {
			return e[len(e)-1], nil
		}
		return e[0], nil
	}
	for _, kw := range []string{"oneOf", "anyOf"} {
		if alts, ok := sm[kw].([]any); ok && len(alts) > 0 {
			base := without(sm, kw)
			var errs []string
			for _, alt := range alts {
				am, ok := resolve(g.root, alt, 0)
				if !ok {
					continue
				}
				v, err := g.value(merge(base, am), ptr, m, depth+1)
				if err == nil {
					return v, nil
				}
				errs = append(errs, err.Error())
			}
			return nil, fmt.Errorf("%s: no branch of %s can be generated (%s)", orRoot(ptr), kw, strings.Join(errs, "; "))
		}
	}
	switch pickType(sm) {
	case "null":
		return nil, nil
	case "boolean":
		return m == upperEdge, nil
	case "integer":
		return genNumber(sm, ptr, m, true)
	case "number":
		return genNumber(sm, ptr, m, false)
	case "string":
		return genString(sm, ptr, m)
	case "array":
		return g.array(sm, ptr, m, depth)
	case "object":
		return g.object(sm, ptr, m, depth)
	}
	return "example", nil
}

func orRoot(ptr string) string {
	if ptr == "" {
		return "the arguments"
	}
	return ptr
}

// pickType chooses the type to generate: the first non-null type allowed,
// or the one the keywords imply.
func pickType(s map[string]any) string {
	ts := types(s)
	for _, t := range ts {
		if t != "null" {
			return t
		}
	}
	if len(ts) > 0 {
		return ts[0]
	}
	switch {
	case s["properties"] != nil || s["required"] != nil || s["additionalProperties"] != nil:
		return "object"
	case s["items"] != nil || s["prefixItems"] != nil || s["minItems"] != nil:
		return "array"
	case s["pattern"] != nil || s["format"] != nil || s["minLength"] != nil || s["maxLength"] != nil:
		return "string"
	case s["minimum"] != nil || s["maximum"] != nil || s["multipleOf"] != nil:
		return "number"
	}
	return ""
}

func (g *generator) object(s map[string]any, ptr string, m mode, depth int) (any, error) {
	props, _ := s["properties"].(map[string]any)
	required := map[string]bool{}
	if r, ok := s["required"].([]any); ok {
		for _, x := range r {
			if n, ok := x.(string); ok {
				required[n] = true
			}
		}
	}
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	for n := range required {
		if _, ok := props[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	obj := map[string]any{}
	for _, n := range names {
		if m == lowerEdge && !required[n] {
			continue
		}
		sub, ok := props[n]
		if !ok {
			sub = s["additionalProperties"]
		}
		child := jsonptr.Append(ptr, n)
		v, err := g.value(sub, child, m, depth+1)
		if err != nil {
			if required[n] {
				return nil, err
			}
			g.skipped = append(g.skipped, err.Error())
			continue
		}
		obj[n] = v
	}
	return obj, nil
}

func (g *generator) array(s map[string]any, ptr string, m mode, depth int) (any, error) {
	minItems, _ := count(s, "minItems")
	n := minItems
	if m == upperEdge && n == 0 {
		n = 1
	}
	if maxItems, ok := count(s, "maxItems"); ok && n > maxItems {
		n = maxItems
	}
	prefix, _ := s["prefixItems"].([]any)
	out := []any{}
	for i := 0; i < n; i++ {
		var sub any = s["items"]
		if i < len(prefix) {
			sub = prefix[i]
		} else if b, ok := sub.(bool); ok && !b {
			break
		}
		v, err := g.value(sub, fmt.Sprintf("%s/%d", ptr, i), m, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func genNumber(s map[string]any, ptr string, m mode, integer bool) (any, error) {
	lo, hasLo := num(s, "minimum")
	hi, hasHi := num(s, "maximum")
	step := 1.0
	if !integer {
		step = 0.5
	}
	if x, ok := num(s, "exclusiveMinimum"); ok && (!hasLo || x >= lo) {
		lo, hasLo = x+step, true
		if integer {
			lo = math.Floor(x) + 1
		}
	}
	if x, ok := num(s, "exclusiveMaximum"); ok && (!hasHi || x <= hi) {
		hi, hasHi = x-step, true
		if integer {
			hi = math.Ceil(x) - 1
		}
	}
	if integer {
		lo, hi = math.Ceil(lo), math.Floor(hi)
	}
	var v float64
	switch {
	case m == upperEdge && hasHi:
		v = hi
	case m == upperEdge:
		v = 42 // no upper bound: a value other than the lower edge
		if hasLo && lo > v {
			v = lo
		}
	case hasLo:
		v = lo
	case hasHi:
		v = math.Min(hi, 1)
	default:
		v = 1
	}
	if mult, ok := num(s, "multipleOf"); ok && mult > 0 {
		if m == upperEdge && hasHi {
			v = math.Floor(v/mult) * mult
		} else {
			v = math.Ceil(v/mult) * mult
		}
	}
	if hasLo && v < lo || hasHi && v > hi {
		return nil, fmt.Errorf("%s: no number fits between %v and %v", ptr, lo, hi)
	}
	if integer {
		return int64(v), nil
	}
	return v, nil
}

// formatSamples are valid values of the usual formats.
var formatSamples = map[string]string{
	"date-time":             "2026-01-02T03:04:05Z",
	"date":                  "2026-01-02",
	"time":                  "03:04:05Z",
	"duration":              "P1D",
	"email":                 "someone@example.com",
	"idn-email":             "someone@example.com",
	"hostname":              "example.com",
	"idn-hostname":          "example.com",
	"ipv4":                  "192.0.2.1",
	"ipv6":                  "2001:db8::1",
	"uri":                   "https://example.com/",
	"iri":                   "https://example.com/",
	"uri-reference":         "https://example.com/",
	"iri-reference":         "https://example.com/",
	"uri-template":          "https://example.com/{id}",
	"uuid":                  "123e4567-e89b-12d3-a456-426614174000",
	"json-pointer":          "/a",
	"relative-json-pointer": "0/a",
	"regex":                 "^a+$",
}

func genString(s map[string]any, ptr string, m mode) (any, error) {
	minLen, _ := count(s, "minLength")
	maxLen, hasMax := count(s, "maxLength")
	fits := func(v string) bool {
		n := len([]rune(v))
		return n >= minLen && (!hasMax || n <= maxLen)
	}
	var re *regexp.Regexp
	pattern, hasPattern := s["pattern"].(string)
	if hasPattern {
		var err error
		if re, err = regexp.Compile(pattern); err != nil {
			return nil, fmt.Errorf("%s: pattern %q is not a Go regular expression", ptr, pattern)
		}
	}
	format, hasFormat := s["format"].(string)
	sample, known := formatSamples[format]
	if hasFormat && !known {
		if hasPattern || minLen > 0 || hasMax {
			return nil, fmt.Errorf("%s: no sample of format %q", ptr, format)
		}
		return "example", nil // unknown formats are not asserted
	}
	var cands []string
	switch {
	case hasFormat:
		// A URI can grow at its end; other formats stay as they are.
		if strings.HasPrefix(sample, "https://") {
			cands = append(cands, stretch(sample, "x", minLen, maxLen, hasMax, m))
		}
		cands = append(cands, sample)
	case hasPattern:
		base, err := sampleOf(pattern)
		if err != nil {
			return nil, fmt.Errorf("%s: cannot find a string matching %q: %v", ptr, pattern, err)
		}
		cands = append(cands, base, stretch(base, "a", minLen, maxLen, hasMax, lowerEdge), stretchFront(base, minLen))
	default:
		cands = append(cands, stretch("example", "example", minLen, maxLen, hasMax, m))
	}
	for _, c := range cands {
		if fits(c) && (re == nil || re.MatchString(c)) {
			return c, nil
		}
	}
	return nil, fmt.Errorf("%s: cannot find a string that fits its pattern, format and length", ptr)
}

// stretch grows or cuts base with fill to the length the mode asks for:
// minLen at the lower edge (or base if longer), maxLen at the upper edge
// when it is small enough to send.
func stretch(base, fill string, minLen, maxLen int, hasMax bool, m mode) string {
	want := len([]rune(base))
	if want < minLen {
		want = minLen
	}
	if m == upperEdge && hasMax && maxLen <= 4096 {
		want = maxLen
	}
	if m == lowerEdge && minLen > 0 && !strings.HasPrefix(base, "https://") && base == fill {
		want = minLen
	}
	if hasMax && want > maxLen {
		want = maxLen
	}
	r := []rune(base)
	for len(r) < want {
		r = append(r, []rune(fill)...)
	}
	return string(r[:want])
}

func stretchFront(base string, minLen int) string {
	n := len([]rune(base))
	if n >= minLen {
		return base
	}
	return strings.Repeat("a", minLen-n) + base
}

// sampleOf returns a short string matching the regular expression p.
func sampleOf(p string) (string, error) {
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := writeSample(&b, re.Simplify()); err != nil {
		return "", err
	}
	return b.String(), nil
}

func writeSample(b *strings.Builder, re *syntax.Regexp) error {
	switch re.Op {
	case syntax.OpNoMatch:
		return fmt.Errorf("matches nothing")
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		b.WriteRune(pickRune(re.Rune))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('a')
	case syntax.OpCapture:
		return writeSample(b, re.Sub[0])
	case syntax.OpPlus:
		return writeSample(b, re.Sub[0])
	case syntax.OpRepeat:
		for i := 0; i < re.Min; i++ {
			if err := writeSample(b, re.Sub[0]); err != nil {
				return err
			}
		}
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if err := writeSample(b, s); err != nil {
				return err
			}
		}
	case syntax.OpAlternate:
		return writeSample(b, re.Sub[0])
	}
	// Empty matches, anchors, boundaries, star and quest add nothing.
	return nil
}

// pickRune picks a readable rune of a character class (pairs of ranges).
func pickRune(ranges []rune) rune {
	for _, want := range []rune{'a', 'A', '0', '-', '_'} {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= want && want <= ranges[i+1] {
				return want
			}
		}
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1] && r < ranges[i]+256; r++ {
			if unicode.IsPrint(r) && !unicode.IsSpace(r) {
				return r
			}
		}
	}
	if len(ranges) > 0 {
		return ranges[0]
	}
	return 'a'
}

// generated is a set of arguments made from the schema.
type generated struct {
	what string // "required properties at their lower bounds"
	doc  any
	json []byte
}

// validArgs generates arguments that the args schema accepts. notes say
// what could not be generated.
func validArgs(args *schema) (out []generated, notes []string) {
	if args == nil {
		return []generated{{what: "no arguments", doc: map[string]any{}, json: []byte("{}")}}, nil
	}
	seen := map[string]bool{}
	for _, m := range []struct {
		mode mode
		what string
	}{
		{lowerEdge, "required arguments at their lower bounds"},
		{upperEdge, "every argument at its upper bounds"},
	} {
		g := &generator{root: args.doc}
		v, err := g.value(args.doc, "", m.mode, 0)
		notes = append(notes, g.skipped...)
		if err != nil {
			notes = append(notes, fmt.Sprintf("no %s: %v", m.what, err))
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			notes = append(notes, fmt.Sprintf("no %s: %v", m.what, err))
			continue
		}
		if err := args.validateJSON(b); err != nil {
			notes = append(notes, fmt.Sprintf("no %s: the generated %s does not validate (%v)", m.what, b, err))
			continue
		}
		if seen[string(b)] {
			continue
		}
		seen[string(b)] = true
		out = append(out, generated{what: m.what, doc: v, json: b})
	}
	return out, dedupe(notes)
}

func dedupe(s []string) []string {
	sort.Strings(s)
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}
