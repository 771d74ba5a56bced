package gen

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/dave/jennifer/jen"
	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/runtime"
)

// The data-mode validator of a tool's arguments: instead of scan
// functions and package variables, static runtime.StructDescs that
// runtime.DataPass reads when the registry is built: one for the
// arguments, and one package variable for each object nested in them,
// which the field that holds it points to. (Written inline, the nested
// literals would cost gofmt a pass over each for every level of nesting
// above it.) It covers objects, strings, enums, date-times, numbers,
// booleans, arrays and maps of those, nullable values, consts and
// defaults. A tool with a shape it does not cover keeps its one-pass
// code. The descriptors are the validator's model (see vModel) as
// runtime values: the literal printer (see litWriter) writes them, and
// runtime.DataPass checks them when the package is generated, so that a
// descriptor the runtime would refuse fails generation rather than the
// program that registers the tool.

// ValidatorMode chooses how generated code validates arguments.
type ValidatorMode int

const (
	// ValidatorsAuto is ValidatorsData for a catalog of more than
	// AutoDataTools tools, ValidatorsCode otherwise.
	ValidatorsAuto ValidatorMode = iota
	// ValidatorsCode generates a one-pass validator as Go code per tool:
	// the fastest to run, the slowest to compile.
	ValidatorsCode
	// ValidatorsData generates a static descriptor per tool, which
	// runtime.DataPass reads: much faster to compile, a little slower to
	// run. Tools whose schema it does not cover keep their code.
	ValidatorsData
)

// AutoDataTools is the number of tools above which ValidatorsAuto picks
// ValidatorsData.
const AutoDataTools = 300

// ParseValidatorMode parses "auto", "code" or "data".
func ParseValidatorMode(s string) (ValidatorMode, error) {
	switch s {
	case "auto", "":
		return ValidatorsAuto, nil
	case "code":
		return ValidatorsCode, nil
	case "data":
		return ValidatorsData, nil
	}
	return 0, fmt.Errorf("unknown validator mode %q: use auto, code or data", s)
}

func (v ValidatorMode) String() string {
	switch v {
	case ValidatorsCode:
		return "code"
	case ValidatorsData:
		return "data"
	}
	return "auto"
}

// WithValidators chooses how the generated validators check arguments
// (ValidatorsAuto by default).
func WithValidators(mode ValidatorMode) Option {
	return func(m *model) { m.validators = mode }
}

// Resolve returns the mode a catalog of n tools gets: ValidatorsAuto
// becomes ValidatorsData or ValidatorsCode. A catalog split into packages
// resolves the mode once for the whole catalog, so that every package of
// it is compiled alike.
func (v ValidatorMode) Resolve(n int) ValidatorMode {
	if v != ValidatorsAuto {
		return v
	}
	if n > AutoDataTools {
		return ValidatorsData
	}
	return ValidatorsCode
}

// dataMode reports whether the tools of cat get data-mode validators
// under mode.
func dataMode(mode ValidatorMode, cat *catalog.Catalog) bool {
	return mode.Resolve(len(cat.Tools)) == ValidatorsData
}

// vDesc is one package variable of a data-mode validator: the StructDesc
// of an object, for one value that holds it.
type vDesc struct {
	name string
	obj  *vObject
	sd   runtime.StructDesc
}

// planData makes m's descriptors, asking for their names, and reports
// whether they cover its schema; when they do not, m is left as it was.
func (m *vModel) planData() bool {
	p := &dataPlan{m: &vModel{args: m.args}, visiting: map[*goType]bool{}}
	if _, ok := p.desc(m.args); !ok {
		return false
	}
	m.data, m.descs, m.wants, m.slots = true, p.m.descs, p.m.wants, p.m.slots
	return true
}

// dataPlan makes the descriptors of one validator.
type dataPlan struct {
	m *vModel
	// visiting are the struct types being described: a type inside
	// itself is not covered.
	visiting map[*goType]bool
}

// desc makes the descriptor of o, a package variable of its own, or
// reports that it is not covered.
func (p *dataPlan) desc(o *vObject) (*vDesc, bool) {
	d := &vDesc{obj: o}
	p.m.ask(lowerIdent(o.typ.Name+"Desc"), &d.name)
	p.m.descs = append(p.m.descs, d)
	if p.visiting[o.typ] || o.typ.Recursive || o.bits > 64 {
		return nil, false
	}
	p.visiting[o.typ] = true
	defer delete(p.visiting, o.typ)
	d.sd.Object = o.obj
	for _, f := range o.fields {
		fd, ok := p.full(f.val)
		if !ok {
			return nil, false
		}
		fd.Key, fd.Field = f.fd.JSON, f.index
		if f.seen >= 0 {
			fd.Seen = 1 << f.seen
		}
		if f.fd.Default != nil {
			if fd.Default, ok = dataDefault(f.fd); !ok {
				return nil, false
			}
		}
		d.sd.Fields = append(d.sd.Fields, fd)
	}
	return d, true
}

