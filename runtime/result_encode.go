package runtime

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// The result encoder writes a tool's result as encoding/json would, byte
// for byte, and enforces the result's size cap while it writes: it stops
// as soon as the output passes the cap, so that a result far above it is
// refused without being encoded whole, in one walk of the value instead of
// a walk to bound its size and then an encoding.
//
// It compiles an encoder per Go type once, as encoding/json does, and
// writes booleans, numbers, strings, byte slices, structs, slices, arrays,
// maps with string or integer keys, pointers and interfaces itself.
// Everything else — a type with its own MarshalJSON or MarshalText, a map
// keyed by MarshalText, json.Number, a struct with a
// ",string" field or an omitzero field whose type has IsZero, a value
// nested more than maxEncodeDepth deep — it hands to encoding/json, after
// checking a lower bound of its size against what is left of the cap
// (jsonSizeAtLeast's walk), so the cap holds there too.

// maxEncodeDepth is how deep the encoder nests before it hands the rest to
// encoding/json, which detects cycles.
const maxEncodeDepth = 1000

// encState is one encoding: the output, the cap, and how it ended.
type encState struct {
	b          []byte
	limit      int  // the cap on the output (0: none)
	escapeHTML bool // escape <, > and & as json.Marshal does
	depth      int
	over       bool // the output passed limit; atLeast bounds its size
	atLeast    int
	err        error
	done       bool // over or err: the encoding stops
}

func (s *encState) stopped() bool { return s.done }

func (s *encState) fail(err error) { s.err, s.done = err, true }

// passed reports whether n bytes of output passes the cap, and stops the
// encoding when it does.
func (s *encState) passed(n int) bool {
	if s.limit > 0 && n > s.limit {
		s.over, s.atLeast, s.done = true, n, true
		return true
	}
	return false
}

// reserve makes room for k more bytes, growing the buffer by doubling
// (never far beyond the cap), so that a result near its cap allocates a
// small multiple of it at most.
func (s *encState) reserve(k int) {
	if cap(s.b)-len(s.b) >= k {
		return
	}
	n := max(2*cap(s.b), len(s.b)+k, 64)
	if s.limit > 0 {
		n = max(min(n, s.limit+64), len(s.b)+k)
	}
	b := make([]byte, len(s.b), n)
	copy(b, s.b)
	s.b = b
}

type encodeFunc func(s *encState, v reflect.Value)

// typeEncoder is the compiled encoder of one type. fn is set before the
// encoder is published, so that encoders of recursive types can refer to
// each other by pointer.
type typeEncoder struct{ fn encodeFunc }

var (
	encoders   sync.Map   // reflect.Type → *typeEncoder
	encodersMu sync.Mutex // held while compiling
)

// encoderOf returns the compiled encoder of t.
func encoderOf(t reflect.Type) *typeEncoder {
	if e, ok := encoders.Load(t); ok {
		return e.(*typeEncoder)
	}
	encodersMu.Lock()
	defer encodersMu.Unlock()
	c := encCompiler{made: map[reflect.Type]*typeEncoder{}}
	e := c.encoder(t)
	for t, e := range c.made {
		encoders.Store(t, e)
	}
	return e
}

// encoderCache keeps the encoder of the first type encoded through it,
// sparing a look-up for a tool whose results (or arguments) are always of
// one type.
type encoderCache struct{ p atomic.Pointer[cachedEncoder] }

type cachedEncoder struct {
	t reflect.Type
	e *typeEncoder
}

// encoder returns t's encoder; c may be nil.
func (c *encoderCache) encoder(t reflect.Type) *typeEncoder {
	if c == nil {
		return encoderOf(t)
	}
	ce := c.p.Load()
	if ce != nil && ce.t == t {
		return ce.e
	}
	e := encoderOf(t)
	if ce == nil { // another type keeps its place: nothing allocated for this one
		c.p.CompareAndSwap(nil, &cachedEncoder{t, e})
	}
	return e
}

