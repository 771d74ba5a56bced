package gen

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/jsonscan"
)

// The model of a tool's argument validator: what it checks, read once
// from the args schema and its Go types (objects, their fields and seen
// bits, defaults, scalars with their bounds, lengths, enums, consts,
// formats and patterns, lists, maps, nullable values), and the
// package-level names of what it declares. buildModel makes it with
// every other name of the package; code mode (validator_code.go) emits
// one-pass Go code from it, data mode (validator_data.go) prints it as
// static descriptors.

// vModel is the validator of one tool's arguments.
type vModel struct {
	args *vObject // the arguments' object
	// data says the validator is a data-mode one; descs are then its
	// descriptors, the arguments' first.
	data  bool
	descs []*vDesc
	// decls are the package variables of a code-mode validator, in
	// order, and objects the struct types it reads, in the order of
	// their scan functions.
	decls   []*vDecl
	objects []*vObject
	// wants are the names the validator asks for, in order, and slots
	// where each name given goes.
	wants []string
	slots []*string
}

// ask asks for a package-level name like want, which goes to *slot when
// buildModel gives it.
func (m *vModel) ask(want string, slot *string) {
	m.wants = append(m.wants, want)
	m.slots = append(m.slots, slot)
}

// setNames gives the validator the names asked for, in order.
func (m *vModel) setNames(names []string) {
	for i, n := range names {
		*m.slots[i] = n
	}
}

// vObject is an object read into a struct type: made once per type,
// however many values hold it.
type vObject struct {
	typ *goType
	// obj is its runtime.Object: property names, required properties
	// (which take the first bits of the seen mask) and whether undeclared
	// members are rejected.
	obj    runtime.Object
	bits   int // bits of the seen mask in use
	fields []*vField
	// scan names its scan function and objectVar is its runtime.Object
	// variable, in code mode.
	scan      string
	objectVar *vDecl
	planned   bool // code mode has planned them
}

// vField is one property of an object.
type vField struct {
	fd    *goField
	index int // of the Go struct field
	seen  int // bit in the seen mask; -1 for none
	val   *vValue
	// defaultVar holds the JSON of a default that generated code decodes
	// (an object, an array, a time), in code mode.
	defaultVar *vDecl
}

// vValue is one value read: a property, an item or a map's value, with
// its schema resolved and what its schema checks.
type vValue struct {
	typ *goType
	// s is the schema the value is read under, its $ref and nullable
	// wrapper removed (nil for none).
	s        *catalog.Node
	want     string // the JSON Schema type as errors word it
	typed    bool   // s gives a type
	nullable bool
	// refuseNull says a nullable value's enum or const leaves null out:
	// null is refused, listing allowed.
	refuseNull bool
	pointer    bool   // stored through a pointer
	base       string // stem of its package variables' names (code mode)
	// defaults says the object of a struct value applies its defaults
	// when the enclosing one does.
	defaults bool
	// shadow says the exact values of numbers are collected too, for an
	// enclosing list's uniqueItems.
	shadow bool

	// allowed are the values of the enum, else the const, as errors
	// list them.
	allowed  []any
	hasConst bool
	constant *catalog.Node
	hasEnum  bool
	enumInts []int64 // a number enum's distinct values, as integers

	bounds     *runtime.Bounds // nil for none
	multipleOf string          // as written; "" for none
	// minLen and maxLen bound a string's length, minItems and maxItems
	// an array's; -1 for none.
	minLen, maxLen     int
	hasPattern         bool
	pattern            string
	format             string // an asserted format; "" for none
	minItems, maxItems int
	unique             bool

	obj    *vObject // kStruct
	item   *vValue  // kSlice's items; kMap's values, nil for a closed map
	closed bool     // a kMap that allows no member

	// Code mode's plan: reader says a runtime reader reads the value in
	// one call (runtime.ReadString, ReadObject, ReadList...), with spec
	// the variable of its schema (nil for none); the others are the
	// variables that generated code checks it with.
	reader                                              bool
	spec, boundsVar, multipleVar, formatVar, patternVar *vDecl
	allowedVar                                          *vDecl
}

// vDecl is one package variable of a code-mode validator: its name and
// its value, one of the literals litWriter.value writes.
type vDecl struct {
	name  string
	value any
}

