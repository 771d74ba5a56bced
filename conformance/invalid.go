package conformance

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolcat/toolcat/internal/jsonptr"
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
	var out []mutation
	eachInvalidArg(args, base, policy, func(m mutation) { out = append(out, m) })
	return out
}

// eachInvalidArg calls emit with each mutation invalidArgs describes, in
// the same order, without holding them all.
//
// The cost of a mutation grows with the number of required properties on
// its path, not with the number of properties: it is sent in the smallest
// valid carrier at its depth, the required
// properties of each object on its path at their lower bounds (from the
// lower edge) plus the one property on the path at its upper bound (from
// base), and its JSON is the carrier's, encoded once per property, with the
// broken value spliced in. A carrier that does not validate (a schema
// whose properties depend on each other) gives way to base itself.
func eachInvalidArg(args *schema, base any, policy runtime.AdditionalArgs, emit func(mutation)) {
	if args == nil {
		return
	}
	w := &mutator{args: args, policy: policy, emit: emit, seen: map[[sha256.Size]byte]bool{}}
	if b, err := json.Marshal([]any{"example"}); err == nil {
		w.add("arguments that are not an object", b, false, false)
	}
	w.walk(args.doc, args.compiled, true, base, w.lower(args.doc, "", 0), "", func(x any) any { return x }, 0)
}

// mutator walks the valid arguments and emits their mutations.
type mutator struct {
	args   *schema
	policy runtime.AdditionalArgs
	emit   func(mutation)
	// seen holds the digests of the mutations already considered, so that
	// two edits that give the same arguments are sent once.
	seen map[[sha256.Size]byte]bool
}

// add emits the mutation b unless it was seen or the schema accepts it
// after all (oneOf, open schemas); policy mutations are refused by the
// runtime's additional_args policy rather than by the schema, and refused
// ones are known to be refused already.
func (w *mutator) add(what string, b []byte, policy, refused bool) {
	k := sha256.Sum256(b)
	if w.seen[k] {
		return
	}
	w.seen[k] = true
	if !policy && !refused && w.args.validateJSON(b) == nil {
		return
	}
	w.emit(mutation{what: what, json: b, policy: policy})
}

// addDoc is add for a whole document.
func (w *mutator) addDoc(what string, doc any, policy bool) {
	if b, err := json.Marshal(doc); err == nil {
		w.add(what, b, policy, false)
	}
}

// valid reports whether the document validates against the args schema.
func (w *mutator) valid(doc any) bool {
	b, err := json.Marshal(doc)
	return err == nil && w.args.validateJSON(b) == nil
}

// lower returns the lower-edge value of s (required properties only), or
// nil when none can be generated.
func (w *mutator) lower(s any, ptr string, depth int) any {
	g := &generator{root: w.args.doc}
	v, err := g.value(s, ptr, lowerEdge, depth)
	if err != nil {
		return nil
	}
	return v
}

// walk emits the mutations of the value v of schema s at ptr. set places a
// value at ptr into a whole document; set(v) is valid. small is the
// lower-edge value of s, or nil. node is s compiled when s is reached from
// the root through properties and items only, else nil; plain says that s
// and the schemas above it are plain (see plainKeywords).
func (w *mutator) walk(s any, node *jsonschema.Schema, plain bool, v any, small any, ptr string, set func(any) any, depth int) {
	sm, ok := resolve(w.args.doc, s, 0)
	if !ok || sm == nil {
		return
	}
	// Below a $ref or an allOf, the keywords come from elsewhere.
	raw, _ := s.(map[string]any)
	if raw == nil || raw["$ref"] != nil || raw["allOf"] != nil {
		node = nil
	}
	plain = plain && node != nil && isPlain(raw)
	switch v := v.(type) {
	case map[string]any:
		props, _ := sm["properties"].(map[string]any)
		// The carrier of the edits at this depth: the lower-edge object
		// when it is smaller and valid in place, else v.
		smallMap, _ := small.(map[string]any)
		carrier := v
		if smallMap != nil && len(smallMap) < len(v) && w.valid(set(smallMap)) {
			carrier = smallMap
		}
		if r, ok := sm["required"].([]any); ok {
			for _, x := range r {
				n, _ := x.(string)
				if _, present := carrier[n]; !present {
					continue
				}
				cp := clone(carrier)
				delete(cp, n)
				w.addDoc("required argument "+jsonptr.Append(ptr, n)+" left out", set(cp), false)
			}
		}
		for _, n := range slices.Sorted(maps.Keys(v)) {
			sch, ok := props[n]
			if !ok {
				continue
			}
			child := jsonptr.Append(ptr, n)
			st := &site{}
			st.choose = func() {
				if len(carrier) < len(v) {
					c := clone(carrier)
					c[n] = v[n]
					small := &site{set: func(x any) any { cp := clone(c); cp[n] = x; return set(cp) }}
					// Under plain schemas the carrier is valid with any
					// valid value of a declared property in it.
					if plain {
						*st = *small
						return
					}
					if b, err := small.docOf(v[n]); err == nil && w.args.validateJSON(b) == nil {
						*st = *small
						return
					}
				}
				st.set = func(x any) any { cp := clone(v); cp[n] = x; return set(cp) }
			}
			var childNode *jsonschema.Schema
			if node != nil {
				childNode = node.Properties[n]
			}
			subm, _ := resolve(w.args.doc, sch, 0)
			if wt, ok := wrongType(subm); ok {
				w.addAt(fmt.Sprintf("wrong type at %s (%s)", child, jsonType(wt)), st, childNode, wt)
			}
			for _, b := range outOfBounds(subm, v[n]) {
				w.addAt(b.what+" at "+child, st, childNode, b.value)
			}
			var childSmall any
			switch v[n].(type) {
			case map[string]any, []any:
				if cv, ok := smallMap[n]; ok {
					childSmall = cv
				} else {
					childSmall = w.lower(sch, child, depth+1)
				}
			}
			w.walk(sch, childNode, plain, v[n], childSmall, child, st.place, depth+1)
		}
		closed := sm["additionalProperties"] == false
		refused := closed
		if ptr == "" {
			// At the top, the additional_args policy comes first: strip
			// drops the unknown argument wherever the schema names its
			// properties, reject refuses it.
			switch w.policy {
			case runtime.AdditionalArgsReject:
				refused = closed || props != nil
			case runtime.AdditionalArgsStrip:
				refused = closed && props == nil
			}
		}
		if _, taken := props[unknownArg]; refused && !taken {
			cp := clone(carrier)
			cp[unknownArg] = "example"
			w.addDoc("unknown argument "+ptr+"/"+unknownArg, set(cp), ptr == "" && w.policy == runtime.AdditionalArgsReject)
		}
	case []any:
		if len(v) == 0 {
			return
		}
		var itemsNode *jsonschema.Schema
		items := sm["items"]
		if node != nil {
			itemsNode = node.Items2020
		}
		if prefix, ok := sm["prefixItems"].([]any); ok && len(prefix) > 0 {
			items, itemsNode = prefix[0], nil
			if node != nil && len(node.PrefixItems) > 0 {
				itemsNode = node.PrefixItems[0]
			}
		}
		if items == nil {
			return
		}
		child := ptr + "/0"
		st := &site{set: func(x any) any {
			cp := append([]any(nil), v...)
			cp[0] = x
			return set(cp)
		}}
		im, _ := resolve(w.args.doc, items, 0)
		if wt, ok := wrongType(im); ok {
			w.addAt(fmt.Sprintf("wrong type at %s (%s)", child, jsonType(wt)), st, itemsNode, wt)
		}
		for _, b := range outOfBounds(im, v[0]) {
			w.addAt(b.what+" at "+child, st, itemsNode, b.value)
		}
		var elemSmall any
		switch v[0].(type) {
		case map[string]any, []any:
			elemSmall = w.lower(items, child, depth+1)
		}
		w.walk(items, itemsNode, plain, v[0], elemSmall, child, st.place, depth+1)
	}
}

