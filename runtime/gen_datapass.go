package runtime

import (
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"github.com/toolcat/toolcat/runtime/jsonscan"
)

// The data-mode validator. A generated package of thousands of tools is
// slow to compile when each tool has validator code of its own (a scan
// function per struct type, package variables built at init); in data
// mode the generator writes instead one static descriptor per tool, a
// StructDesc the Go compiler lays out as data, and DataPass turns it into
// a validator once, when the registry is built. Its verdicts, errors and
// values are those of the one-pass validator generated for the same
// schema, and so those of SchemaValidator wrapped by Typed.

// ValueKind is the kind of value a FieldDesc reads.
//
// For generated code.
type ValueKind uint8

// The kinds of value a FieldDesc reads, with the Go types each fits.
//
// For generated code.
const (
	KindInvalid ValueKind = iota
	// KindString: a string, into a string or a named string type (an
	// enum), or a pointer to one.
	KindString
	// KindTime: a date-time string, into a time.Time or *time.Time.
	KindTime
	// KindInt: an integer, into an int64 or int32, or a pointer to one.
	KindInt
	// KindFloat: a number, into a float64 or float32, or a pointer to one.
	KindFloat
	// KindBool: a boolean, into a bool or *bool.
	KindBool
	// KindStruct: an object, into a struct or a pointer to one, that
	// FieldDesc.Struct describes.
	KindStruct
	// KindList: an array, into a slice (or a pointer to one) whose items
	// FieldDesc.Item describes.
	KindList
	// KindMap: an object, into a map[string]V (or a pointer to one) whose
	// values FieldDesc.Item describes; without Item, the object may have
	// no member.
	KindMap
	// KindAny: any JSON value, into an any or *any.
	KindAny
)

func (k ValueKind) String() string {
	switch k {
	case KindString:
		return "string"
	case KindTime:
		return "date-time"
	case KindInt:
		return "integer"
	case KindFloat:
		return "number"
	case KindBool:
		return "boolean"
	case KindStruct:
		return "object"
	case KindList:
		return "array"
	case KindMap:
		return "map"
	case KindAny:
		return "any"
	}
	return "kind " + strconv.Itoa(int(k))
}

// StructDesc describes how the members of an object are read into a Go
// struct: what a generated scan function does, as data. Everything in it
// is a constant or a composite literal, so that a generated package
// declares it without init code.
//
// For generated code.
type StructDesc struct {
	// Object lists the object's properties and whether it rejects
	// undeclared members.
	Object Object
	// Fields are the properties the struct holds.
	Fields []FieldDesc
}

// FieldDesc describes one value: a property of an object (Key and Field
// set) or the items of an array.
//
// For generated code.
type FieldDesc struct {
	// Key is the property's name.
	Key string
	// Field is the index of the Go struct field that holds it.
	Field int
	// Kind is the kind of value read.
	Kind ValueKind
	// Type is the JSON Schema type as errors word it ("boolean", "null
	// or object"), for KindBool, KindStruct and KindMap; "" is the kind's
	// own, but for a KindBool with a Const, where it means the schema
	// gives no type.
	Type string
	// Seen is the bit of the property in the object's seen mask (see
	// Members.End), 0 for none: required properties take the first
	// bits, in the order of Object.Required, then those with a default.
	Seen uint64
	// Nullable lets null through, which stores the zero value (nil for a
	// pointer field).
	Nullable bool
	// Const, for KindBool, holds the one value a const allows, as errors
	// list it; nil for none.
	Const []any
	// NullRefused, for a nullable value, lists the values of an enum or
	// const that null is not in: null is then refused, naming them.
	NullRefused []any
	// String checks a KindString or KindTime value; nil for a plain
	// string.
	String *StringSchema
	// Number checks a KindInt or KindFloat value; nil for a plain
	// number.
	Number *NumberSchema
	// Array checks a KindList value itself; nil for an array without
	// bounds.
	Array *ArraySchema
	// Unique, for KindList, refuses an array with two equal items
	// (uniqueItems); its items are strings, booleans or numbers, not
	// nullable.
	Unique bool
	// Struct describes the object of a KindStruct value.
	Struct *StructDesc
	// Defaults, for KindStruct, applies the defaults of the object's
	// properties when the enclosing object applies its own.
	Defaults bool
	// Item describes the items of a KindList value, the values of a
	// KindMap one.
	Item *FieldDesc
	// Default is the JSON of the property's default, applied when it is
	// absent; "" for none.
	Default string
}

