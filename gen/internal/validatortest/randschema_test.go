package validatortest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Random argument schemas, and random arguments for them, for the
// schema-varying differential test (schemas_test.go). A tool's schema is
// made from its seed alone, so a seed reproduces it. The schemas use what
// the one-pass validator compiles (types, bounds, lengths, patterns,
// formats, enums, consts, defaults, required, nesting, maps, arrays,
// uniqueItems, nullable values, $ref, additionalProperties) and, now and
// then, something it leaves to the general validator.

// rschema is a random schema.
type rschema struct {
	typ      string // boolean integer number string object array map any
	nullable int    // 0: not; 1: type [T, "null"]; 2: anyOf [T, {type: null}]
	untyped  bool   // an enum or const without "type"

	enum     []string // JSON texts
	constant string   // JSON text; "" for none

	minLen, maxLen int // -1: none
	pattern        string
	format         string

	min, max, exMin, exMax string // JSON numbers; "" for none
	multipleOf             string

	items              *rschema
	minItems, maxItems int // -1: none
	unique             bool

	props    []rprop
	required []string
	closed   int // additionalProperties: 0 absent, 1 false, 2 true

	values *rschema // a map's additionalProperties schema; nil for none

	general string // a keyword the one-pass validator leaves to the general one, with its value: `"minProperties": 1`

	dflt string // JSON text of the default; "" for none
	ref  string // the schema is this $defs entry, referred to by $ref
}

type rprop struct {
	name string
	s    *rschema
}

// rtool is a random tool: its args schema and additional_args policy.
type rtool struct {
	name   string
	seed   uint64
	root   *rschema
	defs   map[string]*rschema
	policy string
	// A regression is a schema and arguments as written.
	raw     string
	rawArgs []string
	onePass bool // a regression that must compile to a one-pass validator
}

type schemaGen struct {
	r    *rand.Rand
	defs map[string]*rschema
	n    int // nodes made, bounding the size
}

func newRandTool(seed uint64) *rtool {
	g := &schemaGen{r: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)), defs: map[string]*rschema{}}
	root := g.object(0)
	root.nullable = 0
	root.dflt = ""
	root.ref = ""
	policies := []string{"reject", "strip", "allow", ""}
	t := &rtool{name: "t" + strconv.FormatUint(seed, 10), seed: seed, root: root, defs: g.defs, policy: policies[g.r.IntN(len(policies))]}
	if t.policy != "strip" && root.values != nil && g.chance(0.8) {
		root.values = nil // elsewhere, the general validator's
	}
	return t
}

func (g *schemaGen) chance(p float64) bool { return g.r.Float64() < p }

func (g *schemaGen) pick(options ...string) string { return options[g.r.IntN(len(options))] }

var propNames = []string{"a", "b", "c", "id", "name", "count", "tags", "x1", "long_name", "v", "q"}

// oddPropNames are property names that are no Go identifiers, or that
// struct tags and encoding/json treat specially (-schemafuzz.oddnames).
var oddPropNames = []string{"a", "with space", "a-b", "type", "func", "Ünï", "a,b", "", "-", "A", "x;y", "1st", "a\"b", "omitempty"}

// namePool is propNames, or oddPropNames with -schemafuzz.oddnames.
func namePool() []string {
	if *schemaFuzzOddNames {
		return oddPropNames
	}
	return propNames
}

// object makes an object schema with properties.
func (g *schemaGen) object(depth int) *rschema {
	s := &rschema{typ: "object", minLen: -1, maxLen: -1, minItems: -1, maxItems: -1}
	names := slices.Clone(namePool())
	g.r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	n := g.r.IntN(5)
	if depth == 0 {
		n += 1 + g.r.IntN(3)
	}
	for _, name := range names[:n] {
		s.props = append(s.props, rprop{name, g.schema(depth + 1)})
		if g.chance(0.35) {
			s.required = append(s.required, name)
		}
	}
	if g.chance(0.02) {
		s.required = append(s.required, "missing_prop") // required, not a property
	}
	s.closed = g.r.IntN(3)
	if depth == 0 && s.closed != 1 && g.chance(0.2) {
		s.values = g.scalar() // with policy strip only
	}
	return s
}

