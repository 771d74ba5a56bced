package export

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/toolcat/toolcat/internal/jsonptr"
	"github.com/toolcat/toolcat/runtime"
)

// Gemini returns a Gemini Tool holding one function declaration per tool:
//
//	{"functionDeclarations": [{"name", "description", "parameters"}]}
//
// parameters is the args schema rewritten by GeminiSchema, and is left out
// for a tool without arguments (Gemini refuses an OBJECT without
// properties).
//
// A Tool of generateContent has no deferred declarations: with DeferHidden
// Gemini returns an error wrapping ErrDeferUnsupported.
func Gemini(metas []runtime.Meta, opts ...Option) ([]byte, error) {
	o := newOptions(opts)
	if o.deferHidden {
		return nil, deferUnsupported("Gemini", "generateContent's function declarations take no defer_loading (Gemini's tool retrieval is a preview of the separate Interactions API)")
	}
	tools, err := prepare(metas, o, geminiNames)
	if err != nil {
		return nil, err
	}
	decls := array()
	for _, t := range tools {
		d := withDescription(object().set("name", str(t.meta.WireName())), t.desc)
		p := geminiRewrite(t.args)
		if props := p.get("properties"); props != nil && len(props.keys) > 0 {
			d.set("parameters", p)
		}
		decls.items = append(decls.items, d)
	}
	return render(object().set("functionDeclarations", decls)), nil
}

// GeminiSchema rewrites a JSON Schema into the OpenAPI 3.0 subset that
// Gemini's Schema takes (type, format, title, description, nullable, enum,
// properties, required, items, anyOf, minItems, maxItems, minLength,
// maxLength, pattern, minimum, maximum, minProperties, maxProperties,
// default), keeping what it can and saying the rest in the description:
//
//   - types are upper case (STRING, OBJECT, ...); [T, "null"] becomes type T
//     with "nullable": true, and a union of several types an anyOf with one
//     branch per type
//   - local $ref (#, #/$defs/..., #/definitions/...) is replaced by its
//     target; a reference back into a schema being expanded (recursion) is
//     cut, keeping the target's type and saying so in the description, as
//     is every $ref after the first 1000 inlined; a remote $ref is dropped
//     with a note
//   - allOf branches are merged into the schema (properties and required
//     joined; other keywords taken when the schema lacks them)
//   - required keeps only the names among the properties
//   - oneOf becomes anyOf; a {"type": "null"} branch becomes "nullable": true
//   - const becomes a one-value enum, and enum is kept, when the values are
//     strings; other values are listed in the description ("One of: 1, 2.")
//   - string formats other than date-time and enum, number formats other
//     than float and double and integer formats other than int32 and int64
//     go to the description ("Format: uri.")
//   - exclusiveMinimum, exclusiveMaximum, multipleOf, uniqueItems,
//     dependentRequired, patternProperties, a schema-valued
//     additionalProperties and tuple items go to the description
//   - additionalProperties: true/false, $schema, $id, $comment, $defs,
//     definitions, examples and every other keyword are dropped
//
// The result is compact JSON.
func GeminiSchema(schema []byte) ([]byte, error) {
	n, err := parse(schema)
	if err != nil {
		return nil, err
	}
	return []byte(geminiRewrite(n).String()), nil
}

// geminiOrder is the order of the keys Gemini's Schema has.
var geminiOrder = []string{
	"type", "nullable", "format", "title", "description", "enum", "properties", "required",
	"items", "anyOf", "minItems", "maxItems", "minLength", "maxLength", "pattern",
	"minimum", "maximum", "minProperties", "maxProperties", "default",
}

func geminiRewrite(root *node) *node {
	g := geminiConv{root: root}
	return g.conv(root, []string{"#"})
}

type geminiConv struct {
	root *node
	// inlined counts the $refs replaced by their target, which stops at
	// maxInlined: references that share targets can multiply the size of
	// the schema at each level.
	inlined int
}

const maxInlined = 1000