// plainKeywords are the keywords of a plain schema: one whose verdict on
// an object is that of its properties' schemas on their values, given the
// required ones are there, and on an array that of its items' schemas. In
// a valid document under plain schemas, adding a declared property with a
// valid value, or replacing a valid value by another, keeps it valid.
var plainKeywords = map[string]bool{
	"type": true, "properties": true, "required": true, "additionalProperties": true,
	"items": true, "prefixItems": true, "minItems": true, "maxItems": true,
	"title": true, "description": true, "default": true, "examples": true, "$comment": true,
	"deprecated": true, "readOnly": true, "writeOnly": true, "$schema": true, "$defs": true, "definitions": true,
}

func isPlain(s map[string]any) bool {
	for k := range s {
		if !plainKeywords[k] {
			return false
		}
	}
	return true
}

// addAt emits the mutation that puts x at the site. When the compiled
// subschema of the site, sub, refuses x, so does the schema, which then
// need not validate the whole document.
func (w *mutator) addAt(what string, st *site, sub *jsonschema.Schema, x any) {
	xb, err := json.Marshal(x)
	if err != nil {
		return
	}
	b, err := st.doc(xb)
	if err != nil {
		return
	}
	w.add(what, b, false, refusesAt(sub, xb))
}

// site is one place of the arguments where mutations put their values:
// set builds the whole document around a value, and the document's JSON
// around the place is encoded once, so that each mutation costs the
// encoding of its own value and a copy.
type site struct {
	choose         func() // picks set, on first use
	set            func(any) any
	prefix, suffix []byte
	split          bool // prefix and suffix hold the document's JSON
	tried          bool
}

// slotJSON marks the place in the encoded document. A document holding the
// same string elsewhere is encoded whole for every mutation instead.
var slotJSON = []byte(`"\u0000toolcat-conformance-slot\u0000"`)

const slotValue = "\x00toolcat-conformance-slot\x00"

func (s *site) ready() {
	if s.choose != nil {
		s.choose()
		s.choose = nil
	}
}

// place is set, for the sites below this one.
func (s *site) place(x any) any {
	s.ready()
	return s.set(x)
}

// docOf returns the JSON of the whole document with x at the site.
func (s *site) docOf(x any) ([]byte, error) {
	xb, err := json.Marshal(x)
	if err != nil {
		return nil, err
	}
	return s.doc(xb)
}

// doc returns the JSON of the whole document with the JSON value xb at the
// site.
func (s *site) doc(xb []byte) ([]byte, error) {
	s.ready()
	if !s.tried {
		s.tried = true
		if b, err := json.Marshal(s.set(slotValue)); err == nil {
			if i := bytes.Index(b, slotJSON); i >= 0 && bytes.Count(b, slotJSON) == 1 {
				s.prefix, s.suffix, s.split = b[:i], b[i+len(slotJSON):], true
			}
		}
	}
	if !s.split {
		return json.Marshal(s.set(json.RawMessage(xb)))
	}
	out := make([]byte, 0, len(s.prefix)+len(xb)+len(s.suffix))
	return append(append(append(out, s.prefix...), xb...), s.suffix...), nil
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