// DataPass returns the validator that d describes for arguments of type
// T: it decodes raw arguments into a new T, checking them in one pass,
// and returns *T with defaults applied, as the one-pass validator
// generated for the same schema does. It checks d against T once: a field
// index that T lacks or a Go type that does not fit its kind is an error
// naming the field; so is a pattern that does not compile.
//
// For generated code.
func DataPass[T any](d *StructDesc) (Validator, error) {
	// The work is done once per descriptor, not once per type: a package
	// of thousands of tools instantiates DataPass thousands of times.
	return dataPass(reflect.TypeFor[T](), d)
}

// DataPassFor is DataPass for arguments of the type args points to, a nil
// pointer such as (*SearchArgs)(nil): generated code calls it, so that a
// package of thousands of tools instantiates no generic function a tool.
//
// For generated code.
func DataPassFor(args any, d *StructDesc) (Validator, error) {
	typ := reflect.TypeOf(args)
	if typ == nil || typ.Kind() != reflect.Pointer {
		return nil, fmt.Errorf("runtime: DataPassFor: %T is no pointer to the arguments' struct", args)
	}
	return dataPass(typ.Elem(), d)
}

func dataPass(typ reflect.Type, d *StructDesc) (Validator, error) {
	top, err := compileStruct(d, typ, 0)
	if err != nil {
		if e, ok := err.(*descError); ok {
			return nil, fmt.Errorf("runtime: DataPass: %s%s: %w", typ, e.path, e.err)
		}
		return nil, err
	}
	v := &dataPassValidator{top: top, obj: &d.Object}
	for c, n := range arenaRooms {
		v.arenas[c] = reflect.StructOf([]reflect.StructField{
			{Name: "Args", Type: typ},
			{Name: "Room", Type: reflect.ArrayOf(n, reflect.TypeFor[byte]())},
		})
	}
	return v, nil
}

// dataPassValidator is the validator DataPass returns. It decodes into a
// call arena as OnePass's does (call_arena.go): an arena type of each
// room size, made once, holds the arguments (at offset 0) and the room.
type dataPassValidator struct {
	arenaSize // its sized is arenaValidator's
	top       *dpStruct
	obj       *Object
	arenas    [len(arenaRooms)]reflect.Type
}

func (v *dataPassValidator) Validate(raw []byte) (any, *ToolError) {
	a, _, te := v.validateArena(raw)
	return a, te
}

func (v *dataPassValidator) validateArena(raw []byte) (any, []byte, *ToolError) {
	return validateInArena(v, v.obj, raw)
}

func (v *dataPassValidator) one(raw []byte) (any, []byte, *ToolError) {
	// The decoder and the late error are passed to readers called
	// through func values, so they would escape: they are reused.
	st := dpStates.Get().(*dpState)
	defer st.release()
	class := v.class.Load()
	arena := reflect.New(v.arenas[class]).UnsafePointer()
	room := unsafe.Slice((*byte)(unsafe.Add(arena, v.arenas[class].Field(1).Offset)), arenaRooms[class])[:0]
	dec := &st.dec
	dec.Reset(NormalizeArgs(raw))
	dec.StringsIn(room)
	if err := dec.BeginObject(); err != nil {
		return nil, nil, ArgRead("", "object", err)
	}
	if te := v.top.scan(dec, nil, arena, true, &st.late); te != nil {
		return nil, nil, te
	}
	if err := dec.End(); err != nil {
		return nil, nil, ArgSyntax(err)
	}
	if st.late != nil {
		return nil, nil, st.late
	}
	return reflect.NewAt(v.top.typ, arena).Interface(), dec.Text(), nil
}

// dpState is what one validation needs besides its value.
type dpState struct {
	dec  jsonscan.Decoder
	late *ToolError
}

var dpStates = sync.Pool{New: func() any { return new(dpState) }}

func (st *dpState) release() {
	st.dec.Reset(nil) // keep no reference to the arguments
	st.late = nil
	dpStates.Put(st)
}