// schema makes the schema of a value at depth.
func (g *schemaGen) schema(depth int) *rschema {
	g.n++
	var s *rschema
	kinds := []string{"boolean", "integer", "number", "string", "string", "integer"}
	if depth < 3 && g.n < 40 {
		kinds = append(kinds, "object", "array", "map", "array")
	}
	if g.chance(0.03) {
		kinds = []string{"any"}
	}
	switch k := kinds[g.r.IntN(len(kinds))]; k {
	case "object":
		s = g.object(depth)
	case "array":
		s = &rschema{typ: "array", minLen: -1, maxLen: -1, minItems: -1, maxItems: -1}
		s.items = g.schema(depth + 1)
		if g.chance(0.4) {
			s.minItems = g.r.IntN(3)
		}
		if g.chance(0.4) {
			s.maxItems = max(s.minItems, 0) + g.r.IntN(4)
		}
		switch s.items.typ {
		case "boolean", "integer", "number", "string":
			s.unique = s.items.nullable == 0 && g.chance(0.4)
		default:
			s.unique = g.chance(0.03)
		}
	case "map":
		s = &rschema{typ: "map", minLen: -1, maxLen: -1, minItems: -1, maxItems: -1}
		switch g.r.IntN(3) {
		case 0:
			s.values = g.schema(depth + 1)
		case 1:
			s.closed = 1
		}
	case "any":
		s = &rschema{typ: "any", minLen: -1, maxLen: -1, minItems: -1, maxItems: -1}
	default:
		s = g.scalarOf(k)
	}
	if s.typ != "any" && g.chance(0.15) {
		s.nullable = 1 + g.r.IntN(2)
	}
	if g.chance(0.01) {
		s.general = g.pick(`"minProperties": 1`, `"not": {"const": 3}`, `"maxProperties": 2`)
	}
	if g.chance(0.35) {
		// Defaults are made valid as far as the generator knows; now and
		// then one is wrong, which Generate must refuse.
		s.dflt = (&argGen{r: g.r, defs: g.defs, bad: 0.02, dflt: true}).text(s, true, 0)
	}
	if (s.typ == "object" || s.typ == "string" || s.typ == "integer") && s.nullable == 0 && g.chance(0.12) {
		name := "d" + strconv.Itoa(len(g.defs)+1)
		def := *s
		def.dflt = ""
		g.defs[name] = &def
		s = &rschema{ref: name, dflt: s.dflt, typ: s.typ}
		if g.chance(0.5) {
			s.dflt = ""
		}
	}
	return s
}

func (g *schemaGen) scalar() *rschema {
	return g.scalarOf(g.pick("boolean", "integer", "number", "string"))
}

var patterns = []string{`^[a-z]+$`, `^[A-Z]`, `[0-9]{2}`, `^.{2,4}$`, `^(ab|c)*$`, `é`}

var formats = []string{"email", "uuid", "date", "date-time", "ipv4", "hostname", "uri", "color", "ipv6", "time", "duration", "regex", "json-pointer", "uri-reference", "semver"}