// conv rewrites the schema n; expanding lists the $refs being expanded.
func (g *geminiConv) conv(n *node, expanding []string) *node {
	if n == nil || n.kind != 'o' {
		// true, false or junk: any value.
		return object()
	}
	var notes []string
	n, notes, expanding = g.resolve(n, expanding)
	n = mergeAllOf(g, n, expanding)

	out := map[string]*node{}
	// Type.
	var types []string
	nullable := false
	switch ty := n.get("type"); {
	case ty == nil:
	case ty.kind == 's':
		types = []string{ty.str}
	case ty.kind == 'a':
		for _, t := range ty.items {
			types = append(types, t.text())
		}
	}
	if i := slices.Index(types, "null"); i >= 0 {
		nullable = true
		types = slices.Delete(types, i, i+1)
	}
	if len(types) == 0 {
		types = inferTypes(n)
	}
	// Alternatives: anyOf and oneOf, less null branches.
	var alts []*node
	for _, k := range []string{"anyOf", "oneOf"} {
		if a := n.get(k); a != nil {
			for _, b := range a.items {
				if b.kind == 'o' && b.get("type").text() == "null" && len(b.keys) == 1 {
					nullable = true
					continue
				}
				alts = append(alts, g.conv(b, expanding))
			}
		}
	}
	switch {
	case len(types) == 1:
		out["type"] = str(strings.ToUpper(types[0]))
	case len(types) > 1 && alts == nil:
		for _, t := range types {
			alts = append(alts, object().set("type", str(strings.ToUpper(t))))
		}
	case len(types) > 1:
		notes = append(notes, "Type: "+strings.Join(types, " or ")+".")
	}
	if len(alts) == 1 && out["type"] == nil {
		// One alternative left: it is the schema.
		for i, k := range alts[0].keys {
			if out[k] == nil && k != "description" {
				out[k] = alts[0].vals[i]
			}
		}
		if d := alts[0].get("description").text(); d != "" {
			notes = append([]string{d}, notes...)
		}
		alts = nil
	}
	if alts != nil {
		out["anyOf"] = array(alts...)
	}
	if nullable {
		out["nullable"] = boolean(true)
	}
	typ := ""
	if t := out["type"]; t != nil {
		typ = t.text()
	}

	// Values.
	var values []*node
	if c := n.get("const"); c != nil {
		values = []*node{c}
	} else if e := n.get("enum"); e != nil {
		values = e.items
	}
	if values != nil {
		var names []string
		allStrings := true
		for _, v := range values {
			switch v.kind {
			case 's':
				names = append(names, v.str)
			case 'z':
				out["nullable"] = boolean(true)
			default:
				allStrings = false
			}
		}
		if allStrings && (typ == "" || typ == "STRING") && len(names) > 0 {
			out["type"], typ = str("STRING"), "STRING"
			out["enum"] = strs(names)
		} else {
			var lits []string
			for _, v := range values {
				lits = append(lits, v.String())
			}
			if len(values) == 1 {
				notes = append(notes, "Always "+lits[0]+".")
			} else {
				notes = append(notes, "One of: "+strings.Join(lits, ", ")+".")
			}
		}
	}

	// Format.
	if f := n.get("format").text(); f != "" {
		ok := map[string][]string{"STRING": {"date-time", "enum"}, "NUMBER": {"float", "double"}, "INTEGER": {"int32", "int64"}}
		if slices.Contains(ok[typ], f) {
			out["format"] = str(f)
		} else {
			notes = append(notes, "Format: "+f+".")
		}
	}

	// Keywords Gemini has.
	for _, k := range []string{"title", "minItems", "maxItems", "minLength", "maxLength", "pattern",
		"minimum", "maximum", "minProperties", "maxProperties", "default"} {
		if v := n.get(k); v != nil {
			out[k] = v.clone()
		}
	}
	if props := n.get("properties"); props != nil && props.kind == 'o' {
		p := object()
		for i, k := range props.keys {
			p.set(k, g.conv(props.vals[i], expanding))
		}
		out["properties"] = p
		if out["type"] == nil {
			out["type"] = str("OBJECT")
		}
	}
	if r := n.get("required"); r != nil && r.kind == 'a' {
		// Gemini wants every required name among the properties.
		req := array()
		for _, x := range r.items {
			if out["properties"].get(x.text()) != nil {
				req.items = append(req.items, x.clone())
			}
		}
		if len(req.items) > 0 {
			out["required"] = req
		}
	}
	if items := n.get("items"); items != nil {
		if items.kind == 'a' {
			notes = append(notes, fmt.Sprintf("A list of %d items, each with its own meaning, in order.", len(items.items)))
		} else {
			out["items"] = g.conv(items, expanding)
		}
	} else if pre := n.get("prefixItems"); pre != nil {
		notes = append(notes, fmt.Sprintf("A list of %d items, each with its own meaning, in order.", len(pre.items)))
	}

	// Keywords Gemini lacks, said in words.
	if v := n.get("exclusiveMinimum"); v != nil && v.kind == 'n' {
		notes = append(notes, "Greater than "+v.str+".")
	}
	if v := n.get("exclusiveMaximum"); v != nil && v.kind == 'n' {
		notes = append(notes, "Less than "+v.str+".")
	}
	if v := n.get("multipleOf"); v != nil && v.kind == 'n' {
		notes = append(notes, "A multiple of "+v.str+".")
	}
	if n.get("uniqueItems").isTrue() {
		notes = append(notes, "Items are unique.")
	}
	if dr := n.get("dependentRequired"); dr != nil && dr.kind == 'o' {
		for i, k := range dr.keys {
			var names []string
			for _, x := range dr.vals[i].items {
				names = append(names, x.text())
			}
			notes = append(notes, fmt.Sprintf("With %s, also give %s.", k, strings.Join(names, ", ")))
		}
	}
	if pp := n.get("patternProperties"); pp != nil && pp.kind == 'o' {
		for _, k := range pp.keys {
			notes = append(notes, "Also takes properties whose names match "+strconv.Quote(k)+".")
		}
	}
	if ap := n.get("additionalProperties"); ap != nil && ap.kind == 'o' {
		what := "any value"
		if t := ap.get("type"); t != nil {
			what = "values of type " + strings.Trim(t.String(), `"`)
		}
		notes = append(notes, "Also takes other properties, with "+what+".")
	}

	desc := n.get("description").text()
	for _, note := range notes {
		if desc != "" && !strings.HasSuffix(desc, ".") && !strings.HasSuffix(desc, "\n") {
			desc += "."
		}
		if desc != "" {
			desc += " "
		}
		desc += note
	}
	if desc != "" {
		out["description"] = str(desc)
	}
	res := object()
	for _, k := range geminiOrder {
		if v := out[k]; v != nil {
			res.set(k, v)
		}
	}
	return res
}