// reader reads the next value of d into the memory at ptr, of the Go
// type its FieldDesc was compiled for.
type reader func(d *jsonscan.Decoder, p Path, ptr unsafe.Pointer, defaults bool, late **ToolError) *ToolError

// dpStruct is a StructDesc compiled for its Go type.
type dpStruct struct {
	obj      *Object
	typ      reflect.Type
	fields   []dpField
	index    map[string]int // by key, for objects of many fields
	defaults []int          // indexes of the fields with a default
}

type dpField struct {
	key        string
	off        uintptr
	seen       uint64
	read       reader
	setDefault func(ptr unsafe.Pointer)
}

// descError is a descriptor that does not fit its Go type, at path in
// it (.Filter.Tags[]); the path is made as the error goes up, so that a
// descriptor that fits costs nothing for it.
type descError struct {
	path string
	err  error
}

func (e *descError) Error() string { return e.path + ": " + e.err.Error() }

func (e *descError) Unwrap() error { return e.err }

func descErr(format string, args ...any) error {
	return &descError{err: fmt.Errorf(format, args...)}
}

// within adds step (".Name", "[]") in front of the path of err, a
// *descError.
func within(err error, step string) error {
	if e, ok := err.(*descError); ok {
		e.path = step + e.path
	}
	return err
}

// manyFields is where looking a key up in a map beats comparing it with
// each field's.
const manyFields = 12

func compileStruct(d *StructDesc, typ reflect.Type, depth int) (*dpStruct, error) {
	if d == nil {
		return nil, descErr("no descriptor")
	}
	if depth > jsonscan.MaxDepth {
		// Only a descriptor built at run time can hold itself.
		return nil, descErr("descriptors nested more than %d deep: does one hold itself?", jsonscan.MaxDepth)
	}
	if typ.Kind() != reflect.Struct {
		return nil, descErr("a descriptor of an object needs a struct, not %s", typ)
	}
	s := &dpStruct{obj: &d.Object, typ: typ, fields: make([]dpField, len(d.Fields))}
	if len(d.Fields) > manyFields {
		s.index = make(map[string]int, len(d.Fields))
	}
	for i := range d.Fields {
		f := &d.Fields[i]
		if f.Field < 0 || f.Field >= typ.NumField() {
			return nil, descErr("property %q: field %d, and %s has %d", f.Key, f.Field, typ, typ.NumField())
		}
		sf := typ.Field(f.Field)
		r, err := compileValue(f, sf.Type, true, depth+1)
		if err != nil {
			return nil, within(err, "."+sf.Name)
		}
		df := dpField{key: f.Key, off: sf.Offset, seen: f.Seen, read: r}
		if f.Default != "" {
			if df.setDefault, err = compileDefault(f, sf.Type); err != nil {
				return nil, within(err, "."+sf.Name)
			}
			s.defaults = append(s.defaults, i)
		}
		s.fields[i] = df
		if s.index != nil {
			s.index[f.Key] = i
		}
	}
	return s, nil
}

// find returns the field of the member key, or nil.
func (s *dpStruct) find(key []byte) *dpField {
	if s.index != nil {
		if i, ok := s.index[string(key)]; ok {
			return &s.fields[i]
		}
		return nil
	}
	for i := range s.fields {
		if s.fields[i].key == string(key) {
			return &s.fields[i]
		}
	}
	return nil
}

// scan reads the members of an object whose '{' d has read into the
// struct at base, as a generated scan function does.
func (s *dpStruct) scan(d *jsonscan.Decoder, at *Path, base unsafe.Pointer, defaults bool, late **ToolError) *ToolError {
	var seen uint64
	ms := s.obj.Members(d, at)
	for ms.Next() {
		var te *ToolError
		if f := s.find(ms.Key); f != nil {
			seen |= f.seen
			te = f.read(d, at.Key(f.key), unsafe.Add(base, f.off), defaults, late)
		} else {
			te = ms.Skip()
		}
		if te != nil {
			return te
		}
	}
	if te := ms.End(seen); te != nil {
		return te
	}
	if defaults {
		for _, i := range s.defaults {
			if f := &s.fields[i]; seen&f.seen == 0 {
				f.setDefault(unsafe.Add(base, f.off))
			}
		}
	}
	return nil
}

