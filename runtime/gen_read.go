package runtime

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/toolcat/toolcat/runtime/jsonscan"
)

// The readers below are the bodies of generated one-pass validators: the
// generated code keeps what depends on the tool (which member goes to
// which field, which schema applies where) and calls them for the rest.
// Each reads one value from a jsonscan.Decoder, checks it against a schema
// the generator wrote as a package variable, and stores it; its errors and
// their order are those of SchemaValidator on the same input.

// ScanFunc is a generated function that reads the members of an object of
// type T into out, after d has read its '{'. at is the object's location;
// defaults says whether to apply the schema's defaults to absent members;
// errors of values the schema allows but T cannot hold go to late (see
// Late).
//
// For generated code.
type ScanFunc[T any] func(d *jsonscan.Decoder, at *Path, out *T, defaults bool, late **ToolError) *ToolError

// OnePass returns the validator of a tool whose arguments are an object
// described by obj and read by scan: it decodes raw arguments into a new
// T, checking them in one pass, and returns *T with defaults applied.
// The T and the strings decoded for it share one allocation, which also
// holds the envelope of a Registry's call with them.
//
// For generated code.
func OnePass[T any](obj *Object, scan ScanFunc[T]) Validator {
	return &onePass[T]{obj: obj, scan: scan}
}

// Object is what a generated validator knows of an object type of the
// arguments.
//
// For generated code.
type Object struct {
	// Names are the declared properties, sorted.
	Names []string
	// Required are the required properties in the schema's order: bit i
	// of the mask a scan function passes to Members.End is set when
	// Required[i] was read.
	Required []string
	// Reject makes an undeclared member an error; without it, undeclared
	// members are skipped.
	Reject bool
}

// Members walks the members of an object whose '{' d has read.
func (o *Object) Members(d *jsonscan.Decoder, at *Path) Members {
	return Members{d: d, at: at, obj: o}
}

// Members walks the members of an object for a generated scan function:
//
//	ms := obj.Members(d, at)
//	for ms.Next() {
//		switch string(ms.Key) { ... default: ms.Skip() }
//	}
//	if te := ms.End(seen); te != nil { ... }
//
// For generated code.
type Members struct {
	// Key is the key of the current member, valid until the next read.
	Key []byte

	d          *jsonscan.Decoder
	at         *Path
	obj        *Object
	err        error
	unknown    string
	hasUnknown bool
}

// Next reads the next key, reporting whether there is one.
func (m *Members) Next() bool {
	key, more, err := m.d.NextKey()
	if err != nil {
		m.err = err
		return false
	}
	m.Key = key
	return more
}

// Skip skips the value of a member the object does not declare. When the
// object rejects such members, the first such key in order is reported by
// End, once the rest of the object has been checked.
func (m *Members) Skip() *ToolError {
	if !m.obj.Reject {
		if err := m.d.Skip(); err != nil {
			return ArgSyntax(err)
		}
		return nil
	}
	if !m.hasUnknown || string(m.Key) < m.unknown {
		m.unknown, m.hasUnknown = string(m.Key), true
	}
	if err := m.d.Skip(); err != nil {
		return ArgSyntax(err)
	}
	return nil
}

// End reports what is wrong with the object once its members are read:
// broken JSON, an undeclared member, then the first missing required
// property, whose bits in seen are clear.
func (m *Members) End(seen uint64) *ToolError {
	if m.err != nil {
		return ArgSyntax(m.err)
	}
	if m.hasUnknown {
		return ArgUnknown(m.at.String(), m.unknown, m.obj.Names)
	}
	for i, name := range m.obj.Required {
		if seen&(1<<i) == 0 {
			return ArgMissing(m.at.String(), name, m.obj.Names)
		}
	}
	return nil
}

// StringSchema is what a generated validator checks of a string.
//
// For generated code.
type StringSchema struct {
	// Type is the JSON Schema type as errors word it ("string", "null or
	// string"); "" when the schema gives none, and only Enum is allowed.
	Type string
	// MinLength and MaxLength bound the length in characters; -1 for no
	// bound.
	MinLength, MaxLength int
	// Pattern is the compiled pattern, nil for none. A descriptor of
	// DataPass gives PatternSource instead, which DataPass compiles: a
	// package variable holding a compiled pattern needs init code.
	Pattern       *regexp.Regexp
	PatternSource string
	// Format is an asserted format ("email", "date-time"), or "".
	Format string
	// Enum lists the allowed values; nil allows any.
	Enum []string
	// Allowed is Enum as errors list it.
	Allowed []any
}

