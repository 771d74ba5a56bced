package gen

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/runtime/jsonscan"
)

// The data-mode validator of a tool's arguments: instead of scan
// functions and package variables, static runtime.StructDescs that
// runtime.DataPass reads when the registry is built: one for the
// arguments, and one package variable for each object nested in them,
// which the field that holds it points to. (Written inline, the nested
// literals would cost gofmt a pass over each for every level of nesting
// above it.) It covers the
// shapes the runtime readers cover (see readCall): objects, strings,
// enums, date-times, numbers, booleans, arrays of those, nullable
// values and scalar defaults. A tool with a shape it does not cover
// keeps its one-pass code.

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

// dgen makes the descriptors of one tool's arguments.
type dgen struct {
	t     *toolModel
	names nameSource
	// visiting are the struct types being described: a type inside
	// itself is not covered.
	visiting map[*goType]bool
	descs    []namedDesc
}

// namedDesc is one package variable of a data-mode validator: the
// StructDesc of the struct type typ.
type namedDesc struct {
	name string
	typ  *goType
	lit  string // the literal's braces and elements, as gofmt lays them out
}

// dataDesc returns the descriptors of t's arguments, the arguments' own
// first, with the names names gives them, or false when its schema uses
// a shape the descriptors do not cover.
func dataDesc(t *toolModel, names nameSource) ([]namedDesc, bool) {
	g := &dgen{t: t, names: names, visiting: map[*goType]bool{}}
	policy := t.t.AdditionalArgs
	if policy == "" {
		policy = "reject"
	}
	root := t.t.Args
	hasProps := root.Get("properties") != nil
	closed := isClosed(root)
	rejectTop := (hasProps && policy == "reject") || (closed && !(hasProps && policy == "strip"))
	if _, ok := g.named(t.args, root, rejectTop); !ok {
		return nil, false
	}
	return g.descs, true
}

// named adds the descriptor of the struct type t under the object schema
// s to g.descs, as a package variable, and returns its name.
func (g *dgen) named(t *goType, s *catalog.Node, reject bool) (string, bool) {
	name := g.names.name(lowerIdent(t.Name + "Desc"))
	i := len(g.descs)
	g.descs = append(g.descs, namedDesc{name: name, typ: t})
	lit, ok := g.structDesc(t, s, reject)
	g.descs[i].lit = lit
	return name, ok
}