// newVModel reads what t's one-pass validator checks from its args
// schema, which fallbackReasons accepted. Names are asked for by
// planData or planCode.
func newVModel(t *toolModel) *vModel {
	b := &vBuilder{objects: map[*goType]*vObject{}}
	policy := t.t.AdditionalArgs
	if policy == "" {
		policy = "reject"
	}
	root := t.t.Args
	hasProps := root.Get("properties") != nil
	closed := isClosed(root)
	rejectTop := (hasProps && policy == "reject") || (closed && !(hasProps && policy == "strip"))
	return &vModel{args: b.object(t.args, root, rejectTop)}
}

// vBuilder reads the model of one tool.
type vBuilder struct {
	objects map[*goType]*vObject
}

// object returns the object of the struct type t under the object
// schema s, made on its first use.
func (b *vBuilder) object(t *goType, s *catalog.Node, reject bool) *vObject {
	if o, ok := b.objects[t]; ok {
		return o
	}
	bit, required := seenMask(t, s)
	o := &vObject{typ: t, obj: runtime.Object{Names: objectNames(t), Required: required, Reject: reject}, bits: len(bit)}
	b.objects[t] = o // before its fields: a type may hold itself
	for i, fd := range t.Fields {
		f := &vField{fd: fd, index: i, seen: -1}
		if n, ok := bit[fd.JSON]; ok {
			f.seen = n
		}
		pointer := fd.Pointer || (fd.Type.Kind == kStruct && fd.Type.Recursive)
		f.val = b.value(fd.Schema, fd.Type, pointer, t.Name+fd.Name, fd.Schema.Get("properties") != nil)
		o.fields = append(o.fields, f)
	}
	return o
}

// value reads the value of Go type t under the schema as written.
func (b *vBuilder) value(schema *catalog.Node, t *goType, pointer bool, base string, defaults bool) *vValue {
	v := &vValue{typ: t, pointer: pointer, base: base, defaults: defaults, minLen: -1, maxLen: -1, minItems: -1, maxItems: -1}
	v.s, v.nullable, v.want = resolve(schema, t)
	v.refuseNull = v.nullable && nullOutsideEnum(schema, t)
	s := v.s
	v.typed = s.Get("type") != nil
	var items []*catalog.Node
	if e := s.Get("enum"); e != nil {
		v.hasEnum = true
		items = e.Items
	} else if c := s.Get("const"); c != nil {
		items = []*catalog.Node{c}
	}
	v.allowed = allowedValues(items)
	if c := s.Get("const"); c != nil {
		v.hasConst, v.constant = true, c
	}
	switch t.Kind {
	case kStruct:
		v.obj = b.object(t, s, isClosed(s))
	case kSlice:
		if u := s.Get("uniqueItems"); u != nil && u.Kind == catalog.Bool && u.Bool {
			v.unique = true
		}
		v.minItems, v.maxItems = limits(s, "minItems", "maxItems")
		v.item = b.value(s.Get("items"), t.Elem, false, base+"Item", false)
		// Numbers are compared as the general validator compares them:
		// by their exact values, also those the Go type cannot hold.
		v.item.shadow = v.unique && (t.Elem.Kind == kInt || t.Elem.Kind == kFloat)
	case kMap:
		v.closed = isClosed(s)
		if !v.closed {
			var ap *catalog.Node
			if a := s.Get("additionalProperties"); a != nil && a.Kind == catalog.Object {
				ap = a
			}
			v.item = b.value(ap, t.Elem, false, base+"Value", false)
		}
	case kInt, kFloat:
		if bs, ok := numBounds(s); ok {
			v.bounds = bs
		}
		if m := s.Get("multipleOf"); m != nil {
			v.multipleOf = m.Num
		}
		if v.hasEnum {
			v.enumInts = intEnumValues(s.Get("enum"))
		}
	case kString, kEnum, kTime:
		v.minLen, v.maxLen = limits(s, "minLength", "maxLength")
		v.pattern, v.hasPattern = s.Get("pattern").StringValue()
		if fm, ok := s.Get("format").StringValue(); ok && formatAsserted(fm) {
			v.format = fm
		}
	}
	return v
}

