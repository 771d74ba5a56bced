package runtime

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// surelyOverCap reports whether data, a result of e, is surely over e's
// size cap (max_result_bytes), with a lower bound n of its size, walking
// it rather than encoding it: a result of 200 MB would cost several times
// that to encode before it is refused. Without a cap, nothing is.
func (e *entry) surelyOverCap(data any) (n int, over bool) {
	if e.maxResult <= 0 {
		return 0, false
	}
	return jsonSizeAtLeast(data, e.maxResult)
}

// jsonSizeAtLeast walks v as encoding/json would encode it and returns a
// lower bound of the size of its JSON, stopping as soon as that bound
// passes limit (over is then true). It allocates nothing for the common
// values, so a result far above its cap is refused without encoding it:
// encoding/json builds the whole encoding in memory, and then some copies
// of it, before a cap could look at it.
//
// The bound is exact for strings, byte slices, integers, booleans, nulls
// and the punctuation and keys of objects and arrays; a float counts one
// byte, a value with its own MarshalJSON nothing (json.RawMessage its
// bytes other than white space), a MarshalText value its two quotes. So a
// result it finds over the limit is over it, and a result it lets through
// encodes to a small multiple of the limit at most, unless a MarshalJSON
// method of its own writes more.
func jsonSizeAtLeast(v any, limit int) (n int, over bool) {
	s := sizer{limit: limit}
	s.value(reflect.ValueOf(v), 0)
	return s.n, s.n > s.limit
}

type sizer struct{ n, limit int }

// add counts k bytes and reports whether the bound passed the limit.
func (s *sizer) add(k int) bool {
	s.n += k
	return s.n > s.limit
}

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
	numberType        = reflect.TypeFor[json.Number]()
)

// implements reports whether encoding/json would call a method of iface
// on v.
func implements(v reflect.Value, iface reflect.Type) bool {
	t := v.Type()
	return t.Implements(iface) || t.Kind() != reflect.Pointer && v.CanAddr() && reflect.PointerTo(t).Implements(iface)
}

// value counts v; it reports whether the limit was passed.
func (s *sizer) value(v reflect.Value, depth int) bool {
	if !v.IsValid() {
		return s.add(4) // null
	}
	if depth > 1000 { // encoding/json refuses cycles; count no more
		return false
	}
	t := v.Type()
	switch {
	case t == rawMessageType:
		if v.IsNil() {
			return s.add(4)
		}
		k := 0
		for _, c := range v.Bytes() {
			if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
				k++
			}
		}
		return s.add(k)
	case implements(v, marshalerType):
		if t.Kind() == reflect.Pointer && v.IsNil() {
			return s.add(4)
		}
		return false
	case implements(v, textMarshalerType):
		if t.Kind() == reflect.Pointer && v.IsNil() {
			return s.add(4)
		}
		return s.add(2)
	case t == numberType:
		return s.add(max(len(v.String()), 1))
	}
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			return s.add(4)
		}
		return s.add(5)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		var b [24]byte
		return s.add(len(strconv.AppendInt(b[:0], v.Int(), 10)))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		var b [24]byte
		return s.add(len(strconv.AppendUint(b[:0], v.Uint(), 10)))
	case reflect.Float32, reflect.Float64:
		return s.add(1)
	case reflect.String:
		return s.str(v.String())
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return s.add(4)
		}
		return s.value(v.Elem(), depth+1)
	case reflect.Struct:
		return s.structValue(v, depth)
	case reflect.Map:
		return s.mapValue(v, depth)
	case reflect.Slice:
		if v.IsNil() {
			return s.add(4)
		}
		if p := reflect.PointerTo(t.Elem()); t.Elem().Kind() == reflect.Uint8 && !p.Implements(marshalerType) && !p.Implements(textMarshalerType) {
			return s.add(base64.StdEncoding.EncodedLen(v.Len()) + 2)
		}
		return s.array(v, depth)
	case reflect.Array:
		return s.array(v, depth)
	}
	return false // channels, functions, complex numbers: encoding/json refuses them
}