var timeType = reflect.TypeFor[time.Time]()

// intReader reads an integer into a T, or into a *T when ptr is set.
func intReader[T int64 | int32](s *NumberSchema, ptr bool) reader {
	if ptr {
		return func(d *jsonscan.Decoder, p Path, dst unsafe.Pointer, _ bool, late **ToolError) *ToolError {
			return ReadIntPtr(d, p, s, (**T)(dst), late)
		}
	}
	return func(d *jsonscan.Decoder, p Path, dst unsafe.Pointer, _ bool, late **ToolError) *ToolError {
		return ReadInt(d, p, s, (*T)(dst), late)
	}
}

// floatReader reads a number into a T, or into a *T when ptr is set.
func floatReader[T float64 | float32](s *NumberSchema, ptr bool) reader {
	if ptr {
		return func(d *jsonscan.Decoder, p Path, dst unsafe.Pointer, _ bool, late **ToolError) *ToolError {
			return ReadFloatPtr(d, p, s, (**T)(dst), late)
		}
	}
	return func(d *jsonscan.Decoder, p Path, dst unsafe.Pointer, _ bool, late **ToolError) *ToolError {
		return ReadFloat(d, p, s, (*T)(dst), late)
	}
}

// compileValue makes the reader of f into a value of Go type t; field
// says t is a struct field's (which may be a pointer), not an item's.
func compileValue(f *FieldDesc, t reflect.Type, field bool, depth int) (reader, error) {
	elem, ptr := t, false
	if t.Kind() == reflect.Pointer && field {
		elem, ptr = t.Elem(), true
	}
	bad := func() (reader, error) {
		return nil, descErr("a %s value does not fit Go type %s", f.Kind, t)
	}
	var r reader
	switch f.Kind {
	case KindString:
		if elem.Kind() != reflect.String {
			return bad()
		}
		s, err := compileString(f.String)
		if err != nil {
			return nil, err
		}
		// A named string type has the memory of a string.
		if ptr {
			r = func(d *jsonscan.Decoder, p Path, dst unsafe.Pointer, _ bool, _ **ToolError) *ToolError {
				return ReadStringPtr(d, p, s, (**string)(dst))
			}
		} else {
			r = func(d *jsonscan.Decoder, p Path, dst unsafe.Pointer, _ bool, _ **ToolError) *ToolError {
				return ReadString(d, p, s, (*string)(dst))
			}
		}
	case KindTime:
		if elem != timeType {
			return bad()
		}
		s, err := compileString(f.String)
		if err != nil {
			return nil, err
		}
		if ptr {
			r = func(d *jsonscan.Decoder, p Path, dst unsafe.Pointer, _ bool, late **ToolError) *ToolError {
				return ReadTimePtr(d, p, s, (**time.Time)(dst), late)
			}
		} else {
			r = func(d *jsonscan.Decoder, p Path, dst unsafe.Pointer, _ bool, late **ToolError) *ToolError {
				return ReadTime(d, p, s, (*time.Time)(dst), late)
			}
		}
	case KindInt:
		s, err := compileNumber(f.Number)
		if err != nil {
			return nil, err
		}
		switch elem.Kind() {
		case reflect.Int64:
			r = intReader[int64](s, ptr)
		case reflect.Int32:
			r = intReader[int32](s, ptr)
		default:
			return bad()
		}
	case KindFloat:
		s, err := compileNumber(f.Number)
		if err != nil {
			return nil, err
		}
		switch elem.Kind() {
		case reflect.Float64:
			r = floatReader[float64](s, ptr)
		case reflect.Float32:
			r = floatReader[float32](s, ptr)
		default:
			return bad()
		}
	case KindBool:
		if elem.Kind() != reflect.Bool {
			return bad()
		}
		if len(f.Const) > 0 {
			if _, ok := f.Const[0].(bool); !ok || len(f.Const) != 1 {
				return nil, descErr("the const of a boolean is %v", f.Const)
			}
		}
		r = boolReader(f, ptr)
	case KindStruct:
		if elem.Kind() != reflect.Struct || elem == timeType {
			return bad()
		}
		s, err := compileStruct(f.Struct, elem, depth+1)
		if err != nil {
			return nil, err
		}
		want, inner := typeOr(f.Type, "object"), f.Defaults
		if ptr {
			r = func(d *jsonscan.Decoder, p Path, dst unsafe.Pointer, defaults bool, late **ToolError) *ToolError {
				v := reflect.New(elem).UnsafePointer()
				*(*unsafe.Pointer)(dst) = v
				if err := d.BeginObject(); err != nil {
					return ArgRead(p.String(), want, err)
				}
				return s.scan(d, &p, v, defaults && inner, late)
			}
		} else {
			r = func(d *jsonscan.Decoder, p Path, dst unsafe.Pointer, defaults bool, late **ToolError) *ToolError {
				if err := d.BeginObject(); err != nil {
					return ArgRead(p.String(), want, err)
				}
				// A key given twice reads the object again, from nothing.
				reflect.NewAt(elem, dst).Elem().SetZero()
				return s.scan(d, &p, dst, defaults && inner, late)
			}
		}
	case KindList:
		if elem.Kind() != reflect.Slice {
			return bad()
		}
		if f.Item == nil {
			return nil, descErr("an array without an item descriptor")
		}
		if f.Unique {
			var err error
			if r, err = uniqueListReader(f, elem, ptr, depth); err != nil {
				return nil, within(err, "[]")
			}
			break
		}
		item, err := compileValue(f.Item, elem.Elem(), false, depth+1)
		if err != nil {
			return nil, within(err, "[]")
		}
		r = listReader(f.Array, elem, ptr, item)
	case KindMap:
		if elem.Kind() != reflect.Map || elem.Key().Kind() != reflect.String {
			return bad()
		}
		var item reader
		if f.Item != nil {
			var err error
			if item, err = compileValue(f.Item, elem.Elem(), false, depth+1); err != nil {
				return nil, within(err, "[]")
			}
		}
		r = mapReader(typeOr(f.Type, "object"), elem, ptr, item)
	case KindAny:
		if elem.Kind() != reflect.Interface || elem.NumMethod() != 0 {
			return bad()
		}
		if ptr {
			r = func(d *jsonscan.Decoder, p Path, dst unsafe.Pointer, _ bool, late **ToolError) *ToolError {
				v, te := ReadAny(d, p, late)
				if te != nil {
					return te
				}
				*(**any)(dst) = &v
				return nil
			}
		} else {
			r = func(d *jsonscan.Decoder, p Path, dst unsafe.Pointer, _ bool, late **ToolError) *ToolError {
				v, te := ReadAny(d, p, late)
				if te != nil {
					return te
				}
				*(*any)(dst) = v
				return nil
			}
		}
	default:
		return nil, descErr("unknown kind %d", f.Kind)
	}
	if !f.Nullable {
		return r, nil
	}
	return nullable(r, f.NullRefused, t), nil
}

