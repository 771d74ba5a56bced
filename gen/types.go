package gen

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/toolcat/toolcat/catalog"
)

// kind is the Go shape a JSON Schema maps to.
type kind int

const (
	kAny    kind = iota // any JSON value: any
	kBool               // bool
	kInt                // int64 (or sized by format)
	kFloat              // float64
	kString             // string
	kTime               // time.Time, for format date-time
	kEnum               // a named string type with constants
	kStruct             // a named struct
	kMap                // map[string]Elem
	kSlice              // []Elem
	kUnion              // a named json.RawMessage with As<Variant> accessors
)

// goType is one Go type of the generated code, with the schema it came
// from.
type goType struct {
	Kind   kind
	Name   string // named types: kEnum, kStruct, kUnion
	Bits   int    // kInt: 64 or 32; kFloat: 64 or 32
	Elem   *goType
	Fields []*goField   // kStruct
	Values []*enumValue // kEnum
	// Variants of a kUnion, each a type the raw value may decode into.
	Variants []*variant
	Schema   *catalog.Node
	Doc      string
	// role documents the tool's top-level types: "are the arguments of x".
	role string
	// Recursive marks a type that contains itself through a $ref; fields
	// of such a struct type are pointers.
	Recursive bool
	// ExactNames marks a struct with a member name that a json struct tag
	// cannot express (see tagName): it gets MarshalJSON and UnmarshalJSON
	// methods that write and read every name exactly.
	ExactNames bool
}

// tagName reports whether encoding/json reads name back from a json struct
// tag as itself: a name it accepts as a tag name (letters, digits, spaces
// and punctuation but quotes, backslashes and commas), other than "-",
// which drops the field.
func tagName(name string) bool {
	if name == "" || name == "-" {
		return false
	}
	for _, r := range name {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", r):
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			return false
		}
	}
	return true
}

type goField struct {
	JSON     string // property name
	Name     string // Go field name
	Type     *goType
	Required bool
	// Pointer: optional without a default, or nullable; absent or null is nil.
	Pointer bool
	Default *catalog.Node // applied by the validator when absent
	Schema  *catalog.Node
	Doc     string
}

type enumValue struct {
	Name  string // constant name
	Value string
}

type variant struct {
	Name string // accessor suffix: AsString, AsSearchArgsQueryObject
	Type *goType
}

// typeBuilder maps one tool's schemas to Go types, naming the named ones
// in a scope shared by the whole package.
type typeBuilder struct {
	names *namer
	// named collects the named types in the order they were made, for
	// emission.
	named []*goType
	// defs are the types of the schema's $defs, by pointer "#/$defs/x".
	defs     map[string]*goType
	root     *catalog.Node
	building map[string]bool
	// prefix starts the names of $defs types: the tool's Go name.
	prefix string
	// general lists the keywords the one-pass validator does not check;
	// a tool with any validates with the general validator as well.
	general map[string]bool
}

// supported are the keywords the generated validator checks itself, or
// that describe without constraining.
var supported = map[string]bool{
	"type": true, "properties": true, "required": true, "additionalProperties": true,
	"items": true, "enum": true, "const": true, "minimum": true, "maximum": true,
	"exclusiveMinimum": true, "exclusiveMaximum": true, "minLength": true, "maxLength": true,
	"pattern": true, "format": true, "minItems": true, "maxItems": true, "default": true,
	"description": true, "title": true, "examples": true, "$schema": true, "$id": true,
	"$comment": true, "$defs": true, "definitions": true, "$ref": true, "anyOf": true,
	"oneOf": true, "nullable": true, "deprecated": true, "readOnly": true, "writeOnly": true,
	"multipleOf": true, "uniqueItems": true,
}

func (b *typeBuilder) note(schema *catalog.Node) {
	if schema == nil || schema.Kind != catalog.Object {
		return
	}
	for _, f := range schema.Fields {
		if !supported[f.Key] {
			b.general[f.Key] = true
		}
	}
}