func (g *schemaGen) scalarOf(k string) *rschema {
	s := &rschema{typ: k, minLen: -1, maxLen: -1, minItems: -1, maxItems: -1}
	switch k {
	case "boolean":
		if g.chance(0.1) {
			s.constant = g.pick("true", "false")
		}
	case "integer":
		if g.chance(0.4) {
			s.min = strconv.Itoa(g.r.IntN(10) - 3)
		}
		if g.chance(0.4) {
			s.max = strconv.Itoa(g.r.IntN(20) + 5)
		}
		if g.chance(0.05) {
			// Bounds where float64 stops holding every integer.
			s.min, s.max = g.pick("", "-9007199254740992"), g.pick("9007199254740992", "4611686018427387904")
		}
		if g.chance(0.15) {
			s.exMin = g.pick("-1", "0", "2.5")
		}
		if g.chance(0.15) {
			s.exMax = g.pick("10", "100", "7.5")
		}
		if g.chance(0.2) {
			s.multipleOf = g.pick("2", "3", "5", "0.5", "1")
		}
		if g.chance(0.15) {
			s.format = "int32"
		}
		switch {
		case g.chance(0.15):
			s.enum = []string{"1", "2", "3"}[:1+g.r.IntN(3)]
			if g.chance(0.3) {
				s.enum = append(s.enum, g.pick("10", "-5", "0", "4.0", "9007199254740992", "1e3"))
			}
			s.untyped = g.chance(0.2)
		case g.chance(0.08):
			s.constant = g.pick("2", "0", "-1", "1.0", "2e0", "-0")
			s.untyped = g.chance(0.4)
		}
	case "number":
		if g.chance(0.4) {
			s.min = g.pick("0", "-1.5", "1")
		}
		if g.chance(0.4) {
			s.max = g.pick("10", "1.5", "100")
		}
		if g.chance(0.15) {
			s.exMin = g.pick("0", "-2")
		}
		if g.chance(0.15) {
			s.exMax = g.pick("10", "3.5")
		}
		if g.chance(0.2) {
			s.multipleOf = g.pick("0.5", "0.25", "2", "0.1")
		}
		if g.chance(0.1) {
			s.format = "float"
		}
		if g.chance(0.05) {
			s.constant = g.pick("1.5", "2", "1.0", "-0.0", "1e-3")
		}
	case "string":
		if g.chance(0.3) {
			s.minLen = g.r.IntN(3)
		}
		if g.chance(0.3) {
			s.maxLen = max(s.minLen, 0) + g.r.IntN(6)
		}
		if g.chance(0.2) {
			s.pattern = patterns[g.r.IntN(len(patterns))]
		}
		if g.chance(0.2) {
			s.format = formats[g.r.IntN(len(formats))]
		}
		switch {
		case g.chance(0.2):
			vals := []string{`"red"`, `"green"`, `"focus time"`, `"Ünï"`, `"a"`, `""`, `"a\"b"`, `"Red"`}
			s.enum = vals[:1+g.r.IntN(len(vals))]
			s.untyped = g.chance(0.3)
		case g.chance(0.06):
			s.constant = g.pick(`"x"`, `"ab"`, `"2026-01-02"`)
		}
	}
	if (len(s.enum) > 0 || s.constant != "") && g.chance(0.8) {
		// Mostly without constraints the values would contradict.
		s.min, s.max, s.exMin, s.exMax, s.multipleOf, s.pattern = "", "", "", "", "", ""
		s.minLen, s.maxLen = -1, -1
		if s.format != "int32" && s.format != "float" {
			s.format = ""
		}
	}
	return s
}

// JSON writes the schema.
func (t *rtool) JSON() string {
	if t.raw != "" {
		return t.raw
	}
	var b strings.Builder
	t.root.write(&b, t.defs)
	return b.String()
}