// boolReader reads a boolean, checking its const.
func boolReader(f *FieldDesc, ptr bool) reader {
	want := typeOr(f.Type, "boolean")
	if f.Const == nil {
		if ptr {
			return func(d *jsonscan.Decoder, p Path, dst unsafe.Pointer, _ bool, _ **ToolError) *ToolError {
				return ReadBoolPtr(d, p, want, (**bool)(dst))
			}
		}
		return func(d *jsonscan.Decoder, p Path, dst unsafe.Pointer, _ bool, _ **ToolError) *ToolError {
			return ReadBool(d, p, want, (*bool)(dst))
		}
	}
	allowed := f.Const
	c, _ := allowed[0].(bool)
	untyped := f.Type == ""
	return func(d *jsonscan.Decoder, p Path, dst unsafe.Pointer, _ bool, _ **ToolError) *ToolError {
		v, err := d.Bool()
		if err != nil {
			if untyped {
				return ArgEnumRead(p.String(), err, allowed)
			}
			return ArgRead(p.String(), want, err)
		}
		if v != c {
			return ArgNotInEnum(p.String(), v, allowed)
		}
		if ptr {
			*(**bool)(dst) = &v
		} else {
			*(*bool)(dst) = v
		}
		return nil
	}
}

func typeOr(t, def string) string {
	if t == "" {
		return def
	}
	return t
}