// str counts x as a JSON string, as encoding/json escapes it (without
// HTML escaping, which only makes it longer).
func (s *sizer) str(x string) bool {
	if s.n+len(x)+2 > s.limit { // escaping never shortens
		return s.add(len(x) + 2)
	}
	k := 2
	for i := 0; i < len(x); {
		if c := x[i]; c < utf8.RuneSelf {
			switch {
			case c >= 0x20 && c != '"' && c != '\\':
				k++
			case c == '"', c == '\\', c == '\b', c == '\f', c == '\n', c == '\r', c == '\t':
				k += 2
			default:
				k += 6
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(x[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			k += 6
		} else {
			k += size
		}
		i += size
	}
	return s.add(k)
}

func (s *sizer) array(v reflect.Value, depth int) bool {
	n := v.Len()
	if s.add(2 + max(n-1, 0)) { // brackets and commas
		return true
	}
	for i := range n {
		if s.value(v.Index(i), depth+1) {
			return true
		}
	}
	return false
}

func (s *sizer) mapValue(v reflect.Value, depth int) bool {
	if v.IsNil() {
		return s.add(4)
	}
	n := v.Len()
	if s.add(2 + max(n-1, 0)) {
		return true
	}
	kt := v.Type().Key()
	key := reflect.New(kt).Elem()
	val := reflect.New(v.Type().Elem()).Elem()
	for it := v.MapRange(); it.Next(); {
		key.SetIterKey(it)
		val.SetIterValue(it)
		var over bool
		switch kt.Kind() {
		case reflect.String:
			over = s.str(key.String())
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			var b [24]byte
			over = s.add(len(strconv.AppendInt(b[:0], key.Int(), 10)) + 2)
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			var b [24]byte
			over = s.add(len(strconv.AppendUint(b[:0], key.Uint(), 10)) + 2)
		default:
			over = s.add(2)
		}
		if over || s.add(1) || s.value(val, depth+1) {
			return true
		}
	}
	return false
}

func (s *sizer) structValue(v reflect.Value, depth int) bool {
	if s.add(2) {
		return true
	}
	first := true
fields:
	for _, f := range cachedFields(v.Type()) {
		fv := v
		for _, i := range f.index {
			if fv.Kind() == reflect.Pointer {
				if fv.IsNil() {
					continue fields // a field of a nil embedded pointer is left out
				}
				fv = fv.Elem()
			}
			fv = fv.Field(i)
		}
		if f.omitEmpty && isEmptyValue(fv) || f.omitZero && (f.hasIsZero || fv.IsZero()) {
			continue
		}
		k := len(f.name) + 3 // "name":
		if !first {
			k++
		}
		first = false
		if s.add(k) || s.value(fv, depth+1) {
			return true
		}
	}
	return false
}

func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// A jsonField is a field encoding/json writes: its key, where it is, and
// when it is left out. hasIsZero says the field's type has an IsZero
// method, which omitzero would call: the size counts such a field as
// left out.
type jsonField struct {
	name                string
	index               []int
	depth               int
	tagged              bool
	omitEmpty, omitZero bool
	hasIsZero           bool
	quoted              bool // the ",string" option
}

var fieldCache sync.Map // reflect.Type → []jsonField

// cachedFields are the fields encoding/json writes for the struct type t,
// found by its rules: exported fields, those of embedded structs
// promoted, a tag's name used, and of the fields of one name only the
// shallowest kept (the tagged one among several, or none).
func cachedFields(t reflect.Type) []jsonField {
	if f, ok := fieldCache.Load(t); ok {
		return f.([]jsonField)
	}
	f, _ := fieldCache.LoadOrStore(t, typeFields(t))
	return f.([]jsonField)
}

func typeFields(t reflect.Type) []jsonField {
	type level struct {
		typ   reflect.Type
		index []int
	}
	var all []jsonField
	visited := map[reflect.Type]bool{}
	next := []level{{typ: t}}
	isZeroer := reflect.TypeFor[interface{ IsZero() bool }]()
	for depth := 0; len(next) > 0; depth++ {
		current := next
		next = nil
		for _, l := range current {
			if visited[l.typ] {
				continue
			}
			visited[l.typ] = true
			for i := range l.typ.NumField() {
				sf := l.typ.Field(i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if sf.Anonymous {
					if !sf.IsExported() && ft.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !validTagName(name) {
					name = ""
				}
				index := append(slices.Clip(l.index), i)
				if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
					next = append(next, level{typ: ft, index: index})
					continue
				}
				f := jsonField{name: name, index: index, depth: depth, tagged: name != ""}
				if f.name == "" {
					f.name = sf.Name
				}
				for o := range strings.SplitSeq(opts, ",") {
					f.omitEmpty = f.omitEmpty || o == "omitempty"
					f.omitZero = f.omitZero || o == "omitzero"
					f.quoted = f.quoted || o == "string"
				}
				f.hasIsZero = sf.Type.Implements(isZeroer) || reflect.PointerTo(sf.Type).Implements(isZeroer)
				all = append(all, f)
			}
		}
	}
	// Of the fields of one name, the shallowest wins; several at that
	// depth leave the tagged one if it is alone, else none.
	var out []jsonField
	for i, f := range all {
		keep := true
		for j, g := range all {
			if j == i || g.name != f.name {
				continue
			}
			if g.depth < f.depth || g.depth == f.depth && (g.tagged || !f.tagged) {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, f)
		}
	}
	slices.SortFunc(out, func(a, b jsonField) int { return slices.Compare(a.index, b.index) }) // encoding/json's order
	return out
}

// validTagName reports whether encoding/json takes name as a key.
func validTagName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		if !strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c) && !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			return false
		}
	}
	return true
}