// full returns the FieldDesc of a value as written: its nullable wrapper
// noted.
func (p *dataPlan) full(v *vValue) (runtime.FieldDesc, bool) {
	if v.s == nil {
		// No schema: any value.
		return runtime.FieldDesc{Kind: runtime.KindAny}, v.typ.Kind == kAny && !v.nullable
	}
	fd, ok := p.value(v)
	if !ok || !v.nullable {
		return fd, ok
	}
	fd.Nullable = true
	if v.refuseNull {
		fd.NullRefused = v.allowed
	}
	return fd, true
}

// value returns the FieldDesc of a value under its resolved schema, or
// false when the descriptors do not cover it.
func (p *dataPlan) value(v *vValue) (runtime.FieldDesc, bool) {
	var fd runtime.FieldDesc
	t := v.typ
	switch t.Kind {
	case kStruct:
		if !v.typed || t.Recursive {
			return fd, false
		}
		d, ok := p.desc(v.obj)
		if !ok {
			return fd, false
		}
		fd.Kind, fd.Struct, fd.Defaults = runtime.KindStruct, &d.sd, v.defaults
		if v.want != "object" {
			fd.Type = v.want
		}
		return fd, true
	case kSlice:
		if !v.typed {
			return fd, false
		}
		item, ok := p.full(v.item)
		if !ok {
			return fd, false
		}
		fd.Kind = runtime.KindList
		if v.unique {
			switch t.Elem.Kind {
			case kBool, kInt, kFloat, kString, kEnum:
			default:
				return fd, false
			}
			if v.item.nullable {
				return fd, false
			}
			fd.Unique = true
		}
		fd.Array, fd.Item = v.arraySchema(), &item
		return fd, true
	case kMap:
		if !v.typed {
			return fd, false
		}
		fd.Kind = runtime.KindMap
		if v.want != "object" {
			fd.Type = v.want
		}
		if v.closed {
			return fd, true // no Item: no member is allowed
		}
		item, ok := p.full(v.item)
		if !ok {
			return fd, false
		}
		fd.Item = &item
		return fd, true
	case kAny:
		fd.Kind = runtime.KindAny
		return fd, true
	}
	// A const is an enum of one value, or with an enum beside it, of the
	// values both allow: either way, a value outside is refused listing
	// the enum's values, or the const.
	switch t.Kind {
	case kBool:
		fd.Kind = runtime.KindBool
		switch {
		case v.hasConst:
			// Without a type, a value that is no boolean is refused
			// listing the const.
			if v.typed {
				fd.Type = v.want
			}
			fd.Const = v.allowed
		case v.want != "boolean":
			fd.Type = v.want
		}
	case kInt:
		fd.Kind, fd.Number = runtime.KindInt, v.numberSchema()
	case kFloat:
		fd.Kind, fd.Number = runtime.KindFloat, v.numberSchema()
	case kString, kEnum:
		fd.Kind, fd.String = runtime.KindString, v.stringSchema()
	case kTime:
		if v.hasConst {
			return fd, false
		}
		fd.Kind, fd.String = runtime.KindTime, v.stringSchema()
	default:
		return fd, false
	}
	return fd, true
}

// dataDefault is the JSON of a field's default, as DataPass decodes it.
func dataDefault(fd *goField) (string, bool) {
	d := fd.Default
	switch fd.Type.Kind {
	case kBool:
		if d.Kind != catalog.Bool {
			return "", false
		}
		if d.Bool {
			return "true", true
		}
		return "false", true
	case kString, kEnum:
		if d.Kind != catalog.String {
			return "", false
		}
		b, _ := json.Marshal(d.Str)
		return string(b), true
	case kInt, kFloat:
		if d.Kind != catalog.Number {
			return "", false
		}
		return d.Num, true
	}
	return string(defaultJSON(d)), true
}