// nullable wraps the reader of a value that may be null: null stores the
// zero value, or with refused is not in the value's enum.
func nullable(r reader, refused []any, t reflect.Type) reader {
	return func(d *jsonscan.Decoder, p Path, dst unsafe.Pointer, defaults bool, late **ToolError) *ToolError {
		if d.Peek() != jsonscan.Null {
			return r(d, p, dst, defaults, late)
		}
		if refused != nil {
			return ArgNotInEnum(p.String(), nil, refused)
		}
		if err := d.Null(); err != nil {
			return ArgSyntax(err)
		}
		reflect.NewAt(t, dst).Elem().SetZero()
		return nil
	}
}

// listReader reads an array into a slice of type t, or with ptr a
// pointer to one, as ReadList does.
func listReader(s *ArraySchema, t reflect.Type, ptr bool, item reader) reader {
	want := "array"
	if s != nil {
		want = s.Type
	}
	zero := reflect.Zero(t.Elem())
	return func(d *jsonscan.Decoder, p Path, dst unsafe.Pointer, _ bool, late **ToolError) *ToolError {
		if err := d.BeginArray(); err != nil {
			return ArgRead(p.String(), want, err)
		}
		list := reflect.MakeSlice(t, 0, 0)
		for i := 0; ; i++ {
			more, err := d.NextElem()
			if err != nil {
				return ArgSyntax(err)
			}
			if !more {
				break
			}
			list = reflect.Append(list, zero)
			if te := item(d, p.Index(i), list.Index(i).Addr().UnsafePointer(), false, late); te != nil {
				return te
			}
		}
		n := list.Len()
		if s != nil && (s.MinItems >= 0 && n < s.MinItems || s.MaxItems >= 0 && n > s.MaxItems) {
			return ArgItems(p.String(), n, s.MinItems, s.MaxItems)
		}
		storeValue(dst, list, ptr)
		return nil
	}
}

// keyReader reads a number into dst and sets *key to its exact value,
// which uniqueItems compares.
type keyReader func(d *jsonscan.Decoder, p Path, dst unsafe.Pointer, late **ToolError, key *string) *ToolError