// encCompiler compiles the encoders of a type and of the types it holds.
type encCompiler struct {
	made map[reflect.Type]*typeEncoder // made by this compilation, not yet published
}

func (c *encCompiler) encoder(t reflect.Type) *typeEncoder {
	if e, ok := encoders.Load(t); ok {
		return e.(*typeEncoder)
	}
	if e, ok := c.made[t]; ok {
		return e
	}
	e := &typeEncoder{}
	c.made[t] = e
	e.fn = c.build(t)
	return e
}

func (c *encCompiler) build(t reflect.Type) encodeFunc {
	if t == numberType || t.Implements(marshalerType) || t.Implements(textMarshalerType) ||
		t.Kind() != reflect.Pointer && (reflect.PointerTo(t).Implements(marshalerType) || reflect.PointerTo(t).Implements(textMarshalerType)) {
		return encodeByJSON
	}
	switch t.Kind() {
	case reflect.Bool:
		return encodeBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return encodeInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return encodeUint
	case reflect.Float32:
		return encodeFloat32
	case reflect.Float64:
		return encodeFloat64
	case reflect.String:
		return encodeString
	case reflect.Interface:
		return encodeInterface
	case reflect.Pointer:
		return c.pointer(t)
	case reflect.Struct:
		return c.structType(t)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			if p := reflect.PointerTo(t.Elem()); !p.Implements(marshalerType) && !p.Implements(textMarshalerType) {
				return encodeBytes
			}
		}
		return c.list(t, true)
	case reflect.Array:
		return c.list(t, false)
	case reflect.Map:
		return c.mapType(t)
	}
	return encodeByJSON // channels, functions and complex numbers, which it refuses
}

func encodeBool(s *encState, v reflect.Value) {
	if v.Bool() {
		s.b = append(s.b, "true"...)
	} else {
		s.b = append(s.b, "false"...)
	}
}

func encodeInt(s *encState, v reflect.Value) { s.b = strconv.AppendInt(s.b, v.Int(), 10) }

func encodeUint(s *encState, v reflect.Value) { s.b = strconv.AppendUint(s.b, v.Uint(), 10) }

func encodeFloat32(s *encState, v reflect.Value) { s.float(v.Float(), 32) }

func encodeFloat64(s *encState, v reflect.Value) { s.float(v.Float(), 64) }

// float writes f as encoding/json does: the shortest form that reads back,
// in exponent form below 1e-6 and from 1e21.
func (s *encState) float(f float64, bits int) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		s.fail(&json.UnsupportedValueError{Str: strconv.FormatFloat(f, 'g', -1, bits)})
		return
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	b := strconv.AppendFloat(s.b, f, format, -1, bits)
	if format == 'e' { // e-09 → e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	s.b = b
}

func encodeString(s *encState, v reflect.Value) { s.str(v.String()) }

// str writes x as a JSON string. A string that may pass the cap is
// measured first, so that it is never written beyond it.
func (s *encState) str(x string) {
	if s.limit > 0 && len(s.b)+6*len(x)+2 > s.limit {
		if n := len(s.b) + jsonStringLen(x); s.passed(n) {
			return
		}
	}
	s.reserve(len(x) + 2)
	s.b = appendJSONString(s.b, x, s.escapeHTML)
}

// jsonStringLen is the length of x written as a JSON string.
func jsonStringLen(x string) int {
	sz := sizer{limit: math.MaxInt}
	sz.str(x)
	return sz.n
}

const hexDigits = "0123456789abcdef"

// plainASCII holds the bytes a JSON string holds as they are: ASCII from
// 0x20 but '"' and '\\'; plainASCIIHTML leaves out '<', '>' and '&' too.
var plainASCII, plainASCIIHTML = func() (p, h [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		p[c] = c != '"' && c != '\\'
		h[c] = p[c] && c != '<' && c != '>' && c != '&'
	}
	return p, h
}()