func (s *rschema) write(b *strings.Builder, defs map[string]*rschema) {
	var kv []string
	add := func(k, v string) { kv = append(kv, strconv.Quote(k)+": "+v) }
	if s.ref != "" {
		add("$ref", strconv.Quote("#/$defs/"+s.ref))
		if s.dflt != "" {
			add("default", s.dflt)
		}
		b.WriteString("{" + strings.Join(kv, ", ") + "}")
		return
	}
	typ := s.typ
	switch typ {
	case "map":
		typ = "object"
	case "any":
		typ = ""
	}
	inner := func() {
		if typ != "" && !s.untyped {
			if s.nullable == 1 {
				add("type", `["`+typ+`", "null"]`)
			} else {
				add("type", strconv.Quote(typ))
			}
		}
		if len(s.enum) > 0 {
			add("enum", "["+strings.Join(s.enum, ", ")+"]")
		}
		if s.constant != "" {
			add("const", s.constant)
		}
		for _, x := range []struct{ k, v string }{{"minimum", s.min}, {"maximum", s.max}, {"exclusiveMinimum", s.exMin}, {"exclusiveMaximum", s.exMax}, {"multipleOf", s.multipleOf}} {
			if x.v != "" {
				add(x.k, x.v)
			}
		}
		for _, x := range []struct {
			k string
			v int
		}{{"minLength", s.minLen}, {"maxLength", s.maxLen}, {"minItems", s.minItems}, {"maxItems", s.maxItems}} {
			if x.v >= 0 {
				add(x.k, strconv.Itoa(x.v))
			}
		}
		if s.pattern != "" {
			add("pattern", strconv.Quote(s.pattern))
		}
		if s.format != "" {
			add("format", strconv.Quote(s.format))
		}
		if s.items != nil {
			var ib strings.Builder
			s.items.write(&ib, nil)
			add("items", ib.String())
		}
		if s.unique {
			add("uniqueItems", "true")
		}
		if s.typ == "object" {
			var pb strings.Builder
			pb.WriteString("{")
			for i, p := range s.props {
				if i > 0 {
					pb.WriteString(", ")
				}
				pb.WriteString(strconv.Quote(p.name) + ": ")
				p.s.write(&pb, nil)
			}
			pb.WriteString("}")
			add("properties", pb.String())
			if len(s.required) > 0 {
				q := make([]string, len(s.required))
				for i, r := range s.required {
					q[i] = strconv.Quote(r)
				}
				add("required", "["+strings.Join(q, ", ")+"]")
			}
		}
		switch {
		case s.values != nil:
			var vb strings.Builder
			s.values.write(&vb, nil)
			add("additionalProperties", vb.String())
		case s.closed == 1:
			add("additionalProperties", "false")
		case s.closed == 2:
			add("additionalProperties", "true")
		}
		if s.general != "" {
			kv = append(kv, s.general)
		}
	}
	if s.nullable == 2 {
		inner()
		body := "{" + strings.Join(kv, ", ") + "}"
		kv = nil
		add("anyOf", "["+body+`, {"type": "null"}]`)
	} else {
		inner()
	}
	if s.dflt != "" {
		add("default", s.dflt)
	}
	if len(defs) > 0 {
		names := make([]string, 0, len(defs))
		for n := range defs {
			names = append(names, n)
		}
		slices.Sort(names)
		var db strings.Builder
		db.WriteString("{")
		for i, n := range names {
			if i > 0 {
				db.WriteString(", ")
			}
			db.WriteString(strconv.Quote(n) + ": ")
			defs[n].write(&db, nil)
		}
		db.WriteString("}")
		add("$defs", db.String())
	}
	b.WriteString("{" + strings.Join(kv, ", ") + "}")
}

// argGen makes random arguments for a schema: mostly valid, with mistakes
// of every kind a model makes.
type argGen struct {
	r    *rand.Rand
	defs map[string]*rschema
	// bad is the chance that a value is made wrong on purpose.
	bad float64
	// dflt makes a default: JSON without a key given twice, which the
	// catalog would not load.
	dflt bool
}

func (a *argGen) chance(p float64) bool { return a.r.Float64() < p }

