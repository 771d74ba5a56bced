package gen

import (
	"encoding/json"
	"fmt"
	"math/bits"
	"regexp"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/toolcat/toolcat/runtime"
)

// The literal printer of validators: the Go literals of the runtime's
// descriptor types (runtime.StructDesc, FieldDesc, Object, Bounds,
// NumberSchema, StringSchema, ArraySchema, the []any of allowed values)
// and of code mode's other package variables. Data mode's descriptors
// are written as text, already in gofmt's layout (see preformatDescs);
// code mode's package variables go into the file as jennifer code, with
// the same text between the names of the packages they use, which
// jennifer imports.

// Code mode's package variables that are calls, by the argument written.
type (
	newMultiple   string // runtime.NewMultiple(multipleOf)
	formatChecker string // runtime.FormatChecker(format)
	mustCompile   string // regexp.MustCompile(pattern)
	rawBytes      []byte // []byte(`json`)
)

// emptyPattern is the StringSchema.Pattern of a schema whose pattern is
// "": it tells the printer that the schema gives one, as the empty
// PatternSource cannot.
var emptyPattern = regexp.MustCompile("")

// litWriter writes literals.
type litWriter struct {
	buf []byte
	// code, when not nil, receives the literal as jennifer code (code
	// mode): the text between qualified names as operators. Code mode's
	// literals compile patterns and multipleOf in place
	// (regexp.MustCompile, runtime.NewMultiple); data mode's give their
	// source, which runtime.DataPass compiles.
	code *jen.Statement
	// descs names the descriptors that a FieldDesc's Struct points to.
	descs map[*runtime.StructDesc]string
}

// litCode is the jennifer code of a package variable's value.
func litCode(v any) jen.Code {
	w := &litWriter{code: &jen.Statement{}}
	w.value(v)
	w.flush()
	return w.code
}

func (w *litWriter) raw(s string) { w.buf = append(w.buf, s...) }

// qual writes the name name of the package path.
func (w *litWriter) qual(path, name string) {
	if w.code == nil {
		w.raw(path[strings.LastIndexByte(path, '/')+1:])
		w.raw(".")
		w.raw(name)
		return
	}
	w.flush()
	w.code.Qual(path, name)
}

// flush moves the text written to code.
func (w *litWriter) flush() {
	if len(w.buf) > 0 {
		w.code.Op(string(w.buf))
		w.buf = w.buf[:0]
	}
}

// lit writes a constant.
func (w *litWriter) lit(v any) { w.raw(dlit(v)) }

// key starts the element key of a composite literal, n elements in.
func (w *litWriter) key(n *int, key string) {
	if *n > 0 {
		w.raw(", ")
	}
	*n++
	w.raw(key)
	w.raw(": ")
}

// value writes the literal of a package variable's value.
func (w *litWriter) value(v any) {
	switch v := v.(type) {
	case runtime.Object:
		w.object(&v)
	case runtime.Bounds:
		w.bounds(&v)
	case runtime.NumberSchema:
		w.number(&v)
	case runtime.StringSchema:
		w.stringSchema(&v)
	case runtime.ArraySchema:
		w.array(&v)
	case []any:
		w.anys(v)
	case newMultiple:
		w.call(runtimePkg, "NewMultiple", string(v))
	case formatChecker:
		w.call(runtimePkg, "FormatChecker", string(v))
	case mustCompile:
		w.call("regexp", "MustCompile", string(v))
	case rawBytes:
		w.raw("[]byte(")
		if s := string(v); strings.ContainsAny(s, "`\r") {
			w.lit(s)
		} else {
			w.raw("`" + s + "`")
		}
		w.raw(")")
	default:
		panic(fmt.Sprintf("no literal of %T", v))
	}
}

// call writes the call of a function of path with one string argument.
func (w *litWriter) call(path, name, arg string) {
	w.qual(path, name)
	w.raw("(")
	w.lit(arg)
	w.raw(")")
}