// inferTypes guesses the type of a schema that names none.
func inferTypes(n *node) []string {
	switch {
	case n.get("properties") != nil:
		return []string{"object"}
	case n.get("items") != nil:
		return []string{"array"}
	}
	if c := n.get("const"); c != nil {
		return jsonTypeOf(c)
	}
	if e := n.get("enum"); e != nil && len(e.items) > 0 {
		t := jsonTypeOf(e.items[0])
		for _, v := range e.items[1:] {
			if u := jsonTypeOf(v); len(u) > 0 && (len(t) == 0 || u[0] != t[0]) {
				return nil
			}
		}
		return t
	}
	return nil
}

func jsonTypeOf(v *node) []string {
	switch v.kind {
	case 's':
		return []string{"string"}
	case 'b':
		return []string{"boolean"}
	case 'n':
		if strings.ContainsAny(v.str, ".eE") {
			return []string{"number"}
		}
		return []string{"integer"}
	case 'o':
		return []string{"object"}
	case 'a':
		return []string{"array"}
	}
	return nil
}

// resolve replaces a $ref by its target, with the referring schema's other
// keywords on top. It returns the notes to add to the description and the
// refs now being expanded.
func (g *geminiConv) resolve(n *node, expanding []string) (*node, []string, []string) {
	var notes []string
	for range 32 { // a chain of refs to refs
		r := n.get("$ref")
		if r == nil {
			break
		}
		ref := r.text()
		target := g.lookup(ref)
		rest := n.clone()
		rest.del("$ref")
		switch {
		case target == nil:
			n = rest
			notes = append(notes, "Follows the schema "+ref+".")
		case slices.Contains(expanding, ref) || g.inlined >= maxInlined:
			// Recursion: keep the kind of value, cut the shape.
			cut := object()
			if t := target.get("type"); t != nil {
				cut.set("type", t.clone())
			}
			d := rest.get("description").text()
			if d == "" {
				d = target.get("description").text()
			}
			if d != "" {
				cut.set("description", str(d))
			}
			notes = append(notes, "Same shape as the enclosing "+refName(ref)+" (recursive, not expanded here).")
			return cut, notes, expanding
		default:
			g.inlined++
			merged := target.clone()
			for i, k := range rest.keys {
				merged.set(k, rest.vals[i])
			}
			n = merged
			expanding = append(slices.Clip(expanding), ref)
		}
	}
	return n, notes, expanding
}

// lookup finds a local $ref's target in the root schema, or nil.
func (g *geminiConv) lookup(ref string) *node {
	if !strings.HasPrefix(ref, "#") {
		return nil
	}
	// An anchor ("#name") is no pointer, and finds nothing.
	found, _ := jsonptr.Lookup(g.root, strings.TrimPrefix(ref, "#"), (*node).child)
	return found
}

// refName is the last token of a ref, or "schema" for the root.
func refName(ref string) string {
	if i := strings.LastIndex(ref, "/"); i >= 0 && i < len(ref)-1 {
		return ref[i+1:]
	}
	return "schema"
}

// mergeAllOf folds the allOf branches of n into n: properties and required
// are joined, and other keywords are taken when n lacks them.
func mergeAllOf(g *geminiConv, n *node, expanding []string) *node {
	all := n.get("allOf")
	if all == nil {
		return n
	}
	m := n.clone()
	m.del("allOf")
	for _, b := range all.items {
		if b.kind != 'o' {
			continue
		}
		b, _, _ = g.resolve(b, expanding)
		b = mergeAllOf(g, b, expanding)
		for i, k := range b.keys {
			v := b.vals[i]
			switch k {
			case "properties":
				props := m.get("properties")
				if props == nil {
					props = object()
					m.set("properties", props)
				}
				for j, pk := range v.keys {
					if props.get(pk) == nil {
						props.set(pk, v.vals[j].clone())
					}
				}
			case "required":
				req := m.get("required")
				if req == nil {
					req = array()
					m.set("required", req)
				}
				for _, x := range v.items {
					if !slices.ContainsFunc(req.items, func(y *node) bool { return y.text() == x.text() }) {
						req.items = append(req.items, x.clone())
					}
				}
			default:
				if m.get(k) == nil {
					m.set(k, v.clone())
				}
			}
		}
	}
	return m
}
