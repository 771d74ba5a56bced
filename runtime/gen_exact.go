package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/toolcat/toolcat/internal/jsonptr"
	"github.com/toolcat/toolcat/runtime/jsonscan"
)

// ObjectWriter writes a JSON object member by member. Generated code uses it
// in the MarshalJSON method of a struct whose member names a struct tag
// cannot express ("-", "", "a,b", names with quotes or backslashes), so
// that every name is written exactly as the schema spells it. Values are
// encoded as encoding/json encodes them, without escaping '<', '>' and
// '&': json.Marshal escapes them in the whole output, an Encoder with
// SetEscapeHTML(false) does not, as for any other struct.
//
// For generated code.
type ObjectWriter struct {
	buf bytes.Buffer
	err error
}

// Add writes the member name with the value v. The generated method
// leaves out an optional member as omitempty would.
func (w *ObjectWriter) Add(name string, v any) {
	if w.err != nil {
		return
	}
	if w.buf.Len() == 0 {
		w.buf.WriteByte('{')
	} else {
		w.buf.WriteByte(',')
	}
	enc := json.NewEncoder(&w.buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(name); err != nil {
		w.err = err
		return
	}
	trimNewline(&w.buf)
	w.buf.WriteByte(':')
	if err := enc.Encode(v); err != nil {
		w.err = fmt.Errorf("member %q: %w", name, err)
		return
	}
	trimNewline(&w.buf)
}

// JSON returns the object written.
func (w *ObjectWriter) JSON() ([]byte, error) {
	if w.err != nil {
		return nil, w.err
	}
	if w.buf.Len() == 0 {
		return []byte("{}"), nil
	}
	w.buf.WriteByte('}')
	return w.buf.Bytes(), nil
}

func trimNewline(b *bytes.Buffer) {
	if n := b.Len(); n > 0 && b.Bytes()[n-1] == '\n' {
		b.Truncate(n - 1)
	}
}

// DecodeMembers decodes the JSON object data into the fields that field
// returns by member name (nil: none), for the UnmarshalJSON method
// generated beside a MarshalJSON that uses an ObjectWriter. It decodes as encoding/json decodes a struct (null changes
// nothing, members without a field are skipped, a later duplicate wins)
// but matches names exactly, where encoding/json also accepts a name that
// differs in case.
//
// For generated code.
func DecodeMembers(data []byte, field func(name string) any) error {
	var d jsonscan.Decoder
	d.Reset(data)
	if d.Peek() == jsonscan.Null {
		if err := d.Null(); err != nil {
			return err
		}
		return d.End()
	}
	if err := d.BeginObject(); err != nil {
		return err
	}
	for {
		key, more, err := d.NextKey()
		if err != nil {
			return err
		}
		if !more {
			break
		}
		name := string(key)
		target := field(name)
		if target == nil {
			if err := d.Skip(); err != nil {
				return err
			}
			continue
		}
		raw, err := d.Raw()
		if err != nil {
			return err
		}
		if err := UnmarshalExact(raw, target); err != nil {
			var mf *misfitErr
			if errors.As(err, &mf) {
				return &misfitErr{fitMisfit{jsonptr.Join(name) + mf.ptr, mf.got, mf.goType}, mf.n}
			}
			return fmt.Errorf("member %q: %w", name, err)
		}
	}
	return d.End()
}

// exactMembers removes from doc, a value encoding/json decoded into any,
// the object members that no field of the Go type t names exactly, where
// t is a type toolcat generates (structs with json tags, pointers, slices
// and maps of them). json.Unmarshal of doc into a t then fills each field
// from its own member only: on its own it also takes a member whose name
// differs in case, which a schema that allows other members lets through
// unchecked ({"LIMIT": 1000} beside a property limit with a maximum of
// 10). Types with their own UnmarshalJSON are left to it.
func exactMembers(doc any, t reflect.Type) {
	if t.Kind() != reflect.Interface && reflect.PointerTo(t).Implements(unmarshalerType) {
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		exactMembers(doc, t.Elem())
	case reflect.Slice, reflect.Array:
		if a, ok := doc.([]any); ok {
			for _, e := range a {
				exactMembers(e, t.Elem())
			}
		}
	case reflect.Map:
		if m, ok := doc.(map[string]any); ok {
			for _, e := range m {
				exactMembers(e, t.Elem())
			}
		}
	case reflect.Struct:
		m, ok := doc.(map[string]any)
		if !ok {
			return
		}
		fields := jsonFields(t)
		for k, v := range m {
			ft, ok := fields[k]
			if !ok {
				delete(m, k)
				continue
			}
			exactMembers(v, ft)
		}
	}
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// UnmarshalExact is json.Unmarshal(data, v) for v a pointer to a type
// toolcat generates, but with names matched exactly (see exactMembers) and
// numbers decoded exactly (an integer written 3.0 or 1e3 fills an int64,
// without passing through a float64):
// the decoding of generated types from JSON that the runtime and
// generated code do goes through it or exactMembers.
//
// For generated code.
func UnmarshalExact(data []byte, v any) error {
	t := reflect.TypeOf(v)
	if t == nil || t.Kind() != reflect.Pointer {
		return json.Unmarshal(data, v)
	}
	if !foldable(t.Elem()) && !bytes.ContainsAny(data, ".eE") {
		// No member names to match, no number but in its digits: the
		// exact path only words an error.
		if err := json.Unmarshal(data, v); err == nil {
			return nil
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return err
	}
	if dec.More() {
		return json.Unmarshal(data, v) // its error for trailing data
	}
	exactMembers(doc, t.Elem())
	if misfits := fitNumbers(&doc, t.Elem(), nil, nil); len(misfits) > 0 {
		return &misfitErr{firstMisfit(misfits), len(misfits)}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// foldableTypes caches foldable.
var foldableTypes sync.Map // reflect.Type → bool

// foldable reports whether json.Unmarshal into t may match a member name
// in another case: whether t holds a struct decoded by its tags.
func foldable(t reflect.Type) bool {
	if f, ok := foldableTypes.Load(t); ok {
		return f.(bool)
	}
	f := holdsTaggedStruct(t, map[reflect.Type]bool{})
	foldableTypes.Store(t, f)
	return f
}

func holdsTaggedStruct(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	if t.Kind() != reflect.Interface && reflect.PointerTo(t).Implements(unmarshalerType) {
		return false
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return holdsTaggedStruct(t.Elem(), seen)
	case reflect.Struct:
		return true
	}
	return false
}

// fieldsByType caches jsonFields.
var fieldsByType sync.Map // reflect.Type → map[string]reflect.Type

// jsonFields maps the JSON names of a struct's fields, as encoding/json
// reads their tags, to the fields' types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	if f, ok := fieldsByType.Load(t); ok {
		return f.(map[string]reflect.Type)
	}
	fields := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		fields[name] = f.Type
	}
	fieldsByType.Store(t, fields)
	return fields
}