// schemaType maps a schema to a Go type; name is the name a named type
// gets (already unique), made on demand.
func (b *typeBuilder) schemaType(s *catalog.Node, name func() string) *goType {
	if s == nil || s.Kind == catalog.Bool {
		return &goType{Kind: kAny, Schema: s}
	}
	if s.Kind != catalog.Object {
		return &goType{Kind: kAny, Schema: s}
	}
	b.note(s)
	if ref, ok := s.Get("$ref").StringValue(); ok {
		return b.ref(ref)
	}
	doc, _ := s.Get("description").StringValue()
	// [T, null] and anyOf/oneOf [T, {type: null}] are T, made a pointer by
	// the field that holds it.
	if inner, ok := nullableInner(s); ok {
		return b.schemaType(inner, name)
	}
	types := s.SchemaTypes()
	switch {
	case s.Get("enum") != nil && allStrings(s.Get("enum")) && (len(types) == 0 || types[0] == "string"):
		t := &goType{Kind: kEnum, Name: name(), Schema: s, Doc: doc}
		seen := map[string]bool{}
		for _, v := range s.Get("enum").Items {
			if seen[v.Str] {
				continue // one constant a value, however often the schema lists it
			}
			seen[v.Str] = true
			t.Values = append(t.Values, &enumValue{Name: b.names.name(t.Name + exported(v.Str)), Value: v.Str})
		}
		b.named = append(b.named, t)
		return t
	case s.Get("const") != nil && len(types) == 0:
		return &goType{Kind: constKind(s.Get("const")), Bits: 64, Schema: s}
	case len(types) > 1 || (len(types) == 0 && (s.Get("anyOf") != nil || s.Get("oneOf") != nil)):
		return b.union(s, types, name, doc)
	}
	typ := ""
	if len(types) == 1 {
		typ = types[0]
	} else if s.Get("properties") != nil {
		typ = "object"
	} else if s.Get("items") != nil {
		typ = "array"
	}
	format, _ := s.Get("format").StringValue()
	switch typ {
	case "boolean":
		return &goType{Kind: kBool, Schema: s}
	case "integer":
		bits := 64
		if format == "int32" {
			bits = 32
		}
		return &goType{Kind: kInt, Bits: bits, Schema: s}
	case "number":
		bits := 64
		if format == "float" {
			bits = 32
		}
		return &goType{Kind: kFloat, Bits: bits, Schema: s}
	case "string":
		if format == "date-time" {
			return &goType{Kind: kTime, Schema: s}
		}
		return &goType{Kind: kString, Schema: s}
	case "array":
		item := s.Get("items")
		elemName := func() string { return b.names.name(name() + "Item") }
		return &goType{Kind: kSlice, Elem: b.schemaType(item, once(elemName)), Schema: s}
	case "object":
		props := s.Get("properties")
		if props == nil || (props.Kind == catalog.Object && len(props.Fields) == 0 && isOpen(s)) {
			ap := s.Get("additionalProperties")
			if ap != nil && ap.Kind == catalog.Object {
				return &goType{Kind: kMap, Elem: b.schemaType(ap, once(func() string { return b.names.name(name() + "Value") })), Schema: s}
			}
			return &goType{Kind: kMap, Elem: &goType{Kind: kAny}, Schema: s}
		}
		return b.object(s, name(), doc)
	}
	return &goType{Kind: kAny, Schema: s}
}

// object maps an object schema with properties to a named struct.
func (b *typeBuilder) object(s *catalog.Node, name, doc string) *goType {
	t := &goType{Kind: kStruct, Name: name, Schema: s, Doc: doc}
	b.named = append(b.named, t)
	required := map[string]bool{}
	if r := s.Get("required"); r != nil && r.Kind == catalog.Array {
		for _, it := range r.Items {
			required[it.Str] = true
		}
	}
	props := s.Get("properties")
	if props == nil || props.Kind != catalog.Object {
		return t
	}
	for _, p := range props.Fields {
		if !tagName(p.Key) {
			t.ExactNames = true
		}
	}
	fields := newNamer()
	if t.ExactNames {
		fields = newNamer("MarshalJSON", "UnmarshalJSON")
	}
	for _, p := range props.Fields {
		f := &goField{JSON: p.Key, Name: fields.name(exported(p.Key)), Required: required[p.Key], Schema: p.Value}
		f.Doc, _ = p.Value.Get("description").StringValue()
		fieldName := f.Name
		f.Type = b.schemaType(p.Value, once(func() string { return b.names.name(name + fieldName) }))
		if d := p.Value.Get("default"); d != nil && d.Kind != catalog.Null {
			f.Default = d
		}
		_, nullable := nullableInner(p.Value)
		switch {
		case nullable:
			f.Pointer = true
		case f.Required || f.Default != nil:
		case f.Type.Kind == kSlice || f.Type.Kind == kMap || f.Type.Kind == kAny || f.Type.Kind == kUnion:
			// nil already means absent.
		default:
			f.Pointer = true
		}
		t.Fields = append(t.Fields, f)
	}
	return t
}

// union maps anyOf/oneOf and type lists to a named json.RawMessage with
// one accessor per variant.
func (b *typeBuilder) union(s *catalog.Node, types []string, name func() string, doc string) *goType {
	t := &goType{Kind: kUnion, Name: name(), Schema: s, Doc: doc}
	b.named = append(b.named, t)
	vn := newNamer()
	add := func(vs *catalog.Node, label string) {
		vt := b.schemaType(vs, once(func() string { return b.names.name(t.Name + exported(label)) }))
		t.Variants = append(t.Variants, &variant{Name: vn.name(exported(label)), Type: vt})
	}
	for _, typ := range types {
		if typ == "null" {
			continue
		}
		add(&catalog.Node{Kind: catalog.Object, Fields: []*catalog.Field{{Key: "type", Value: &catalog.Node{Kind: catalog.String, Str: typ}}}}, typ)
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		alts := s.Get(key)
		if alts == nil || alts.Kind != catalog.Array {
			continue
		}
		for i, a := range alts.Items {
			if isNullSchema(a) {
				continue
			}
			add(a, variantLabel(a, i))
		}
	}
	return t
}