// text writes a value for s; valid asks for a value s accepts, as far as
// the generator knows.
func (a *argGen) text(s *rschema, valid bool, depth int) string {
	if s.ref != "" {
		if def := a.defs[s.ref]; def != nil {
			s = def
		} else {
			return "null" // defs are not known when defaults are made
		}
	}
	if valid && a.chance(a.bad) {
		valid = false
	}
	if !valid && a.chance(0.3) {
		return a.wrongType(s)
	}
	if s.nullable > 0 && a.chance(0.15) {
		return "null"
	}
	if depth > 12 {
		return "null"
	}
	if len(s.enum) > 0 && (valid || a.chance(0.5)) {
		if valid || a.chance(0.5) {
			return s.enum[a.r.IntN(len(s.enum))]
		}
	}
	if s.constant != "" && (valid || a.chance(0.5)) {
		return s.constant
	}
	switch s.typ {
	case "boolean":
		return []string{"true", "false"}[a.r.IntN(2)]
	case "integer":
		return a.integer(s, valid)
	case "number":
		return a.number(s, valid)
	case "string":
		if !a.dflt && a.chance(0.05) {
			// Escapes as models write them, a lone surrogate among them.
			return []string{`"\u00e9t\u00e9"`, `"Ab\ud800"`, `"a\/b"`, `"\u0041bc"`, `"tab\there"`}[a.r.IntN(5)]
		}
		return strconv.Quote(a.str(s, valid))
	case "array":
		n := a.r.IntN(4)
		if s.minItems >= 0 && valid {
			n = max(n, s.minItems)
		}
		if s.maxItems >= 0 && valid {
			n = min(n, s.maxItems)
		}
		var items []string
		for range n {
			items = append(items, a.text(s.items, valid, depth+1))
		}
		if s.unique && valid {
			items = uniqueTexts(items)
		} else if len(items) > 0 && a.chance(0.1) {
			items = append(items, items[0])
		}
		return "[" + strings.Join(items, ",") + "]"
	case "map":
		var kv []string
		if s.closed != 1 || !valid {
			keys := map[string]bool{}
			for i := range a.r.IntN(3) {
				pool := namePool()
				key := pool[a.r.IntN(len(pool))]
				if keys[key] && (a.dflt || a.chance(0.8)) {
					continue
				}
				keys[key] = true
				v := `"x"`
				if s.values != nil {
					v = a.text(s.values, valid, depth+1)
				} else if a.chance(0.5) {
					v = strconv.Itoa(i)
				}
				kv = append(kv, strconv.Quote(key)+":"+v)
			}
		}
		return "{" + strings.Join(kv, ",") + "}"
	case "object":
		return a.object(s, valid, depth)
	case "any":
		return []string{`1`, `"x"`, `[1,{"a":null}]`, `{}`, `1.5e3`, `null`, `true`}[a.r.IntN(7)]
	}
	return "null"
}

func (a *argGen) object(s *rschema, valid bool, depth int) string {
	var kv []string
	for _, p := range s.props {
		req := slices.Contains(s.required, p.name)
		switch {
		case req && (valid || a.chance(0.8)), !req && a.chance(0.5):
			key := strconv.Quote(p.name)
			if !a.dflt && p.name != "" && p.name[0] < 0x80 && a.chance(0.05) {
				key = fmt.Sprintf(`"\u%04x%s`, p.name[0], key[2:]) // the first letter escaped
			}
			kv = append(kv, key+":"+a.text(p.s, valid, depth+1))
		}
	}
	if !valid || s.closed != 1 && a.chance(0.2) {
		if a.chance(0.4) {
			v := `1`
			if s.values != nil {
				v = a.text(s.values, true, depth+1)
			}
			extra := g(a, "extra", "zz", "A")
			if len(s.props) > 0 && !a.dflt && a.chance(0.5) {
				// A property's name in another case, or folding to it in
				// Unicode: another member, which fills no field.
				if f := foldedName(a, s.props[a.r.IntN(len(s.props))].name); !slices.ContainsFunc(s.props, func(p rprop) bool { return p.name == f }) {
					extra = f
				}
			}
			if !a.dflt || !slices.ContainsFunc(s.props, func(p rprop) bool { return p.name == extra }) {
				kv = append(kv, strconv.Quote(extra)+":"+v) // a default names no key twice
			}
		}
	}
	if len(kv) > 0 && !a.dflt && a.chance(0.05) {
		kv = append(kv, kv[a.r.IntN(len(kv))]) // a key given twice
	}
	a.r.Shuffle(len(kv), func(i, j int) { kv[i], kv[j] = kv[j], kv[i] })
	return "{" + strings.Join(kv, ",") + "}"
}

func g(a *argGen, options ...string) string { return options[a.r.IntN(len(options))] }