// seenMask assigns the bits of the mask a scan function (or a data-mode
// descriptor) marks read properties in: required properties first, in
// the schema's order, then those with a default. required lists the
// required properties, each once.
func seenMask(t *goType, s *catalog.Node) (bit map[string]int, required []string) {
	bit = map[string]int{}
	if r := s.Get("required"); r != nil {
		for _, it := range r.Items {
			if _, dup := bit[it.Str]; !dup {
				bit[it.Str] = len(required)
				required = append(required, it.Str)
			}
		}
	}
	for _, fd := range t.Fields {
		if _, ok := bit[fd.JSON]; !ok && fd.Default != nil {
			bit[fd.JSON] = len(bit)
		}
	}
	return bit, required
}

// objectNames are the property names of a struct type, sorted: a
// runtime.Object's Names.
func objectNames(t *goType) []string {
	names := make([]string, 0, len(t.Fields))
	for _, fd := range t.Fields {
		names = append(names, fd.JSON)
	}
	slices.Sort(names)
	return names
}

func isClosed(s *catalog.Node) bool {
	ap := s.Get("additionalProperties")
	return ap != nil && ap.Kind == catalog.Bool && !ap.Bool
}

// resolve returns the schema a value is read under, its $ref and nullable
// wrapper removed, whether it may be null, and its JSON Schema type as
// errors word it.
func resolve(schema *catalog.Node, t *goType) (inner *catalog.Node, nullable bool, want string) {
	s := schema
	if s != nil && s.Get("$ref") != nil {
		s = t.Schema
	}
	inner = s
	if in, ok := nullableInner(s); ok {
		inner, nullable = in, true
		if in.Get("$ref") != nil {
			inner = t.Schema
		}
	}
	return inner, nullable, typeName(schema, t)
}

// typeName is the JSON Schema type a value must have, as the general
// validator words it: "integer", "null or string".
func typeName(s *catalog.Node, t *goType) string {
	if s != nil && s.Get("$ref") != nil && t.Schema != nil {
		s = t.Schema
	}
	ts := s.SchemaTypes()
	if len(ts) == 0 {
		if inner, ok := nullableInner(s); ok {
			return typeName(inner, t)
		}
		return describeKind(t.Kind)
	}
	order := []string{"null", "boolean", "number", "integer", "string", "array", "object"}
	var out []string
	for _, o := range order {
		if slices.Contains(ts, o) {
			out = append(out, o)
		}
	}
	return strings.Join(out, " or ")
}

// nullOutsideEnum reports whether a nullable value's schema lists its type
// with "null" beside an enum or const that null is not in: the enum and
// const apply to null as well. (With anyOf [T, {type: null}], they are
// T's, and null is the other branch's.)
func nullOutsideEnum(schema *catalog.Node, t *goType) bool {
	s := schema
	if s != nil && s.Get("$ref") != nil {
		s = t.Schema
	}
	if !slices.Contains(s.SchemaTypes(), "null") {
		return false
	}
	if c := s.Get("const"); c != nil {
		return c.Kind != catalog.Null
	}
	if e := s.Get("enum"); e != nil {
		return !slices.ContainsFunc(e.Items, func(n *catalog.Node) bool { return n.Kind == catalog.Null })
	}
	return false
}

// allowedValues are the values of an enum or const, as errors list
// them.
func allowedValues(items []*catalog.Node) []any {
	vals := make([]any, len(items))
	for i, it := range items {
		switch it.Kind {
		case catalog.String:
			vals[i] = it.Str
		case catalog.Number:
			vals[i] = json.Number(it.Num)
		case catalog.Bool:
			vals[i] = it.Bool
		}
	}
	return vals
}

// numBounds returns the bounds of a number's schema, or false when it
// has none: of minimum and exclusiveMinimum the stricter, and so for the
// maximum.
func numBounds(s *catalog.Node) (*runtime.Bounds, bool) {
	var b runtime.Bounds
	b.Min, b.HasMin = s.Get("minimum").Float()
	if f, ok := s.Get("exclusiveMinimum").Float(); ok && (!b.HasMin || f >= b.Min) {
		b.Min, b.HasMin, b.ExclusiveMin = f, true, true
	}
	b.Max, b.HasMax = s.Get("maximum").Float()
	if f, ok := s.Get("exclusiveMaximum").Float(); ok && (!b.HasMax || f <= b.Max) {
		b.Max, b.HasMax, b.ExclusiveMax = f, true, true
	}
	return &b, b.HasMin || b.HasMax
}

