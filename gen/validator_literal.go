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

// elem writes the element key: v of a composite literal, v a constant.
func (w *litWriter) elem(n *int, key string, v any) {
	w.key(n, key)
	w.lit(v)
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

// list writes the slice of constants vs, of type typ.
func list[T any](w *litWriter, typ string, vs []T) {
	w.raw(typ + "{")
	for i, v := range vs {
		if i > 0 {
			w.raw(", ")
		}
		w.lit(v)
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
	list(w, "[]string", o.Names)
	if o.Required != nil {
		w.key(&n, "Required")
		list(w, "[]string", o.Required)
	}
	if o.Reject {
		w.elem(&n, "Reject", true)
	}
	w.raw("}")
}

func (w *litWriter) bounds(b *runtime.Bounds) {
	w.qual(runtimePkg, "Bounds")
	w.raw("{")
	n := 0
	if b.HasMin {
		w.elem(&n, "Min", b.Min)
		w.elem(&n, "HasMin", true)
		if b.ExclusiveMin {
			w.elem(&n, "ExclusiveMin", true)
		}
	}
	if b.HasMax {
		w.elem(&n, "Max", b.Max)
		w.elem(&n, "HasMax", true)
		if b.ExclusiveMax {
			w.elem(&n, "ExclusiveMax", true)
		}
	}
	w.raw("}")
}

func (w *litWriter) number(s *runtime.NumberSchema) {
	w.qual(runtimePkg, "NumberSchema")
	w.raw("{")
	n := 0
	w.elem(&n, "Type", s.Type)
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
			w.elem(&n, "MultipleOf", s.MultipleOf)
		}
	}
	if s.HasConst {
		w.elem(&n, "Const", s.Const)
		w.elem(&n, "HasConst", true)
	}
	if s.Enum != nil {
		w.key(&n, "Enum")
		list(w, "[]int64", s.Enum)
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
	w.elem(&n, "Type", s.Type)
	w.elem(&n, "MinLength", s.MinLength)
	w.elem(&n, "MaxLength", s.MaxLength)
	if s.PatternSource != "" || s.Pattern != nil {
		if w.code != nil {
			w.key(&n, "Pattern")
			w.call("regexp", "MustCompile", s.PatternSource)
		} else {
			w.elem(&n, "PatternSource", s.PatternSource)
		}
	}
	if s.Format != "" {
		w.elem(&n, "Format", s.Format)
	}
	if s.Enum != nil {
		w.key(&n, "Enum")
		list(w, "[]string", s.Enum)
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
	w.elem(&n, "Type", a.Type)
	w.elem(&n, "MinItems", a.MinItems)
	w.elem(&n, "MaxItems", a.MaxItems)
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
		w.elem(&n, "Key", f.Key)
		if f.Field != 0 {
			w.elem(&n, "Field", f.Field)
		}
	}
	w.key(&n, "Kind")
	w.qual(runtimePkg, kindNames[f.Kind])
	if f.Type != "" {
		w.elem(&n, "Type", f.Type)
	}
	if f.Const != nil {
		w.key(&n, "Const")
		w.anys(f.Const)
	}
	if f.Unique {
		w.elem(&n, "Unique", true)
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
		w.elem(&n, "Defaults", true)
	}
	if f.Nullable {
		w.elem(&n, "Nullable", true)
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
		w.elem(&n, "Default", f.Default)
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