// variantLabel names a union variant after its title, $ref or type.
func variantLabel(s *catalog.Node, i int) string {
	if title, ok := s.Get("title").StringValue(); ok && exported(title) != "X" {
		return title
	}
	if ref, ok := s.Get("$ref").StringValue(); ok {
		return ref[strings.LastIndex(ref, "/")+1:]
	}
	if ts := s.SchemaTypes(); len(ts) == 1 {
		return ts[0]
	}
	if s.Get("properties") != nil {
		return "object" + strconv.Itoa(i+1)
	}
	return "variant" + strconv.Itoa(i+1)
}

// ref maps a $ref inside the schema to the type of its target, made once.
func (b *typeBuilder) ref(ref string) *goType {
	if t, ok := b.defs[ref]; ok {
		if b.building[ref] {
			t.Recursive = true
		}
		return t
	}
	target := b.root.Lookup(strings.TrimPrefix(ref, "#"))
	if !strings.HasPrefix(ref, "#/") || target == nil {
		return &goType{Kind: kAny}
	}
	// Reserve the entry first: a recursive schema refers to itself, and
	// gets the placeholder, which becomes the type once it is made.
	placeholder := &goType{Kind: kAny}
	b.defs[ref] = placeholder
	b.building[ref] = true
	base := b.prefix + exported(ref[strings.LastIndex(ref, "/")+1:])
	t := b.schemaType(target, once(func() string { return b.names.name(base) }))
	delete(b.building, ref)
	rec := placeholder.Recursive
	if rec && containsItself(t, placeholder) {
		// A list or map of itself, with no named type on the way: Go
		// cannot spell it, and the general validator checks it.
		t = &goType{Kind: kAny, Schema: target}
	}
	// t may be the type of another $def (this one is a $ref to it), which
	// keeps its own mark.
	rec = rec || t.Recursive
	*placeholder = *t
	placeholder.Recursive = rec
	t.Recursive = rec
	return placeholder
}

// containsItself reports whether the unnamed type t (a list or a map)
// holds self through lists and maps only.
func containsItself(t, self *goType) bool {
	for t.Kind == kSlice || t.Kind == kMap {
		t = t.Elem
		if t == self {
			return true
		}
	}
	return false
}

// once memoises a name maker, so that asking twice names one type.
func once(f func() string) func() string {
	var s string
	return func() string {
		if s == "" {
			s = f()
		}
		return s
	}
}

// nullableInner recognises "T or null": type [T, "null"], or anyOf/oneOf
// with one schema and {type: null}.
func nullableInner(s *catalog.Node) (*catalog.Node, bool) {
	if ts := s.SchemaTypes(); len(ts) == 2 && (ts[0] == "null" || ts[1] == "null") {
		other := ts[0]
		if other == "null" {
			other = ts[1]
		}
		c := &catalog.Node{Kind: catalog.Object, Pos: s.Pos}
		for _, f := range s.Fields {
			if f.Key == "type" {
				f = &catalog.Field{Key: "type", KeyPos: f.KeyPos, Value: &catalog.Node{Kind: catalog.String, Str: other, Pos: f.Value.Pos}}
			}
			c.Fields = append(c.Fields, f)
		}
		return c, true
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		alts := s.Get(key)
		if alts == nil || alts.Kind != catalog.Array || len(alts.Items) != 2 {
			continue
		}
		a, c := alts.Items[0], alts.Items[1]
		if isNullSchema(a) {
			a, c = c, a
		}
		if isNullSchema(c) && !isNullSchema(a) {
			return a, true
		}
	}
	return nil, false
}

func isNullSchema(s *catalog.Node) bool {
	ts := s.SchemaTypes()
	return len(ts) == 1 && ts[0] == "null"
}

func isOpen(s *catalog.Node) bool {
	ap := s.Get("additionalProperties")
	return ap == nil || ap.Kind == catalog.Object || (ap.Kind == catalog.Bool && ap.Bool)
}

func allStrings(n *catalog.Node) bool {
	if n.Kind != catalog.Array || len(n.Items) == 0 {
		return false
	}
	for _, it := range n.Items {
		if it.Kind != catalog.String {
			return false
		}
	}
	return true
}

func constKind(n *catalog.Node) kind {
	switch n.Kind {
	case catalog.String:
		return kString
	case catalog.Bool:
		return kBool
	case catalog.Number:
		if strings.ContainsAny(n.Num, ".eE") {
			return kFloat
		}
		return kInt
	}
	return kAny
}

func (t *goType) String() string {
	switch t.Kind {
	case kSlice:
		return "[]" + t.Elem.String()
	case kMap:
		return "map[string]" + t.Elem.String()
	case kEnum, kStruct, kUnion:
		return t.Name
	}
	return fmt.Sprintf("kind(%d)", t.Kind)
}