// uniqueListReader reads an array with uniqueItems into a slice of type t,
// or with ptr a pointer to one: as listReader does, then comparing the
// items, numbers by their exact values.
func uniqueListReader(f *FieldDesc, t reflect.Type, ptr bool, depth int) (reader, error) {
	it, et := f.Item, t.Elem()
	if it.Nullable {
		return nil, descErr("uniqueItems over nullable items")
	}
	var item reader
	var keyed keyReader
	switch it.Kind {
	case KindString, KindBool:
		if it.Kind == KindString && et.Kind() != reflect.String || it.Kind == KindBool && et.Kind() != reflect.Bool {
			return nil, descErr("a %s value does not fit Go type %s", it.Kind, et)
		}
		var err error
		if item, err = compileValue(it, et, false, depth+1); err != nil {
			return nil, err
		}
	case KindInt, KindFloat:
		s, err := compileNumber(it.Number)
		if err != nil {
			return nil, err
		}
		switch {
		case it.Kind == KindInt && et.Kind() == reflect.Int64:
			keyed = func(d *jsonscan.Decoder, p Path, dst unsafe.Pointer, late **ToolError, key *string) *ToolError {
				n, ok, te := readInt[int64](d, &p, s, late, key)
				store((*int64)(dst), n, ok)
				return te
			}
		case it.Kind == KindInt && et.Kind() == reflect.Int32:
			keyed = func(d *jsonscan.Decoder, p Path, dst unsafe.Pointer, late **ToolError, key *string) *ToolError {
				n, ok, te := readInt[int32](d, &p, s, late, key)
				store((*int32)(dst), n, ok)
				return te
			}
		case it.Kind == KindFloat && et.Kind() == reflect.Float64:
			keyed = func(d *jsonscan.Decoder, p Path, dst unsafe.Pointer, late **ToolError, key *string) *ToolError {
				v, ok, te := readFloat[float64](d, &p, s, late, key)
				store((*float64)(dst), v, ok)
				return te
			}
		case it.Kind == KindFloat && et.Kind() == reflect.Float32:
			keyed = func(d *jsonscan.Decoder, p Path, dst unsafe.Pointer, late **ToolError, key *string) *ToolError {
				v, ok, te := readFloat[float32](d, &p, s, late, key)
				store((*float32)(dst), v, ok)
				return te
			}
		default:
			return nil, descErr("a %s value does not fit Go type %s", it.Kind, et)
		}
	default:
		return nil, descErr("uniqueItems over %s items", it.Kind)
	}
	s := f.Array
	want := "array"
	if s != nil {
		want = s.Type
	}
	zero := reflect.Zero(et)
	isString := et.Kind() == reflect.String
	return func(d *jsonscan.Decoder, p Path, dst unsafe.Pointer, _ bool, late **ToolError) *ToolError {
		if err := d.BeginArray(); err != nil {
			return ArgRead(p.String(), want, err)
		}
		list := reflect.MakeSlice(t, 0, 0)
		var keys []string
		for i := 0; ; i++ {
			more, err := d.NextElem()
			if err != nil {
				return ArgSyntax(err)
			}
			if !more {
				break
			}
			list = reflect.Append(list, zero)
			at := list.Index(i).Addr().UnsafePointer()
			if keyed != nil {
				var key string
				if te := keyed(d, p.Index(i), at, late, &key); te != nil {
					return te
				}
				keys = append(keys, key)
			} else if te := item(d, p.Index(i), at, false, late); te != nil {
				return te
			}
		}
		n := list.Len()
		if s != nil && (s.MinItems >= 0 && n < s.MinItems || s.MaxItems >= 0 && n > s.MaxItems) {
			return ArgItems(p.String(), n, s.MinItems, s.MaxItems)
		}
		var j, k int
		var dup bool
		switch {
		case keyed != nil:
			j, k, dup = Duplicate(keys)
		case isString:
			// A named string type has the memory of a string.
			j, k, dup = Duplicate(unsafe.Slice((*string)(list.UnsafePointer()), n))
		default:
			j, k, dup = Duplicate(unsafe.Slice((*bool)(list.UnsafePointer()), n))
		}
		if dup {
			return ArgNotUnique(p.String(), j, k, list.Interface())
		}
		storeValue(dst, list, ptr)
		return nil
	}, nil
}

// mapReader reads an object into a map of type t, or with ptr a pointer
// to one, reading each value with item; without item, a member is an
// error, which names the first key in order once the object is read.
func mapReader(want string, t reflect.Type, ptr bool, item reader) reader {
	return func(d *jsonscan.Decoder, p Path, dst unsafe.Pointer, _ bool, late **ToolError) *ToolError {
		if err := d.BeginObject(); err != nil {
			return ArgRead(p.String(), want, err)
		}
		m := reflect.MakeMap(t)
		var unknown string
		hasUnknown := false
		for {
			key, more, err := d.NextKey()
			if err != nil {
				return ArgSyntax(err)
			}
			if !more {
				break
			}
			if item == nil {
				if !hasUnknown || string(key) < unknown {
					unknown, hasUnknown = string(key), true
				}
				if err := d.Skip(); err != nil {
					return ArgSyntax(err)
				}
				continue
			}
			k := string(key)
			v := reflect.New(t.Elem())
			if te := item(d, p.Key(k), v.UnsafePointer(), false, late); te != nil {
				return te
			}
			m.SetMapIndex(reflect.ValueOf(k).Convert(t.Key()), v.Elem())
		}
		if hasUnknown {
			return ArgUnknown(p.String(), unknown, []string{})
		}
		storeValue(dst, m, ptr)
		return nil
	}
}

// storeValue stores v at dst, or with ptr a pointer to a copy of v.
func storeValue(dst unsafe.Pointer, v reflect.Value, ptr bool) {
	if ptr {
		pv := reflect.New(v.Type())
		pv.Elem().Set(v)
		*(*unsafe.Pointer)(dst) = pv.UnsafePointer()
		return
	}
	reflect.NewAt(v.Type(), dst).Elem().Set(v)
}

// compileString returns s with its pattern compiled from PatternSource.
func compileString(s *StringSchema) (*StringSchema, error) {
	if s == nil || s.PatternSource == "" || s.Pattern != nil {
		return s, nil
	}
	re, err := compilePattern(s.PatternSource)
	if err != nil {
		return nil, descErr("pattern: %w", err)
	}
	c := *s
	c.Pattern = re
	return &c, nil
}