func (s *StringSchema) readErr(ptr string, err error) *ToolError {
	if s == nil {
		return ArgRead(ptr, "string", err)
	}
	if s.Type == "" {
		return ArgEnumRead(ptr, err, s.Allowed)
	}
	return ArgRead(ptr, s.Type, err)
}

// read reads a string and checks it.
func (s *StringSchema) read(d *jsonscan.Decoder, p *Path) (string, *ToolError) {
	v, err := d.String()
	if err != nil {
		return "", s.readErr(p.String(), err)
	}
	if s == nil {
		return v, nil
	}
	// In SchemaValidator's order: the enum and the format, which it
	// reports alone, then the length and the pattern.
	if s.Enum != nil && !slices.Contains(s.Enum, v) {
		return "", ArgNotInEnum(p.String(), v, s.Allowed)
	}
	if s.Format != "" && !FormatChecker(s.Format)(v) {
		return "", ArgFormat(p.String(), v, s.Format)
	}
	// A string of n bytes holds ⌈n/4⌉ to n characters: they are counted
	// only when a bound falls in that range.
	if (len(v)+3)/4 < s.MinLength || s.MaxLength >= 0 && len(v) > s.MaxLength {
		if n := utf8.RuneCountInString(v); n < s.MinLength || s.MaxLength >= 0 && n > s.MaxLength {
			return "", ArgLength(p.String(), v, s.MinLength, s.MaxLength)
		}
	}
	if s.Pattern != nil && !s.Pattern.MatchString(v) {
		return "", ArgPattern(p.String(), v, s.Pattern.String())
	}
	return v, nil
}

// onlyEnum reports whether the enum is all there is to check.
func (s *StringSchema) onlyEnum() bool {
	return s != nil && s.Enum != nil && s.MinLength < 0 && s.MaxLength < 0 && s.Pattern == nil && s.PatternSource == "" && s.Format == ""
}

// ReadString reads a string at p into dst, checking it against s (nil for
// a plain string). T is string or the named type of an enum.
//
// For generated code.
func ReadString[T ~string](d *jsonscan.Decoder, p Path, s *StringSchema, dst *T) *ToolError {
	if s.onlyEnum() {
		// Compare the bytes; store the schema's own string.
		b, err := d.StringBytes()
		if err != nil {
			return s.readErr(p.String(), err)
		}
		for _, e := range s.Enum {
			if string(b) == e {
				*dst = T(e)
				return nil
			}
		}
		return ArgNotInEnum(p.String(), string(b), s.Allowed)
	}
	v, te := s.read(d, &p)
	if te != nil {
		return te
	}
	*dst = T(v)
	return nil
}

// ReadStringPtr is ReadString for an optional field: it stores a pointer
// to the value.
//
// For generated code.
func ReadStringPtr[T ~string](d *jsonscan.Decoder, p Path, s *StringSchema, dst **T) *ToolError {
	var v T
	if te := ReadString(d, p, s, &v); te != nil {
		return te
	}
	*dst = &v
	return nil
}

// ReadTime reads a date-time string at p into dst. A string the schema
// allows but the time package does not parse (a leap second) goes to late.
//
// For generated code.
func ReadTime(d *jsonscan.Decoder, p Path, s *StringSchema, dst *time.Time, late **ToolError) *ToolError {
	t, ok, te := readTime(d, &p, s, late)
	store(dst, t, ok)
	return te
}

// ReadTimePtr is ReadTime for an optional field.
//
// For generated code.
func ReadTimePtr(d *jsonscan.Decoder, p Path, s *StringSchema, dst **time.Time, late **ToolError) *ToolError {
	t, ok, te := readTime(d, &p, s, late)
	store(dst, &t, ok)
	return te
}

// readTime reads a date-time; ok is false when there is nothing to store.
func readTime(d *jsonscan.Decoder, p *Path, s *StringSchema, late **ToolError) (t time.Time, ok bool, te *ToolError) {
	v, te := s.read(d, p)
	if te != nil {
		return t, false, te
	}
	if err := t.UnmarshalText([]byte(v)); err != nil {
		Late(late, ArgNotFit(p.String(), v, "time.Time"))
		return t, false, nil
	}
	return t, true, nil
}

// store sets *dst to v when ok: a reader found a value to store.
func store[T any](dst *T, v T, ok bool) {
	if ok {
		*dst = v
	}
}

// ReadBool reads a boolean at p into dst; want is the JSON Schema type as
// errors word it.
//
// For generated code.
func ReadBool(d *jsonscan.Decoder, p Path, want string, dst *bool) *ToolError {
	v, err := d.Bool()
	if err != nil {
		return ArgRead(p.String(), want, err)
	}
	*dst = v
	return nil
}