// genDataValidator emits the validator of a tool whose descriptors m
// holds, and returns its descriptors for genDescs, checked as
// runtime.DataPass checks them.
func genDataValidator(f *jen.File, t *toolModel, m *vModel) ([]namedDesc, error) {
	if err := checkDescs(t, m); err != nil {
		return nil, err
	}
	top := m.descs[0].name
	if !textFuncs() { // else genToolFile writes it (dataValidatorText)
		f.Comment(t.validatorFn + " returns the validator of " + t.t.Name + "'s arguments:")
		f.Comment("runtime.DataPassFor reads them in one pass, as " + top + " describes.")
		f.Func().Id(t.validatorFn).Params(jen.Op("*").Qual(runtimePkg, "Meta")).Params(jen.Qual(runtimePkg, "Validator"), jen.Error()).Block(
			jen.Return(jen.Qual(runtimePkg, "DataPassFor").Call(jen.Parens(jen.Op("*").Id(t.args.Name)).Call(jen.Nil()), jen.Op("&").Id(top))),
		)
	}
	names := make(map[*runtime.StructDesc]string, len(m.descs))
	for _, d := range m.descs {
		names[&d.sd] = d.name
	}
	descs := make([]namedDesc, len(m.descs))
	for i, d := range m.descs {
		w := &litWriter{descs: names}
		w.structDesc(&d.sd)
		descs[i] = namedDesc{name: d.name, typ: d.obj.typ, lit: string(w.buf)}
	}
	return descs, nil
}

// namedDesc is one descriptor as genDescs writes it: the StructDesc of
// the struct type typ.
type namedDesc struct {
	name string
	typ  *goType
	lit  string // the literal's braces and elements, as gofmt lays them out
}

// genDescs emits the descriptors of t's data-mode validator, the last
// declarations of its file, as the source that follows f's (see
// preformatDescs).
func genDescs(f *jen.File, t *toolModel, descs []namedDesc) []byte {
	if len(descs) == 0 {
		return nil
	}
	doc := func(d namedDesc) string {
		if d.typ == t.args {
			return d.name + " describes " + t.t.Name + "'s arguments and their schema."
		}
		return d.name + " describes the " + d.typ.Name + " objects of " + t.t.Name + "'s arguments."
	}
	if !preformatDescs {
		for _, d := range descs {
			f.Comment(doc(d))
			f.Var().Id(d.name).Op("=").Qual(runtimePkg, "StructDesc").Op(d.lit)
		}
		return nil
	}
	n := 0
	for _, d := range descs {
		n += len(d.lit) + 2*len(d.name) + 100
	}
	out := make([]byte, 0, n)
	for _, d := range descs {
		out = append(out, "\n// "...)
		out = append(out, doc(d)...)
		out = append(out, "\nvar "...)
		out = append(out, d.name...)
		out = append(out, " = runtime.StructDesc"...)
		out = append(out, d.lit...)
		out = append(out, '\n')
	}
	return out
}

// checkDescs checks m's descriptors as runtime.DataPass does when the
// generated package registers the tool, against a Go type laid out as
// the tool's Args struct.
func checkDescs(t *toolModel, m *vModel) error {
	typ := reflectType(t.args)
	if _, err := runtime.DataPassFor(reflect.Zero(reflect.PointerTo(typ)).Interface(), &m.descs[0].sd); err != nil {
		// The error names the type by its fields: name it as generated.
		msg := strings.ReplaceAll(err.Error(), typ.String(), t.args.Name)
		return fmt.Errorf("internal error: runtime.DataPass refuses the descriptor of %s's arguments: %s", t.t.Name, msg)
	}
	return nil
}

// reflectType is a Go type with the layout and json names of the
// generated type t, which descriptors do not hold recursively: the
// fields of a struct in order, a string for an enum. A member name that
// a json tag cannot express is left out of the json names.
func reflectType(t *goType) reflect.Type {
	switch t.Kind {
	case kBool:
		return reflect.TypeFor[bool]()
	case kInt:
		if t.Bits == 32 {
			return reflect.TypeFor[int32]()
		}
		return reflect.TypeFor[int64]()
	case kFloat:
		if t.Bits == 32 {
			return reflect.TypeFor[float32]()
		}
		return reflect.TypeFor[float64]()
	case kString, kEnum:
		return reflect.TypeFor[string]()
	case kTime:
		return reflect.TypeFor[time.Time]()
	case kUnion:
		return reflect.TypeFor[json.RawMessage]()
	case kSlice:
		return reflect.SliceOf(reflectType(t.Elem))
	case kMap:
		return reflect.MapOf(reflect.TypeFor[string](), reflectType(t.Elem))
	case kStruct:
		fields := make([]reflect.StructField, len(t.Fields))
		for i, fd := range t.Fields {
			ft := reflectType(fd.Type)
			if fd.Pointer || (fd.Type.Kind == kStruct && fd.Type.Recursive) {
				ft = reflect.PointerTo(ft)
			}
			tag := `json:"-"`
			if tagName(fd.JSON) {
				tag = fd.JSON
				if !fd.Required {
					tag += ",omitempty"
				}
				tag = `json:"` + tag + `"`
			}
			fields[i] = reflect.StructField{Name: fd.Name, Type: ft, Tag: reflect.StructTag(tag)}
		}
		return reflect.StructOf(fields)
	}
	return reflect.TypeFor[any]()
}