// patterns are the patterns DataPass compiled, by source: a catalog of
// thousands of tools repeats a few patterns, and a Regexp is safe for
// concurrent use. Their sources are the descriptors', which are package
// variables, so there are as many as the program has.
var patterns sync.Map // string → *regexp.Regexp

func compilePattern(src string) (*regexp.Regexp, error) {
	if re, ok := patterns.Load(src); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, err
	}
	patterns.Store(src, re)
	return re, nil
}

// compileNumber returns s with its multipleOf parsed from MultipleOf.
func compileNumber(s *NumberSchema) (*NumberSchema, error) {
	if s == nil || s.MultipleOf == "" || s.Multiple != nil {
		return s, nil
	}
	m, err := parseMultiple(s.MultipleOf)
	if err != nil {
		return nil, descErr("%w", err)
	}
	c := *s
	c.Multiple = m
	return &c, nil
}

// compileDefault decodes the default of f once and returns what stores it
// in a field of type t: a copy of a scalar each time, or a fresh decoding
// of an object, an array or a time, as generated code does.
func compileDefault(f *FieldDesc, t reflect.Type) (func(unsafe.Pointer), error) {
	raw := []byte(f.Default)
	elem, ptr := t, t.Kind() == reflect.Pointer
	if ptr {
		elem = t.Elem()
	}
	bad := func(err error) (func(unsafe.Pointer), error) {
		return nil, descErr("default %s: %v", f.Default, err)
	}
	switch f.Kind {
	case KindString:
		var d jsonscan.Decoder
		d.Reset(raw)
		v, err := d.String()
		if err == nil {
			err = d.End()
		}
		if err != nil {
			return bad(err)
		}
		if ptr {
			return func(dst unsafe.Pointer) { c := v; *(**string)(dst) = &c }, nil
		}
		return func(dst unsafe.Pointer) { *(*string)(dst) = v }, nil
	case KindBool:
		v, err := strconv.ParseBool(f.Default)
		if err != nil {
			return bad(err)
		}
		if ptr {
			return func(dst unsafe.Pointer) { c := v; *(**bool)(dst) = &c }, nil
		}
		return func(dst unsafe.Pointer) { *(*bool)(dst) = v }, nil
	case KindInt:
		n, err := jsonscan.ParseInt64(raw) // exactly: 9007199254740993.0 too
		if err != nil {
			return bad(err)
		}
		if elem.Kind() == reflect.Int32 {
			if int64(int32(n)) != n {
				return bad(fmt.Errorf("beyond int32"))
			}
			v := int32(n)
			if ptr {
				return func(dst unsafe.Pointer) { c := v; *(**int32)(dst) = &c }, nil
			}
			return func(dst unsafe.Pointer) { *(*int32)(dst) = v }, nil
		}
		if ptr {
			return func(dst unsafe.Pointer) { c := n; *(**int64)(dst) = &c }, nil
		}
		return func(dst unsafe.Pointer) { *(*int64)(dst) = n }, nil
	case KindFloat:
		v, err := strconv.ParseFloat(f.Default, 64)
		if err != nil {
			return bad(err)
		}
		if elem.Kind() == reflect.Float32 {
			v32 := float32(v)
			if ptr {
				return func(dst unsafe.Pointer) { c := v32; *(**float32)(dst) = &c }, nil
			}
			return func(dst unsafe.Pointer) { *(*float32)(dst) = v32 }, nil
		}
		if ptr {
			return func(dst unsafe.Pointer) { c := v; *(**float64)(dst) = &c }, nil
		}
		return func(dst unsafe.Pointer) { *(*float64)(dst) = v }, nil
	}
	// Objects, arrays and times: decoded from the default's JSON on each
	// use, without defaults inside, so no two calls share a value.
	if err := UnmarshalExact(raw, reflect.New(t).Interface()); err != nil {
		return bad(err)
	}
	return func(dst unsafe.Pointer) {
		_ = UnmarshalExact(raw, reflect.NewAt(t, dst).Interface())
	}, nil
}