// intEnumValues are the distinct values of an integer enum, in order: a
// switch may not have a case twice.
func intEnumValues(e *catalog.Node) []int64 {
	vals := []int64{}
	seen := map[int64]bool{}
	for _, it := range e.Items {
		n, _ := jsonscan.ParseInt64([]byte(it.Num)) // exactly
		if !seen[n] {
			seen[n] = true
			vals = append(vals, n)
		}
	}
	return vals
}

// limits returns the bounds a schema sets on a length with the keywords
// lo and hi (minLength and maxLength, minItems and maxItems), -1 for an
// absent one.
func limits(s *catalog.Node, lo, hi string) (mn, mx int) {
	mn, mx = -1, -1
	if f, ok := s.Get(lo).Float(); ok {
		mn = int(f)
	}
	if f, ok := s.Get(hi).Float(); ok {
		mx = int(f)
	}
	return mn, mx
}

// constInt is the const of an integer, exactly.
func (v *vValue) constInt() int64 {
	n, _ := jsonscan.ParseInt64([]byte(v.constant.Num))
	return n
}

// constFloat is the const of a number.
func (v *vValue) constFloat() float64 {
	f, _ := strconv.ParseFloat(v.constant.Num, 64)
	return f
}

// enumStrings are the values of an enum type, each once.
func enumStrings(t *goType) []string {
	vals := make([]string, len(t.Values))
	for i, v := range t.Values {
		vals[i] = v.Value
	}
	return vals
}

// numberSchema is the runtime.NumberSchema a reader checks a number
// with, nil for a plain one: its bounds and multipleOf, and its enum or
// const.
func (v *vValue) numberSchema() *runtime.NumberSchema {
	var n runtime.NumberSchema
	n.Bounds = v.bounds
	n.MultipleOf = v.multipleOf
	switch {
	case v.hasConst && v.typ.Kind == kFloat:
		// Compared exactly with the number as written.
		n.Const, n.HasConst = v.constFloat(), true
		n.Allowed = v.allowed
	case v.hasConst:
		// The const, when the enum beside it (if any) holds it, or
		// nothing.
		cn := v.constInt()
		n.Enum = []int64{}
		if !v.hasEnum || slices.ContainsFunc(v.s.Get("enum").Items, func(it *catalog.Node) bool {
			m, err := jsonscan.ParseInt64([]byte(it.Num))
			return err == nil && m == cn
		}) {
			n.Enum = []int64{cn}
		}
		n.Allowed = v.allowed
	case v.hasEnum:
		n.Enum = v.enumInts
		n.Allowed = v.allowed
	}
	plain := "integer"
	if v.typ.Kind == kFloat {
		plain = "number"
	}
	if n.Bounds == nil && n.MultipleOf == "" && !n.HasConst && n.Enum == nil && v.typed && v.want == plain {
		return nil
	}
	if v.typed {
		n.Type = v.want
	}
	return &n
}

// stringSchema is the runtime.StringSchema a reader checks a string (or
// a date-time) with, nil for a plain one.
func (v *vValue) stringSchema() *runtime.StringSchema {
	str := runtime.StringSchema{MinLength: v.minLen, MaxLength: v.maxLen, Format: v.format}
	checks := v.minLen >= 0 || v.maxLen >= 0 || v.hasPattern || v.format != ""
	if v.hasPattern {
		str.PatternSource = v.pattern
		if v.pattern == "" {
			str.Pattern = emptyPattern
		}
	}
	switch {
	case v.hasConst:
		c := v.constant.Str
		str.Enum = []string{}
		if v.typ.Kind != kEnum || slices.ContainsFunc(v.typ.Values, func(e *enumValue) bool { return e.Value == c }) {
			str.Enum = []string{c}
		}
		str.Allowed = v.allowed
		checks = true
	case v.typ.Kind == kEnum:
		str.Enum = enumStrings(v.typ)
		str.Allowed = v.allowed
		checks = true
	}
	if !checks && v.typed && v.want == "string" {
		return nil
	}
	if v.typed {
		str.Type = v.want
	}
	return &str
}

// arraySchema is the runtime.ArraySchema of a list, nil for an array
// without bounds.
func (v *vValue) arraySchema() *runtime.ArraySchema {
	if v.minItems < 0 && v.maxItems < 0 && v.want == "array" {
		return nil
	}
	return &runtime.ArraySchema{Type: v.want, MinItems: v.minItems, MaxItems: v.maxItems}
}