// ReadBoolPtr is ReadBool for an optional field.
//
// For generated code.
func ReadBoolPtr(d *jsonscan.Decoder, p Path, want string, dst **bool) *ToolError {
	var v bool
	if te := ReadBool(d, p, want, &v); te != nil {
		return te
	}
	*dst = &v
	return nil
}

// NumberSchema is what a generated validator checks of a number.
//
// For generated code.
type NumberSchema struct {
	// Type is the JSON Schema type as errors word it ("integer", "null
	// or number"); "" when the schema gives none, and only Enum is
	// allowed.
	Type     string
	Bounds   *Bounds
	Multiple *Multiple
	// MultipleOf is the multipleOf as written, which DataPass parses into
	// Multiple: a descriptor gives it as data.
	MultipleOf string
	// Const, with HasConst, is the const of a number (not an integer),
	// which a float64 holds exactly; Allowed lists it.
	Const    float64
	HasConst bool
	// Enum lists the allowed integers; nil allows any.
	Enum []int64
	// Allowed is Enum as errors list it.
	Allowed []any
}

func (s *NumberSchema) typ(def string) string {
	if s == nil {
		return def
	}
	return s.Type
}

// ReadInt reads an integer at p into dst, checking it against s (nil for
// a plain integer). An integer that s allows but T cannot hold goes to
// late.
//
// For generated code.
func ReadInt[T ~int64 | ~int32](d *jsonscan.Decoder, p Path, s *NumberSchema, dst *T, late **ToolError) *ToolError {
	n, ok, te := readInt[T](d, &p, s, late, nil)
	store(dst, n, ok)
	return te
}

// ReadIntPtr is ReadInt for an optional field.
//
// For generated code.
func ReadIntPtr[T ~int64 | ~int32](d *jsonscan.Decoder, p Path, s *NumberSchema, dst **T, late **ToolError) *ToolError {
	n, ok, te := readInt[T](d, &p, s, late, nil)
	store(dst, &n, ok)
	return te
}

// readInt reads an integer; ok is false when there is nothing to store.
// With key, it sets *key to the integer's exact value (NumberKey) once the
// schema holds, for uniqueItems.
func readInt[T ~int64 | ~int32](d *jsonscan.Decoder, p *Path, s *NumberSchema, late **ToolError, key *string) (T, bool, *ToolError) {
	n, err := d.Int64()
	if err != nil {
		if s == nil {
			if te := ArgInt(p.String(), "integer", err, nil, nil, late); te != nil || key == nil {
				return 0, false, te
			}
			*key = OverflowKey(err)
			return 0, false, nil
		}
		if s.Type == "" {
			return 0, false, ArgEnumRead(p.String(), err, s.Allowed)
		}
		b, m := s.Bounds, s.Multiple
		if s.Enum != nil {
			b, m = nil, nil // the enum is checked first, as SchemaValidator does
		}
		if te := ArgInt(p.String(), s.Type, err, b, m, late); te != nil {
			return 0, false, te
		}
		if s.Enum != nil {
			// No allowed value is beyond int64.
			return 0, false, ArgNotInEnum(p.String(), OverflowNumber(err), s.Allowed)
		}
		if key != nil {
			*key = OverflowKey(err)
		}
		return 0, false, nil
	}
	if s != nil {
		// In SchemaValidator's order: the enum, then the bounds; all
		// exact.
		if s.Enum != nil && !slices.Contains(s.Enum, n) {
			return 0, false, ArgNotInEnum(p.String(), n, s.Allowed)
		}
		if s.Bounds != nil && !s.Bounds.CheckInt(n) {
			return 0, false, ArgIntOutOfRange(p.String(), n, *s.Bounds)
		}
		if s.Multiple != nil && !s.Multiple.Int(n) {
			return 0, false, ArgIntNotMultiple(p.String(), n, s.Multiple)
		}
	}
	if key != nil {
		*key = IntKey(n)
	}
	if int64(T(n)) != n {
		Late(late, ArgNotFit(p.String(), n, "int32"))
		return 0, false, nil
	}
	return T(n), true, nil
}

// ReadFloat reads a number at p into dst, checking it against s (nil for
// a plain number). A number that s allows but a float32 cannot hold goes
// to late.
//
// For generated code.
func ReadFloat[T ~float64 | ~float32](d *jsonscan.Decoder, p Path, s *NumberSchema, dst *T, late **ToolError) *ToolError {
	f, ok, te := readFloat[T](d, &p, s, late, nil)
	store(dst, f, ok)
	return te
}