// appendJSONString appends x as encoding/json writes a string: quotes and
// backslashes escaped, control characters as \b \f \n \r \t or \u00XX,
// invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped, and <, > and & as
// \u003c \u003e \u0026 when escapeHTML is set.
func appendJSONString(b []byte, x string, escapeHTML bool) []byte {
	plain := &plainASCII
	if escapeHTML {
		plain = &plainASCIIHTML
	}
	b = append(b, '"')
	start := 0
	for i := 0; i < len(x); {
		c := x[i]
		if plain[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, x[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(x[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, x[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, x[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, x[start:]...)
	return append(b, '"')
}

func encodeBytes(s *encState, v reflect.Value) {
	if v.IsNil() {
		s.b = append(s.b, "null"...)
		return
	}
	n := base64.StdEncoding.EncodedLen(v.Len()) + 2
	if s.passed(len(s.b) + n) {
		return
	}
	s.reserve(n)
	s.b = append(s.b, '"')
	s.b = base64.StdEncoding.AppendEncode(s.b, v.Bytes())
	s.b = append(s.b, '"')
}

func encodeInterface(s *encState, v reflect.Value) {
	if v.IsNil() {
		s.b = append(s.b, "null"...)
		return
	}
	e := v.Elem()
	s.nested(encoderOf(e.Type()), e)
}

// nested writes v with e one level deeper, or hands it to encoding/json
// past maxEncodeDepth. It checks the cap first: values linked by pointers
// grow the output without bound too.
func (s *encState) nested(e *typeEncoder, v reflect.Value) {
	if s.passed(len(s.b)) {
		return
	}
	if s.depth >= maxEncodeDepth {
		encodeByJSON(s, v)
		return
	}
	s.depth++
	e.fn(s, v)
	s.depth--
}

func (c *encCompiler) pointer(t reflect.Type) encodeFunc {
	elem := c.encoder(t.Elem())
	return func(s *encState, v reflect.Value) {
		if v.IsNil() {
			s.b = append(s.b, "null"...)
			return
		}
		s.nested(elem, v.Elem())
	}
}

func (c *encCompiler) list(t reflect.Type, slice bool) encodeFunc {
	elem := c.encoder(t.Elem())
	return func(s *encState, v reflect.Value) {
		if slice && v.IsNil() {
			s.b = append(s.b, "null"...)
			return
		}
		if s.depth >= maxEncodeDepth {
			encodeByJSON(s, v)
			return
		}
		s.depth++
		s.b = append(s.b, '[')
		for i := range v.Len() {
			if i > 0 {
				s.b = append(s.b, ',')
			}
			elem.fn(s, v.Index(i))
			if s.stopped() || s.passed(len(s.b)) {
				return
			}
		}
		s.b = append(s.b, ']')
		s.depth--
	}
}

// mapEntry is a member of a map being written: its key as JSON names it,
// and its value.
type mapEntry struct {
	key string
	v   reflect.Value
}

// mapType writes a map with keys of a string or integer kind as
// encoding/json does: the keys sorted, integers in decimal. Other keys
// (MarshalText) go to encoding/json.
func (c *encCompiler) mapType(t reflect.Type) encodeFunc {
	kt := t.Key()
	var intKey, uintKey bool
	switch kt.Kind() {
	case reflect.String:
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		intKey = true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		uintKey = true
	default:
		return encodeByJSON
	}
	if (intKey || uintKey) && kt.Implements(textMarshalerType) {
		return encodeByJSON // encoding/json names such keys by their text
	}
	elem := c.encoder(t.Elem())
	return func(s *encState, v reflect.Value) {
		if v.IsNil() {
			s.b = append(s.b, "null"...)
			return
		}
		if s.depth >= maxEncodeDepth {
			encodeByJSON(s, v)
			return
		}
		s.depth++
		members := make([]mapEntry, 0, v.Len())
		key := reflect.New(kt).Elem()
		for it := v.MapRange(); it.Next(); {
			key.SetIterKey(it)
			var name string
			switch {
			case intKey:
				name = strconv.FormatInt(key.Int(), 10)
			case uintKey:
				name = strconv.FormatUint(key.Uint(), 10)
			default:
				name = key.String()
			}
			members = append(members, mapEntry{name, it.Value()}) // a value, as encoding/json has it: not addressable
		}
		slices.SortFunc(members, func(a, b mapEntry) int { return strings.Compare(a.key, b.key) })
		s.b = append(s.b, '{')
		for i := range members {
			if i > 0 {
				s.b = append(s.b, ',')
			}
			if s.str(members[i].key); s.done {
				return
			}
			s.b = append(s.b, ':')
			elem.fn(s, members[i].v)
			if s.done || s.passed(len(s.b)) {
				return
			}
		}
		s.b = append(s.b, '}')
		s.depth--
	}
}

// fieldEncoder writes one field of a struct: key is `,"name":`.
type fieldEncoder struct {
	key                 string
	field               int   // the field's index in the struct, or -1: promoted, at index
	index               []int // the path to a promoted field
	omit                bool  // omitempty or omitzero
	omitEmpty, omitZero bool
	enc                 *typeEncoder
}

// promoted returns the promoted field f of v, or false when an embedded
// pointer on the way is nil: encoding/json leaves the field out.
func (f *fieldEncoder) promoted(v reflect.Value) (reflect.Value, bool) {
	for _, j := range f.index {
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return v, false
			}
			v = v.Elem()
		}
		v = v.Field(j)
	}
	return v, true
}

func (f *fieldEncoder) omitted(v reflect.Value) bool {
	return f.omitEmpty && isEmptyValue(v) || f.omitZero && v.IsZero()
}

func (c *encCompiler) structType(t reflect.Type) encodeFunc {
	fields := cachedFields(t)
	for _, f := range fields {
		if f.quoted || f.omitZero && f.hasIsZero {
			return encodeByJSON
		}
	}
	fs := make([]fieldEncoder, len(fields))
	for i, f := range fields {
		ft := t
		for _, j := range f.index {
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			ft = ft.Field(j).Type
		}
		fs[i] = fieldEncoder{key: `,"` + f.name + `":`, field: -1, index: f.index, omit: f.omitEmpty || f.omitZero,
			omitEmpty: f.omitEmpty, omitZero: f.omitZero, enc: c.encoder(ft)}
		if len(f.index) == 1 {
			fs[i].field = f.index[0]
		}
	}
	return func(s *encState, v reflect.Value) {
		if s.depth >= maxEncodeDepth {
			encodeByJSON(s, v)
			return
		}
		s.depth++
		s.b = append(s.b, '{')
		first := true
		for i := range fs {
			f := &fs[i]
			var fv reflect.Value
			if f.field >= 0 {
				fv = v.Field(f.field)
			} else if p, ok := f.promoted(v); ok {
				fv = p
			} else {
				continue
			}
			if f.omit && f.omitted(fv) {
				continue
			}
			k := f.key
			if first {
				k, first = k[1:], false
			}
			s.b = append(s.b, k...)
			f.enc.fn(s, fv)
			if s.done { // what grows without bound checks the cap itself
				return
			}
		}
		s.b = append(s.b, '}')
		s.depth--
	}
}

// encodeByJSON hands v to encoding/json once a lower bound of its size
// fits what is left of the cap. An addressable v goes by its address, so
// that a MarshalJSON or MarshalText on the pointer is called as
// encoding/json calls it.
func encodeByJSON(s *encState, v reflect.Value) {
	if s.limit > 0 {
		sz := sizer{limit: s.limit - len(s.b)}
		if sz.value(v, s.depth); sz.n > sz.limit {
			s.over, s.atLeast, s.done = true, len(s.b)+sz.n, true
			return
		}
	}
	var x any
	switch {
	case v.CanAddr():
		x = v.Addr().Interface()
	case v.Kind() == reflect.Interface:
		// A pointer to a copy keeps the interface's own type, whose
		// MarshalJSON encoding/json calls even on a nil pointer inside.
		p := reflect.New(v.Type())
		p.Elem().Set(v)
		x = p.Interface()
	default:
		x = v.Interface()
	}
	// Only here does the encoding run code of the value's own, which may
	// panic.
	defer func() {
		if p := recover(); p != nil {
			s.fail(fmt.Errorf("%w: %v", errEncodePanic, p))
		}
	}()
	eb := encPool.Get().(*encBuf) // not put back when a method panics
	eb.buf.Reset()
	eb.enc.SetEscapeHTML(s.escapeHTML)
	err := eb.enc.Encode(x)
	eb.enc.SetEscapeHTML(false)
	if out := eb.buf.Bytes(); err == nil && !s.passed(len(s.b)+len(out)-1) {
		s.reserve(len(out) - 1)
		s.b = append(s.b, out[:len(out)-1]...) // without Encode's newline
	}
	if eb.buf.Cap() <= 64<<10 {
		encPool.Put(eb)
	}
	if err != nil {
		s.fail(err)
	}
}

// encStates holds encodings' states, their buffers kept for the next.
var encStates = sync.Pool{New: func() any { return new(encState) }}

// errEncodePanic is the error of an encoding during which a MarshalJSON or
// MarshalText method panicked.
var errEncodePanic = errors.New("a method of the value panicked while it was encoded")

// encodeJSON writes head, v's JSON and tail into a new slice, as
// encoding/json would write v (without HTML escaping unless escapeHTML).
// When v's JSON passes limit (0: none) it stops and reports over, with a
// lower bound n of the size; otherwise n is the size of v's JSON. c, when
// set, remembers v's encoder.
func encodeJSON(head string, v any, tail string, limit int, escapeHTML bool, c *encoderCache) (out []byte, n int, over bool, err error) {
	return encodeJSONIn(nil, head, v, tail, limit, escapeHTML, c)
}

// encodeJSONIn is encodeJSON writing into the capacity of room past its
// length when the JSON fits there, instead of into a new slice.
func encodeJSONIn(room []byte, head string, v any, tail string, limit int, escapeHTML bool, c *encoderCache) (out []byte, n int, over bool, err error) {
	err = withJSON(head, v, limit, escapeHTML, c, func(s *encState) {
		if over = s.over; over {
			n = s.atLeast - len(head)
			return
		}
		size := len(s.b) + len(tail)
		if at := len(room); cap(room)-at >= size {
			out = room[at : at+size : at+size]
		} else {
			out = make([]byte, size)
		}
		copy(out[copy(out, s.b):], tail)
		n = len(s.b) - len(head)
	})
	return out, n, over, err
}

// withJSON encodes head and v's JSON in a pooled buffer, under limit as
// encodeJSON does, and gives done the state when the encoding did not
// fail: s.b, valid until done returns, or s.over.
func withJSON(head string, v any, limit int, escapeHTML bool, c *encoderCache, done func(s *encState)) error {
	s := encStates.Get().(*encState)
	*s = encState{b: append(s.b[:0], head...), escapeHTML: escapeHTML}
	if limit > 0 {
		s.limit = len(head) + limit
	}
	if v == nil {
		s.b = append(s.b, "null"...)
	} else {
		rv := reflect.ValueOf(v)
		c.encoder(rv.Type()).fn(s, rv)
	}
	if !s.done {
		s.passed(len(s.b))
	}
	err := s.err
	if err == nil {
		done(s)
	}
	if cap(s.b) <= 64<<10 { // do not keep the buffer of a huge result
		s.err = nil
		encStates.Put(s)
	}
	return err
}