// genDataValidator emits the validator of a tool covered by dataDesc,
// and returns its descriptors for genDescs: those buildModel made, or,
// when some of the names they asked for were taken, the descriptors made
// again with the names given.
func genDataValidator(f *jen.File, t *toolModel, names nameSource) ([]namedDesc, error) {
	descs := t.desc
	if !slices.Equal(t.vasked, t.vnames) {
		var ok bool
		if descs, ok = dataDesc(t, names); !ok {
			return nil, fmt.Errorf("internal error: the descriptor of %s's arguments could not be made again", t.t.Name)
		}
	}
	top := descs[0].name
	f.Comment(t.validatorFn + " returns the validator of " + t.t.Name + "'s arguments:")
	f.Comment("runtime.DataPassFor reads them in one pass, as " + top + " describes.")
	f.Func().Id(t.validatorFn).Params(jen.Op("*").Qual(runtimePkg, "Meta")).Params(jen.Qual(runtimePkg, "Validator"), jen.Error()).Block(
		jen.Return(jen.Qual(runtimePkg, "DataPassFor").Call(jen.Parens(jen.Op("*").Id(t.args.Name)).Call(jen.Nil()), jen.Op("&").Id(top))),
	)
	return descs, nil
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

// structDesc returns the StructDesc{...} of the struct type t under the
// object schema s, as structFunc would scan it: on one line but its
// fields, one a line.
func (g *dgen) structDesc(t *goType, s *catalog.Node, reject bool) (string, bool) {
	if g.visiting[t] || t.Recursive {
		return "", false
	}
	g.visiting[t] = true
	defer delete(g.visiting, t)
	// The seen mask, as structFunc makes it.
	bit, required := seenMask(t, s)
	if len(bit) > 64 {
		return "", false
	}
	var fields []string
	for i, fd := range t.Fields {
		d, ok := g.field(fd)
		if !ok {
			return "", false
		}
		head := dkeyed{"Key: " + dlit(fd.JSON)}
		if i != 0 {
			head.add("Field", dlit(i))
		}
		d = append(head, d...)
		if b, ok := bit[fd.JSON]; ok {
			d.add("Seen", "1 << "+dlit(b))
		}
		if fd.Default != nil {
			def, ok := dataDefault(fd)
			if !ok {
				return "", false
			}
			d.add("Default", dlit(def))
		}
		fields = append(fields, d.values(""))
	}
	var out dkeyed
	out.add("Object", objectFieldsText(t, required, reject).values("runtime.Object"))
	if len(fields) > 0 {
		out.add("Fields", "[]runtime.FieldDesc{\n\t"+strings.Join(fields, ",\n\t")+"}")
	}
	return out.values(""), true
}

// dkeyed are the key: value elements of a composite literal of a
// descriptor, as gofmt writes them.
type dkeyed []string

func (k *dkeyed) add(key, v string) { *k = append(*k, key+": "+v) }

// values is the literal of type typ ("" where Go infers it) with the
// elements k.
func (k dkeyed) values(typ string) string { return dvalues(typ, k) }

// dvalues is the composite literal of type typ with the elements elems,
// on one line.
func dvalues(typ string, elems []string) string {
	return typ + "{" + strings.Join(elems, ", ") + "}"
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

// dlits are the literals of vs.
func dlits[T any](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = dlit(v)
	}
	return out
}

// objectFieldsText are the elements of a runtime.Object, as objectFields
// makes them for the scan functions.
func objectFieldsText(t *goType, required []string, reject bool) dkeyed {
	var d dkeyed
	d.add("Names", dvalues("[]string", dlits(objectNames(t))))
	if len(required) > 0 {
		d.add("Required", dvalues("[]string", dlits(required)))
	}
	if reject {
		d.add("Reject", "true")
	}
	return d
}

// allowedValuesText is the []any of allowedValues.
func allowedValuesText(items []*catalog.Node) string {
	vals := make([]string, len(items))
	for i, it := range items {
		switch it.Kind {
		case catalog.String:
			vals[i] = dlit(it.Str)
		case catalog.Number:
			vals[i] = "json.Number(" + dlit(it.Num) + ")"
		case catalog.Bool:
			vals[i] = dlit(it.Bool)
		default:
			vals[i] = "nil"
		}
	}
	return dvalues("[]any", vals)
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

// field returns the elements of a property's FieldDesc, as field (the
// one-pass generator's) reads it.
func (g *dgen) field(fd *goField) (dkeyed, bool) {
	ctx := valueCtx{schema: fd.Schema, typ: fd.Type, pointer: fd.Pointer || (fd.Type.Kind == kStruct && fd.Type.Recursive)}
	return g.full(ctx, fd.Schema.Get("properties") != nil)
}

// full returns the elements of the FieldDesc of a value as written: its
// $ref resolved and its nullable wrapper noted.
func (g *dgen) full(ctx valueCtx, defaults bool) (dkeyed, bool) {
	inner, nullable, want := resolve(ctx)
	if inner == nil {
		if ctx.typ.Kind != kAny || nullable {
			return nil, false
		}
		// No schema: any value.
		return dkeyed{"Kind: runtime.KindAny"}, true
	}
	d, ok := g.value(ctx, inner, want, defaults)
	if !ok || !nullable {
		return d, ok
	}
	d.add("Nullable", "true")
	if nullOutsideEnum(ctx) {
		var items []*catalog.Node
		if e := inner.Get("enum"); e != nil {
			items = e.Items
		} else if c := inner.Get("const"); c != nil {
			items = []*catalog.Node{c}
		}
		d.add("NullRefused", allowedValuesText(items))
	}
	return d, true
}

// value returns the elements of the FieldDesc of a value under its
// resolved schema s, or false where readCall would return nil: the
// value needs code of its own.
func (g *dgen) value(ctx valueCtx, s *catalog.Node, want string, defaults bool) (dkeyed, bool) {
	t := ctx.typ
	typed := s.Get("type") != nil
	var d dkeyed
	switch t.Kind {
	case kStruct:
		if !typed || t.Recursive {
			return nil, false
		}
		sd, ok := g.named(t, s, isClosed(s))
		if !ok {
			return nil, false
		}
		d.add("Kind", "runtime.KindStruct")
		if want != "object" {
			d.add("Type", dlit(want))
		}
		d.add("Struct", "&"+sd)
		if defaults {
			d.add("Defaults", "true")
		}
		return d, true
	case kSlice:
		if !typed {
			return nil, false
		}
		elem := valueCtx{schema: s.Get("items"), typ: t.Elem}
		item, ok := g.full(elem, false)
		if !ok {
			return nil, false
		}
		d.add("Kind", "runtime.KindList")
		if u := s.Get("uniqueItems"); u != nil && u.Kind == catalog.Bool && u.Bool {
			switch t.Elem.Kind {
			case kBool, kInt, kFloat, kString, kEnum:
			default:
				return nil, false
			}
			if _, nullable, _ := resolve(elem); nullable {
				return nil, false
			}
			d.add("Unique", "true")
		}
		if mn, mx := limits(s, "minItems", "maxItems"); mn >= 0 || mx >= 0 || want != "array" {
			var a dkeyed
			a.add("Type", dlit(want))
			a.add("MinItems", dlit(mn))
			a.add("MaxItems", dlit(mx))
			d.add("Array", "&"+a.values("runtime.ArraySchema"))
		}
		d.add("Item", "&"+item.values("runtime.FieldDesc"))
		return d, true
	case kMap:
		// As readMap reads it.
		if !typed {
			return nil, false
		}
		d.add("Kind", "runtime.KindMap")
		if want != "object" {
			d.add("Type", dlit(want))
		}
		if isClosed(s) {
			return d, true // no Item: no member is allowed
		}
		var ap *catalog.Node
		if a := s.Get("additionalProperties"); a != nil && a.Kind == catalog.Object {
			ap = a
		}
		item, ok := g.full(valueCtx{schema: ap, typ: t.Elem}, false)
		if !ok {
			return nil, false
		}
		d.add("Item", "&"+item.values("runtime.FieldDesc"))
		return d, true
	case kAny:
		// As read reads it: any JSON value.
		d.add("Kind", "runtime.KindAny")
		return d, true
	}
	// A const is an enum of one value, or with an enum beside it, of the
	// values both allow: either way, a value outside is refused listing
	// the enum's values, or the const.
	c := s.Get("const")
	if c != nil && t.Kind != kBool && t.Kind != kInt && t.Kind != kFloat && t.Kind != kString && t.Kind != kEnum {
		return nil, false
	}
	var allowed string
	if c != nil {
		if e := s.Get("enum"); e != nil {
			allowed = allowedValuesText(e.Items)
		} else {
			allowed = allowedValuesText([]*catalog.Node{c})
		}
	}
	typ := want
	if !typed {
		typ = ""
	}
	switch t.Kind {
	case kBool:
		d.add("Kind", "runtime.KindBool")
		switch {
		case c != nil:
			// Without a type, a value that is no boolean is refused
			// listing the const.
			if typed {
				d.add("Type", dlit(want))
			}
			d.add("Const", allowed)
		case want != "boolean":
			d.add("Type", dlit(want))
		}
	case kInt, kFloat:
		kind, plain := "KindInt", "integer"
		if t.Kind == kFloat {
			kind, plain = "KindFloat", "number"
		}
		d.add("Kind", "runtime."+kind)
		var n dkeyed
		if b, ok := boundsText(s); ok {
			n.add("Bounds", "&"+b)
		}
		if m := s.Get("multipleOf"); m != nil {
			n.add("MultipleOf", dlit(m.Num))
		}
		switch e := s.Get("enum"); {
		case c != nil && t.Kind == kFloat:
			// Compared exactly with the number as written.
			n.add("Const", dlit(mustFloat(c)))
			n.add("HasConst", "true")
			n.add("Allowed", allowed)
		case c != nil:
			n.add("Enum", dvalues("[]int64", constEnum(c, e)))
			n.add("Allowed", allowed)
		case e != nil:
			n.add("Enum", dvalues("[]int64", dlits(intEnumValues(e))))
			n.add("Allowed", allowedValuesText(e.Items))
		}
		if len(n) > 0 || !typed || want != plain {
			n = append(dkeyed{"Type: " + dlit(typ)}, n...)
			d.add("Number", "&"+n.values("runtime.NumberSchema"))
		}
	case kString, kEnum, kTime:
		kind := "KindString"
		if t.Kind == kTime {
			kind = "KindTime"
		}
		d.add("Kind", "runtime."+kind)
		str := dkeyed{"Type: " + dlit(typ)}
		mn, mx := limits(s, "minLength", "maxLength")
		str.add("MinLength", dlit(mn))
		str.add("MaxLength", dlit(mx))
		checks := mn >= 0 || mx >= 0
		if p, ok := s.Get("pattern").StringValue(); ok {
			str.add("PatternSource", dlit(p))
			checks = true
		}
		if fm, ok := s.Get("format").StringValue(); ok && formatAsserted(fm) {
			str.add("Format", dlit(fm))
			checks = true
		}
		switch {
		case c != nil:
			var vals []string
			if t.Kind != kEnum || slices.ContainsFunc(t.Values, func(v *enumValue) bool { return v.Value == c.Str }) {
				vals = []string{c.Str}
			}
			str.add("Enum", dvalues("[]string", dlits(vals)))
			str.add("Allowed", allowed)
			checks = true
		case t.Kind == kEnum:
			vals := make([]string, len(t.Values))
			for i, v := range t.Values {
				vals[i] = v.Value
			}
			str.add("Enum", dvalues("[]string", dlits(vals)))
			str.add("Allowed", allowedValuesText(s.Get("enum").Items))
			checks = true
		}
		if checks || !typed || want != "string" {
			d.add("String", "&"+str.values("runtime.StringSchema"))
		}
	default:
		return nil, false
	}
	return d, true
}

// boundsText is the runtime.Bounds literal of a number's schema, as the
// scan functions' bounds writes it, or false when it has none.
func boundsText(s *catalog.Node) (string, bool) {
	b, ok := numBounds(s)
	if !ok {
		return "", false
	}
	var d dkeyed
	if b.hasMin {
		d.add("Min", dlit(b.min))
		d.add("HasMin", "true")
		if b.exMin {
			d.add("ExclusiveMin", "true")
		}
	}
	if b.hasMax {
		d.add("Max", dlit(b.max))
		d.add("HasMax", "true")
		if b.exMax {
			d.add("ExclusiveMax", "true")
		}
	}
	return d.values("runtime.Bounds"), true
}

// constEnum is the integer enum of a const: the const, when the enum
// beside it (if any) holds it, or nothing.
func constEnum(c, e *catalog.Node) []string {
	cn, _ := jsonscan.ParseInt64([]byte(c.Num))
	if e != nil && !slices.ContainsFunc(e.Items, func(it *catalog.Node) bool {
		n, err := jsonscan.ParseInt64([]byte(it.Num))
		return err == nil && n == cn
	}) {
		return nil
	}
	return []string{dlit(cn)}
}