// ReadFloatPtr is ReadFloat for an optional field.
//
// For generated code.
func ReadFloatPtr[T ~float64 | ~float32](d *jsonscan.Decoder, p Path, s *NumberSchema, dst **T, late **ToolError) *ToolError {
	f, ok, te := readFloat[T](d, &p, s, late, nil)
	store(dst, &f, ok)
	return te
}

// readFloat reads a number; ok is false when there is nothing to store.
// With key, it sets *key to the number's exact value (NumberKey) once the
// schema holds, for uniqueItems.
func readFloat[T ~float64 | ~float32](d *jsonscan.Decoder, p *Path, s *NumberSchema, late **ToolError, key *string) (T, bool, *ToolError) {
	num, err := d.Number()
	if err != nil {
		if s != nil && s.Type == "" {
			return 0, false, ArgEnumRead(p.String(), err, s.Allowed)
		}
		return 0, false, ArgRead(p.String(), s.typ("number"), err)
	}
	f, ferr := strconv.ParseFloat(string(num), 64) // ±Inf beyond float64
	if s != nil && s.HasConst && !NumberIs(num, f, s.Const) {
		return 0, false, ArgNotInEnum(p.String(), numberValue(string(num)), s.Allowed)
	}
	if s != nil {
		// As written, exactly: f decides unless it is at a bound.
		if s.Bounds != nil && !s.Bounds.inside(f) && !s.Bounds.CheckNumber(string(num), f) {
			return 0, false, ArgNumberOutOfRange(p.String(), string(num), f, *s.Bounds)
		}
		if s.Multiple != nil && !s.Multiple.NumberMultiple(string(num)) {
			v := numberValue(string(num))
			return 0, false, argNotMultiple(p.String(), quoteValue(v), v, s.Multiple)
		}
	}
	if key != nil {
		*key = NumberKey(num)
	}
	is32 := float64(T(float32Probe)) != float32Probe
	if ferr != nil {
		goType := "float64"
		if is32 {
			goType = "float32"
		}
		Late(late, ArgNotFit(p.String(), numberValue(string(num)), goType))
		return 0, false, nil
	}
	if is32 {
		// T is a float32: convert as encoding/json would.
		v, ok := Float32(f)
		if !ok {
			Late(late, ArgNotFit(p.String(), numberValue(string(num)), "float32"))
			return 0, false, nil
		}
		return T(v), true, nil
	}
	return T(f), true, nil
}

// float32Probe is a float64 that a float32 does not hold exactly.
var float32Probe = 1 + math.Pow(2, -30)

// ReadObject reads an object at p into dst with scan, the generated scan
// function of T; want is its JSON Schema type as errors word it.
//
// For generated code.
func ReadObject[T any](d *jsonscan.Decoder, p Path, want string, dst *T, defaults bool, late **ToolError, scan ScanFunc[T]) *ToolError {
	if err := d.BeginObject(); err != nil {
		return ArgRead(p.String(), want, err)
	}
	return scan(d, &p, dst, defaults, late)
}

// ReadObjectPtr is ReadObject for an optional field.
//
// For generated code.
func ReadObjectPtr[T any](d *jsonscan.Decoder, p Path, want string, dst **T, defaults bool, late **ToolError, scan ScanFunc[T]) *ToolError {
	v := new(T)
	*dst = v
	return ReadObject(d, p, want, v, defaults, late, scan)
}

// ArraySchema is what a generated validator checks of an array itself;
// its items have schemas of their own.
//
// For generated code.
type ArraySchema struct {
	// Type is the JSON Schema type as errors word it ("array", "null or
	// array").
	Type string
	// MinItems and MaxItems bound the number of items; -1 for no bound.
	MinItems, MaxItems int
}

// ReadList reads an array at p into dst, checking it against s (nil for
// an array without bounds) and each item with item, which reads the value
// at its path into v.
//
// For generated code.
func ReadList[T any](d *jsonscan.Decoder, p Path, s *ArraySchema, dst *[]T, item func(d *jsonscan.Decoder, p Path, v *T) *ToolError) *ToolError {
	if err := d.BeginArray(); err != nil {
		want := "array"
		if s != nil {
			want = s.Type
		}
		return ArgRead(p.String(), want, err)
	}
	list := []T{}
	for i := 0; ; i++ {
		more, err := d.NextElem()
		if err != nil {
			return ArgSyntax(err)
		}
		if !more {
			break
		}
		var v T
		if te := item(d, p.Index(i), &v); te != nil {
			return te
		}
		list = append(list, v)
	}
	if s != nil && (s.MinItems >= 0 && len(list) < s.MinItems || s.MaxItems >= 0 && len(list) > s.MaxItems) {
		return ArgItems(p.String(), len(list), s.MinItems, s.MaxItems)
	}
	*dst = list
	return nil
}