func (w *litWriter) strings(vs []string) {
	w.raw("[]string{")
	for i, s := range vs {
		if i > 0 {
			w.raw(", ")
		}
		w.lit(s)
	}
	w.raw("}")
}

// anys writes allowed values: strings, numbers as written, booleans and
// nil (for the others).
func (w *litWriter) anys(vs []any) {
	w.raw("[]any{")
	for i, v := range vs {
		if i > 0 {
			w.raw(", ")
		}
		switch v := v.(type) {
		case json.Number:
			w.qual("encoding/json", "Number")
			w.raw("(")
			w.lit(string(v))
			w.raw(")")
		case nil:
			w.raw("nil")
		default:
			w.lit(v)
		}
	}
	w.raw("}")
}

func (w *litWriter) object(o *runtime.Object) {
	w.qual(runtimePkg, "Object")
	w.raw("{")
	n := 0
	w.key(&n, "Names")
	w.strings(o.Names)
	if o.Required != nil {
		w.key(&n, "Required")
		w.strings(o.Required)
	}
	if o.Reject {
		w.key(&n, "Reject")
		w.lit(true)
	}
	w.raw("}")
}

func (w *litWriter) bounds(b *runtime.Bounds) {
	w.qual(runtimePkg, "Bounds")
	w.raw("{")
	n := 0
	if b.HasMin {
		w.key(&n, "Min")
		w.lit(b.Min)
		w.key(&n, "HasMin")
		w.lit(true)
		if b.ExclusiveMin {
			w.key(&n, "ExclusiveMin")
			w.lit(true)
		}
	}
	if b.HasMax {
		w.key(&n, "Max")
		w.lit(b.Max)
		w.key(&n, "HasMax")
		w.lit(true)
		if b.ExclusiveMax {
			w.key(&n, "ExclusiveMax")
			w.lit(true)
		}
	}
	w.raw("}")
}

func (w *litWriter) number(s *runtime.NumberSchema) {
	w.qual(runtimePkg, "NumberSchema")
	w.raw("{")
	n := 0
	w.key(&n, "Type")
	w.lit(s.Type)
	if s.Bounds != nil {
		w.key(&n, "Bounds")
		w.raw("&")
		w.bounds(s.Bounds)
	}
	if s.MultipleOf != "" {
		if w.code != nil {
			w.key(&n, "Multiple")
			w.call(runtimePkg, "NewMultiple", s.MultipleOf)
		} else {
			w.key(&n, "MultipleOf")
			w.lit(s.MultipleOf)
		}
	}
	if s.HasConst {
		w.key(&n, "Const")
		w.lit(s.Const)
		w.key(&n, "HasConst")
		w.lit(true)
	}
	if s.Enum != nil {
		w.key(&n, "Enum")
		w.raw("[]int64{")
		for i, e := range s.Enum {
			if i > 0 {
				w.raw(", ")
			}
			w.lit(e)
		}
		w.raw("}")
	}
	if s.Allowed != nil {
		w.key(&n, "Allowed")
		w.anys(s.Allowed)
	}
	w.raw("}")
}

func (w *litWriter) stringSchema(s *runtime.StringSchema) {
	w.qual(runtimePkg, "StringSchema")
	w.raw("{")
	n := 0
	w.key(&n, "Type")
	w.lit(s.Type)
	w.key(&n, "MinLength")
	w.lit(s.MinLength)
	w.key(&n, "MaxLength")
	w.lit(s.MaxLength)
	if s.PatternSource != "" || s.Pattern != nil {
		if w.code != nil {
			w.key(&n, "Pattern")
			w.call("regexp", "MustCompile", s.PatternSource)
		} else {
			w.key(&n, "PatternSource")
			w.lit(s.PatternSource)
		}
	}
	if s.Format != "" {
		w.key(&n, "Format")
		w.lit(s.Format)
	}
	if s.Enum != nil {
		w.key(&n, "Enum")
		w.strings(s.Enum)
	}
	if s.Allowed != nil {
		w.key(&n, "Allowed")
		w.anys(s.Allowed)
	}
	w.raw("}")
}