// foldedName returns a name that differs from name only in case or in
// Unicode folding (ſ folds to s, the Kelvin sign to k), or "extra" when
// there is none.
func foldedName(a *argGen, name string) string {
	var cands []string
	for _, f := range []func(string) string{
		strings.ToUpper,
		func(s string) string {
			r := []rune(s)
			if len(r) > 0 {
				r[0] = []rune(strings.ToUpper(string(r[0])))[0]
			}
			return string(r)
		},
		func(s string) string { return strings.ReplaceAll(s, "s", "\u017f") },
		func(s string) string { return strings.ReplaceAll(s, "k", "\u212a") },
		func(s string) string { return strings.ReplaceAll(strings.ToLower(s), "ü", "Ü") },
	} {
		if c := f(name); c != name {
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 {
		return "extra"
	}
	return cands[a.r.IntN(len(cands))]
}

func uniqueTexts(items []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, it := range items {
		if !seen[it] {
			seen[it] = true
			out = append(out, it)
		}
	}
	return out
}

func (a *argGen) wrongType(s *rschema) string {
	return []string{`"1"`, `1`, `1.5`, `true`, `null`, `[]`, `{}`, `"2026-01-02"`}[a.r.IntN(8)]
}

func parseNum(s string) (float64, bool) {
	if s == "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// numOK reports whether x fits the bounds and multipleOf of s.
func numOK(s *rschema, x float64) bool {
	if f, ok := parseNum(s.min); ok && x < f {
		return false
	}
	if f, ok := parseNum(s.max); ok && x > f {
		return false
	}
	if f, ok := parseNum(s.exMin); ok && x <= f {
		return false
	}
	if f, ok := parseNum(s.exMax); ok && x >= f {
		return false
	}
	if f, ok := parseNum(s.multipleOf); ok {
		q := x / f
		if math.Abs(q-math.Round(q)) > 1e-9 {
			return false
		}
	}
	return true
}

// oddNumbers are numbers at the edges of what the Go types hold.
var oddNumbers = []string{"0.3", "0.7", "1.1", "0.30000000000000004", "1e-7", "2.675", "1e19", "-1e19", "3000000000", "-2147483649", "2147483647", "9007199254740993", "1e400", "-1e400", "1e-400", "1E2", "-0.0", "0.1", "4.0e0", "1e39",
	// Integers a float64 does not hold, or writes otherwise.
	"9007199254740993.0", "-9007199254740993", "9007199254740991", "9007199254740992.5", "9223372036854775807", "-9223372036854775808",
	"9223372036854775808", "-9223372036854775809", "9.223372036854775807e18", "-9.223372036854775808e18", "12345678901234567890123", strings.Repeat("9", 60), "-" + strings.Repeat("9", 60) + ".0",
	"1.5e1", "150e-1", "1e3", "1E+2", "0.1e-400", "-0", "2147483648.0",
	// Numbers a float64 rounds, and numbers beyond the limits.
	"1.0000000000000000001", "0.99999999999999999999", "9.99999999999999999999", "1e1000", "1e1001", "1e-1001", "1" + strings.Repeat("0", 1000)}

func (a *argGen) integer(s *rschema, valid bool) string {
	if !a.dflt && a.chance(0.05) {
		return oddNumbers[a.r.IntN(len(oddNumbers))]
	}
	for range 20 {
		x := float64(a.r.IntN(40) - 10)
		if !valid || numOK(s, x) {
			return a.numText(x, true)
		}
	}
	return []string{"0", "1e19", "-1e19", "3000000000", "9007199254740993", "2.5"}[a.r.IntN(6)]
}

func (a *argGen) number(s *rschema, valid bool) string {
	if !a.dflt && a.chance(0.05) {
		return oddNumbers[a.r.IntN(len(oddNumbers))]
	}
	for range 20 {
		x := float64(a.r.IntN(80)-20) / 4
		if a.chance(0.2) {
			x = a.r.Float64()*20 - 5
		}
		if !valid || numOK(s, x) {
			return a.numText(x, false)
		}
	}
	return []string{"0", "1e39", "1e-400", "1e400", "-0.0"}[a.r.IntN(5)]
}

// numText writes x in one of the ways JSON allows.
func (a *argGen) numText(x float64, integer bool) string {
	if x == math.Trunc(x) {
		switch a.r.IntN(8) {
		case 0:
			return strconv.FormatFloat(x, 'f', 1, 64) // 3.0
		case 1:
			return strconv.FormatFloat(x, 'e', -1, 64) // 3e+00
		case 2:
			if x == 0 {
				return "-0"
			}
		}
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

var formatSamples = map[string][]string{
	"email":         {"a@b.example", "nobody", "x@y"},
	"uuid":          {"123e4567-e89b-12d3-a456-426614174000", "x", "123E4567-E89B-12D3-A456-426614174000"},
	"date":          {"2026-02-01", "2026-02-30", "2026-1-1"},
	"date-time":     {"2026-01-02T09:00:00Z", "2026-01-02T09:00:00.5+01:00", "2026-12-31T23:59:60Z", "2026-01-02t09:00:00z", "yesterday"},
	"ipv4":          {"192.168.0.1", "256.1.1.1", "01.2.3.4"},
	"hostname":      {"example.com", "-bad-", "a..b"},
	"uri":           {"https://example.com/a", "not a uri", "mailto:a@b"},
	"color":         {"red", "#fff"},
	"ipv6":          {"::1", "1::2::3", "fe80::1%eth0"},
	"time":          {"09:00:00Z", "25:00:00Z", "09:00:00"},
	"duration":      {"P1D", "1D", "PT1.5S"},
	"regex":         {"a+", "(", "\\p{L}"},
	"json-pointer":  {"/a/b", "a", "/a~2"},
	"uri-reference": {"../a", "http://[x", "#f"},
	"semver":        {"1.2.3", "1.2", "1.0.0-rc.1"},
}

var patternSamples = []string{"abc", "ABC", "Abc", "a12", "12", "x", "é世x", "abab", "cab", "", "é"}

func (a *argGen) str(s *rschema, valid bool) string {
	var cands []string
	if samples, ok := formatSamples[s.format]; ok {
		cands = append(cands, samples...)
	}
	if s.pattern != "" || len(cands) == 0 {
		cands = append(cands, patternSamples...)
		cands = append(cands, a.randomString())
	}
	a.r.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
	if !valid {
		return cands[0]
	}
	for _, c := range cands {
		if strOK(s, c) {
			return c
		}
	}
	return cands[0]
}

func (a *argGen) randomString() string {
	const alphabet = "abcXYZ09 _-é世\"\\\n"
	rs := []rune(alphabet)
	n := a.r.IntN(8)
	out := make([]rune, n)
	for i := range out {
		out[i] = rs[a.r.IntN(len(rs))]
	}
	return string(out)
}

func strOK(s *rschema, v string) bool {
	n := len([]rune(v))
	if s.minLen >= 0 && n < s.minLen || s.maxLen >= 0 && n > s.maxLen {
		return false
	}
	if s.pattern != "" && !regexp.MustCompile(s.pattern).MatchString(v) {
		return false
	}
	if samples, ok := formatSamples[s.format]; ok && s.format != "color" && v != samples[0] {
		return false
	}
	return true
}

// catalogJSON writes a catalog of the tools.
func catalogJSON(pkg string, tools []*rtool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "{\"package\": %q, \"tools\": {\n", pkg)
	for i, t := range tools {
		if i > 0 {
			b.WriteString(",\n")
		}
		policy := ""
		if t.policy != "" {
			policy = fmt.Sprintf(`, "additional_args": %q`, t.policy)
		}
		fmt.Fprintf(&b, "%q: {\"description\": \"Random tool of seed %d.\"%s, \"args\": %s}", t.name, t.seed, policy, t.JSON())
	}
	b.WriteString("\n}}\n")
	return b.String()
}

// args makes n arguments for t, valid and not.
func (t *rtool) args(n int) []string {
	if t.raw != "" {
		return t.rawArgs
	}
	a := &argGen{r: rand.New(rand.NewPCG(t.seed, 7)), defs: t.defs, bad: 0.08}
	out := []string{"{}", "", " null ", "[]", `{"a":1,}`, "{} {}"}
	for len(out) < n {
		valid := a.chance(0.6)
		out = append(out, a.text(t.root, valid, 0))
	}
	return out
}