func (w *litWriter) array(a *runtime.ArraySchema) {
	w.qual(runtimePkg, "ArraySchema")
	w.raw("{")
	n := 0
	w.key(&n, "Type")
	w.lit(a.Type)
	w.key(&n, "MinItems")
	w.lit(a.MinItems)
	w.key(&n, "MaxItems")
	w.lit(a.MaxItems)
	w.raw("}")
}

// structDesc writes the braces and elements of a StructDesc: on one line
// but its fields, one a line.
func (w *litWriter) structDesc(d *runtime.StructDesc) {
	w.raw("{Object: ")
	w.object(&d.Object)
	if len(d.Fields) > 0 {
		w.raw(", Fields: []")
		w.qual(runtimePkg, "FieldDesc")
		w.raw("{\n\t")
		for i := range d.Fields {
			if i > 0 {
				w.raw(",\n\t")
			}
			w.fieldDesc(&d.Fields[i], true)
		}
		w.raw("}")
	}
	w.raw("}")
}

// kindNames are the names of the runtime's ValueKinds.
var kindNames = map[runtime.ValueKind]string{
	runtime.KindString: "KindString", runtime.KindTime: "KindTime", runtime.KindInt: "KindInt",
	runtime.KindFloat: "KindFloat", runtime.KindBool: "KindBool", runtime.KindStruct: "KindStruct",
	runtime.KindList: "KindList", runtime.KindMap: "KindMap", runtime.KindAny: "KindAny",
}

// fieldDesc writes the braces and elements of a FieldDesc: a property's
// (prop), with its key and field, or an item's.
func (w *litWriter) fieldDesc(f *runtime.FieldDesc, prop bool) {
	w.raw("{")
	n := 0
	if prop {
		w.key(&n, "Key")
		w.lit(f.Key)
		if f.Field != 0 {
			w.key(&n, "Field")
			w.lit(f.Field)
		}
	}
	w.key(&n, "Kind")
	w.qual(runtimePkg, kindNames[f.Kind])
	if f.Type != "" {
		w.key(&n, "Type")
		w.lit(f.Type)
	}
	if f.Const != nil {
		w.key(&n, "Const")
		w.anys(f.Const)
	}
	if f.Unique {
		w.key(&n, "Unique")
		w.lit(true)
	}
	if f.Array != nil {
		w.key(&n, "Array")
		w.raw("&")
		w.array(f.Array)
	}
	if f.Item != nil {
		w.key(&n, "Item")
		w.raw("&")
		w.qual(runtimePkg, "FieldDesc")
		w.fieldDesc(f.Item, false)
	}
	if f.Number != nil {
		w.key(&n, "Number")
		w.raw("&")
		w.number(f.Number)
	}
	if f.String != nil {
		w.key(&n, "String")
		w.raw("&")
		w.stringSchema(f.String)
	}
	if f.Struct != nil {
		w.key(&n, "Struct")
		w.raw("&")
		w.raw(w.descs[f.Struct])
	}
	if f.Defaults {
		w.key(&n, "Defaults")
		w.lit(true)
	}
	if f.Nullable {
		w.key(&n, "Nullable")
		w.lit(true)
	}
	if f.NullRefused != nil {
		w.key(&n, "NullRefused")
		w.anys(f.NullRefused)
	}
	if f.Seen != 0 {
		w.key(&n, "Seen")
		w.raw("1 << ")
		w.lit(bits.TrailingZeros64(f.Seen))
	}
	if f.Default != "" {
		w.key(&n, "Default")
		w.lit(f.Default)
	}
	w.raw("}")
}

// dlit is the Go literal of v, as jen.Lit writes it.
func dlit(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case int:
		return strconv.Itoa(v)
	case int64:
		return "int64(" + strconv.FormatInt(v, 10) + ")"
	case float64:
		out := fmt.Sprintf("%#v", v)
		if !strings.Contains(out, ".") && !strings.Contains(out, "e") {
			out += ".0"
		}
		return out
	case bool:
		return strconv.FormatBool(v)
	}
	panic(fmt.Sprintf("dlit of %T", v))
}
