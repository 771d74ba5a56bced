package gen

import (
	"fmt"
	"maps"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/runtime/jsonscan"
)

// The one-pass validator of a tool's arguments. Compiled from the args
// schema, it decodes the raw JSON with a jsonscan.Decoder straight into the
// Args struct and checks the schema as it goes: one function per struct
// type (scan<Type>), which runtime.OnePass drives. What depends on the tool
// is generated (which member goes to which field, the schema of each value
// as a package variable); reading and checking a value is a call into the
// runtime's readers (runtime.ReadString...), and values they do not cover
// get code of their own. Errors come from the runtime's Arg* helpers, so
// they read as the general validator's.
//
// A schema that uses anything the generator does not compile (see
// fallbackReasons) gets the general validator instead, and the generated
// file says why.

// annotations are keywords that constrain nothing.
var annotations = map[string]bool{
	"description": true, "title": true, "examples": true, "$comment": true,
	"deprecated": true, "readOnly": true, "writeOnly": true, "default": true,
	"$schema": true, "$id": true, "$defs": true, "definitions": true, "nullable": true,
}

// genValidator emits the tool's argument validator, with the names
// buildModel decided for it; a data-mode one's descriptors are returned,
// for genDescs.
func genValidator(f *jen.File, t *toolModel) ([]namedDesc, error) {
	if len(t.fallback) > 0 {
		genGeneralValidator(f, t, t.fallback)
		return nil, nil
	}
	r := &replay{asked: t.vasked, got: t.vnames}
	if t.data {
		descs, err := genDataValidator(f, t, r)
		if err != nil {
			return nil, err
		}
		return descs, r.err
	}
	g := newVgen(t, r)
	g.build()
	g.emit(f)
	return nil, r.err
}

func newVgen(t *toolModel, n nameSource) *vgen {
	return &vgen{t: t, done: map[*goType]bool{}, names: n, enums: map[*catalog.Node]string{}, objects: map[*goType]string{}, scans: map[*goType]string{}}
}

// genGeneralValidator emits a validator that validates with the schema
// (runtime.NewSchemaValidator) and decodes into the Args struct.
func genGeneralValidator(f *jen.File, t *toolModel, reasons []string) {
	f.Comment(t.validatorFn + " returns the validator of " + t.t.Name + "'s arguments.")
	f.Comment("They are validated by the general validator: the schema uses " + strings.Join(reasons, ", ") + ".")
	f.Func().Id(t.validatorFn).Params(jen.Id("meta").Op("*").Qual(runtimePkg, "Meta")).Params(jen.Qual(runtimePkg, "Validator"), jen.Error()).Block(
		jen.List(jen.Id("sv"), jen.Err()).Op(":=").Qual(runtimePkg, "NewSchemaValidator").Call(jen.Id("meta")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Qual(runtimePkg, "Typed").Types(jen.Id(t.args.Name)).Call(jen.Id("sv")), jen.Nil()),
	)
}

// fallbackReasons lists what the one-pass validator would not check in the
// tool's args schema: the keywords the type builder noted, and shapes the
// generator does not compile.
func fallbackReasons(t *toolModel) []string {
	r := map[string]bool{}
	for _, k := range t.general {
		r[k] = true
	}
	c := &checker{reasons: r, visiting: map[*goType]bool{}}
	root := t.t.Args
	if root == nil || root.SchemaTypes() == nil || len(root.SchemaTypes()) != 1 || root.SchemaTypes()[0] != "object" {
		r[`an args schema without "type": "object"`] = true
	} else {
		c.object(root, t.args, true, t.t.AdditionalArgs)
	}
	return slices.Sorted(maps.Keys(r))
}

// checker walks a schema alongside its Go types, noting what the one-pass
// validator cannot check.
type checker struct {
	reasons  map[string]bool
	visiting map[*goType]bool
}

func (c *checker) add(format string, args ...any) { c.reasons[fmt.Sprintf(format, args...)] = true }

// only notes the keywords of s outside allowed and the annotations.
func (c *checker) only(s *catalog.Node, what string, allowed ...string) {
	for _, f := range s.Fields {
		if !annotations[f.Key] && !slices.Contains(allowed, f.Key) {
			c.add("%s on %s", f.Key, what)
		}
	}
}

// value checks the schema s of one value (a property, an item, a map
// value) mapped to t.
func (c *checker) value(s *catalog.Node, t *goType) {
	if s == nil {
		return
	}
	if s.Kind == catalog.Bool {
		if !s.Bool {
			c.add("false schemas")
		}
		return
	}
	if s.Kind != catalog.Object {
		c.add("a schema that is not an object")
		return
	}
	if _, ok := s.Get("$ref").StringValue(); ok {
		c.only(s, "a $ref", "$ref")
		if t.Kind == kAny && t.Schema == nil {
			c.add("$ref outside the schema")
			return
		}
		if t.Recursive {
			c.add("recursive $ref")
			return
		}
		c.value(t.Schema, t)
		return
	}
	if inner, ok := nullableInner(s); ok {
		if s.Get("anyOf") != nil || s.Get("oneOf") != nil {
			c.only(s, "a nullable anyOf", "anyOf", "oneOf")
		}
		s = inner
		if _, ok := s.Get("$ref").StringValue(); ok {
			c.value(s, t)
			return
		}
	}
	types := s.SchemaTypes()
	switch t.Kind {
	case kUnion:
		if s.Get("anyOf") != nil {
			c.add("anyOf")
		}
		if s.Get("oneOf") != nil {
			c.add("oneOf")
		}
		if len(types) > 1 {
			c.add("a type list")
		}
		return
	case kAny:
		if len(types) == 0 {
			c.only(s, "a value without type")
		} else {
			c.add("type %s", strings.Join(types, ", "))
		}
		return
	}
	if len(types) == 0 {
		switch {
		case t.Kind == kEnum:
			c.scalarKeywords(s, t)
		case s.Get("const") != nil:
			c.only(s, "a const without type", "const")
			c.constValue(s, t)
		default:
			c.add(`a %s schema without "type"`, describeKind(t.Kind))
		}
		return
	}
	switch t.Kind {
	case kStruct:
		if c.visiting[t] {
			c.add("recursive $ref")
			return
		}
		c.visiting[t] = true
		c.object(s, t, false, "")
		delete(c.visiting, t)
	case kMap:
		c.only(s, "a map", "type", "properties", "additionalProperties")
		if ap := s.Get("additionalProperties"); ap != nil && ap.Kind == catalog.Object {
			c.value(ap, t.Elem)
		}
	case kSlice:
		c.only(s, "an array", "type", "items", "minItems", "maxItems", "uniqueItems")
		c.value(s.Get("items"), t.Elem)
		if u := s.Get("uniqueItems"); u != nil && u.Kind == catalog.Bool && u.Bool {
			switch t.Elem.Kind {
			case kBool, kInt, kFloat, kString, kEnum:
				if _, nullable := nullableInner(s.Get("items")); nullable {
					c.add("uniqueItems on nullable items")
				}
			default:
				c.add("uniqueItems on items of type %s", describeKind(t.Elem.Kind))
			}
		}
	default:
		c.scalarKeywords(s, t)
	}
}

func describeKind(k kind) string {
	switch k {
	case kBool:
		return "boolean"
	case kInt:
		return "integer"
	case kFloat:
		return "number"
	case kString, kEnum:
		return "string"
	case kTime:
		return "date-time"
	case kStruct:
		return "object"
	case kMap:
		return "map"
	case kSlice:
		return "array"
	}
	return "any"
}

// scalarKeywords checks the keywords of a boolean, number or string.
func (c *checker) scalarKeywords(s *catalog.Node, t *goType) {
	switch t.Kind {
	case kBool:
		c.only(s, "a boolean", "type", "const")
	case kInt, kFloat:
		c.only(s, "a number", "type", "const", "enum", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "format")
		if e := s.Get("enum"); e != nil {
			if e.Kind != catalog.Array || len(e.Items) == 0 {
				c.add("enum")
			}
			for _, it := range e.Items {
				if it.Kind != catalog.Number || t.Kind == kFloat {
					c.add("enum on numbers")
					break
				}
				if _, err := jsonscan.ParseInt64([]byte(it.Num)); err != nil {
					c.add("enum on numbers")
					break
				}
			}
		}
		if m := s.Get("multipleOf"); m != nil {
			if f, ok := m.Float(); !ok || f <= 0 {
				c.add("multipleOf")
			}
		}
		for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
			if b := s.Get(k); b != nil {
				// Generated code compares numbers exactly with the bound's
				// float64, which must then be the bound as written.
				if _, ok := b.Float(); !ok || !exactFloat(b.Num) {
					c.add("%s that a float64 does not hold exactly", k)
				}
			}
		}
	case kString, kEnum, kTime:
		c.only(s, "a string", "type", "const", "enum", "minLength", "maxLength", "pattern", "format")
		if t.Kind != kEnum && s.Get("enum") != nil {
			c.add("enum on strings that are not all strings")
		}
		if p, ok := s.Get("pattern").StringValue(); ok {
			if _, err := regexp.Compile(p); err != nil {
				c.add("pattern %q, which Go does not compile", p)
			}
		}
		for _, k := range []string{"minLength", "maxLength"} {
			if n := s.Get(k); n != nil {
				if f, ok := n.Float(); !ok || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
					c.add("%s", k)
				}
			}
		}
	}
	if s.Get("const") != nil {
		c.constValue(s, t)
	}
}

func (c *checker) constValue(s *catalog.Node, t *goType) {
	v := s.Get("const")
	switch {
	case t.Kind == kBool && v.Kind == catalog.Bool,
		(t.Kind == kString || t.Kind == kEnum) && v.Kind == catalog.String:
	case t.Kind == kInt && v.Kind == catalog.Number:
		if _, err := jsonscan.ParseInt64([]byte(v.Num)); err != nil {
			c.add("const")
		}
	case t.Kind == kFloat && v.Kind == catalog.Number:
		if !exactFloat(v.Num) {
			c.add("const that a float64 does not hold exactly")
		}
	default:
		c.add("const of type %s", describeKind(t.Kind))
	}
}

// object checks an object schema with properties, mapped to the struct t.
func (c *checker) object(s *catalog.Node, t *goType, top bool, policy string) {
	allowed := []string{"type", "properties", "required", "additionalProperties"}
	c.only(s, "an object", allowed...)
	if t.Kind != kStruct {
		c.value(s, t)
		return
	}
	if len(t.Fields) > 64 {
		c.add("more than 64 properties in an object")
	}
	props := map[string]bool{}
	for _, fd := range t.Fields {
		props[fd.JSON] = true
		c.value(fd.Schema, fd.Type)
	}
	if r := s.Get("required"); r != nil {
		for _, it := range r.Items {
			if !props[it.Str] {
				c.add("required %q, which is not a property", it.Str)
			}
		}
	}
	if ap := s.Get("additionalProperties"); ap != nil && ap.Kind == catalog.Object {
		if !top || policy != "strip" || s.Get("properties") == nil {
			c.add("additionalProperties with a schema")
		}
	}
}

// vgen emits the one-pass validator of one tool.
type vgen struct {
	t     *toolModel
	vars  []jen.Code
	funcs []jen.Code
	done  map[*goType]bool
	names nameSource // package variables and functions of this validator
	enums map[*catalog.Node]string
	// scans names the scan function of each struct type.
	scans map[*goType]string
	// objects names the runtime.Object variable of each struct type.
	objects map[*goType]string
	// depth numbers the variables of nested blocks.
	depth int
}

// build makes the validator's code, naming what it declares.
func (g *vgen) build() {
	t := g.t
	policy := t.t.AdditionalArgs
	if policy == "" {
		policy = "reject"
	}
	root := t.t.Args
	hasProps := root.Get("properties") != nil
	closed := isClosed(root)
	rejectTop := (hasProps && policy == "reject") || (closed && !(hasProps && policy == "strip"))
	g.structFunc(t.args, root, rejectTop)
}

// emit adds the code build made to f.
func (g *vgen) emit(f *jen.File) {
	t := g.t
	f.Add(comment(t.validatorFn + " returns the validator of " + t.t.Name + "'s arguments,\ngenerated from its schema: it decodes them into " + t.args.Name + " and\nchecks them in one pass."))
	f.Func().Id(t.validatorFn).Params(jen.Op("*").Qual(runtimePkg, "Meta")).Params(jen.Qual(runtimePkg, "Validator"), jen.Error()).Block(
		jen.Return(rt("OnePass", jen.Op("&").Id(g.objects[t.args]), jen.Id(g.scans[t.args])), jen.Nil()),
	)
	if len(g.vars) > 0 {
		f.Comment("The schemas " + t.validatorFn + " checks the arguments against.")
		f.Var().Defs(g.vars...)
	}
	for _, fn := range g.funcs {
		f.Add(fn)
	}
}

func isClosed(s *catalog.Node) bool {
	ap := s.Get("additionalProperties")
	return ap != nil && ap.Kind == catalog.Bool && !ap.Bool
}

// pkgVar declares a package variable of the validator and returns its name.
func (g *vgen) pkgVar(base string, value jen.Code) string {
	name := g.names.name(lowerIdent(base))
	g.vars = append(g.vars, jen.Id(name).Op("=").Add(value))
	return name
}

// objectFields are the fields of the runtime.Object of a struct type, as
// objectVar writes them (objectFieldsText is the data-mode descriptors').
func objectFields(t *goType, required []string, reject bool) keyed {
	var d keyed
	d.add("Names", jen.Index().String().Values(lits(objectNames(t))...))
	if len(required) > 0 {
		d.add("Required", jen.Index().String().Values(lits(required)...))
	}
	if reject {
		d.add("Reject", jen.True())
	}
	return d
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

// objectVar declares the runtime.Object of a struct type: its sorted
// property names, its required properties in the schema's order (which
// take the first bits of the seen mask) and whether it rejects undeclared
// members.
func (g *vgen) objectVar(t *goType, required []string, reject bool) string {
	name := g.pkgVar(t.Name+"Object", jen.Qual(runtimePkg, "Object").Values(objectFields(t, required, reject)...))
	g.objects[t] = name
	return name
}

// keyed are the elements of a composite literal, written on one line:
// go/format lays out a one-line literal much faster than one with an
// element per line.
type keyed []jen.Code

func (k *keyed) add(key string, v jen.Code) { *k = append(*k, jen.Id(key).Op(":").Add(v)) }

func lits[T any](vs []T) []jen.Code {
	out := make([]jen.Code, len(vs))
	for i, v := range vs {
		out[i] = jen.Lit(v)
	}
	return out
}

// structFunc emits scan<Type>, which reads the members of an object whose
// '{' d has consumed into out. With defaults, it applies the schema's
// defaults to absent members, as the general validator does along
// properties from the top.
func (g *vgen) structFunc(t *goType, s *catalog.Node, rejectUnknown bool) {
	if g.done[t] {
		return
	}
	g.done[t] = true
	g.scans[t] = g.names.name("scan" + t.Name)
	bit, required := seenMask(t, s)
	obj := g.objectVar(t, required, rejectUnknown)
	body := []jen.Code{jen.Op("*").Id("out").Op("=").Id(t.Name).Values()}
	seen := jen.Lit(0)
	if len(bit) > 0 {
		body = append(body, jen.Var().Id("seen").Uint64())
		seen = jen.Id("seen")
	}
	var cases []jen.Code
	for _, fd := range t.Fields {
		var stmts []jen.Code
		if b, ok := bit[fd.JSON]; ok {
			stmts = append(stmts, jen.Id("seen").Op("|=").Lit(1).Op("<<").Lit(b))
		}
		g.depth = 0
		stmts = append(stmts, g.field(t, fd)...)
		cases = append(cases, jen.Case(jen.Lit(fd.JSON)).Block(stmts...))
	}
	cases = append(cases, jen.Default().Block(jen.Id("te").Op("=").Id("ms").Dot("Skip").Call()))
	body = append(body,
		jen.Id("ms").Op(":=").Id(obj).Dot("Members").Call(jen.Id("d"), jen.Id("at")),
		jen.For(jen.Id("ms").Dot("Next").Call()).Block(
			jen.Var().Id("te").Op("*").Qual(runtimePkg, "ToolError"),
			jen.Switch(jen.String().Parens(jen.Id("ms").Dot("Key"))).Block(cases...),
			jen.If(jen.Id("te").Op("!=").Nil()).Block(jen.Return(jen.Id("te"))),
		),
	)
	var defaults []jen.Code
	for _, fd := range t.Fields {
		if fd.Default == nil {
			continue
		}
		defaults = append(defaults, jen.If(jen.Id("seen").Op("&").Parens(jen.Lit(1).Op("<<").Lit(bit[fd.JSON])).Op("==").Lit(0)).Block(g.setDefault(t, fd)...))
	}
	if len(defaults) == 0 {
		body = append(body, jen.Return(jen.Id("ms").Dot("End").Call(seen)))
	} else {
		body = append(body,
			ifErr(jen.Id("ms").Dot("End").Call(seen)),
			jen.If(jen.Id("defaults")).Block(defaults...),
			jen.Return(jen.Nil()),
		)
	}
	doc := g.scans[t] + " reads the members of " + t.Name + " into out; d has read its '{'."
	fn := jen.Comment(doc).Line().Func().Id(g.scans[t]).Params(
		jen.Id("d").Op("*").Qual(jsonscanPkg, "Decoder"),
		jen.Id("at").Op("*").Qual(runtimePkg, "Path"),
		jen.Id("out").Op("*").Id(t.Name),
		jen.Id("defaults").Bool(),
		jen.Id("late").Op("**").Qual(runtimePkg, "ToolError"),
	).Op("*").Qual(runtimePkg, "ToolError").Block(body...)
	g.funcs = append(g.funcs, fn)
}

// ifErr returns from the enclosing scan function when call, which returns
// a *runtime.ToolError, reports one.
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

func ifErr(call jen.Code) jen.Code {
	return jen.If(jen.Id("te").Op(":=").Add(call), jen.Id("te").Op("!=").Nil()).Block(jen.Return(jen.Id("te")))
}

// setDefault assigns the default of an absent field.
func (g *vgen) setDefault(t *goType, fd *goField) []jen.Code {
	dst := jen.Id("out").Dot(fd.Name)
	var lit jen.Code
	d := fd.Default
	switch fd.Type.Kind {
	case kBool:
		lit = jen.Lit(d.Bool)
	case kString:
		lit = jen.Lit(d.Str)
	case kEnum:
		lit = jen.Id(fd.Type.Name).Parens(jen.Lit(d.Str))
		for _, v := range fd.Type.Values {
			if v.Value == d.Str {
				lit = jen.Id(v.Name)
			}
		}
	case kInt:
		n, _ := jsonscan.ParseInt64([]byte(d.Num)) // exactly: 9007199254740993.0 too
		lit = jen.Op(strconv.FormatInt(n, 10))
		if fd.Pointer {
			lit = typeExpr(fd.Type).Parens(lit)
		}
	case kFloat:
		f, _ := d.Float()
		lit = jen.Lit(f)
		if fd.Type.Bits == 32 {
			lit = jen.Float32().Parens(lit)
		}
	}
	if lit != nil {
		if fd.Pointer {
			return []jen.Code{jen.Id("v").Op(":=").Add(lit), dst.Op("=").Op("&").Id("v")}
		}
		return []jen.Code{dst.Op("=").Add(lit)}
	}
	// Objects, arrays, maps and times: decoded from the default's JSON as
	// the general validator writes it, without defaults inside.
	name := g.pkgVar(t.Name+fd.Name+"Default", jen.Index().Byte().Parens(rawString(string(defaultJSON(d)))))
	target := jen.Op("&").Id("out").Dot(fd.Name)
	if fd.Pointer {
		return []jen.Code{
			jen.Id("v").Op(":=").New(typeExpr(fd.Type)),
			jen.Id("_").Op("=").Qual(runtimePkg, "UnmarshalExact").Call(jen.Id(name), jen.Id("v")),
			jen.Id("out").Dot(fd.Name).Op("=").Id("v"),
		}
	}
	return []jen.Code{jen.Id("_").Op("=").Qual(runtimePkg, "UnmarshalExact").Call(jen.Id(name), target)}
}

// valueCtx is where a value is read: its schema as written (nullable
// wrappers included), its Go type, how its JSON pointer is written on error,
// and the path variable of containers.
type valueCtx struct {
	schema *catalog.Node // as written
	typ    *goType
	ptr    jen.Code // expression of the JSON pointer, evaluated on error only
	at     jen.Code // expression of the value's runtime.Path
	addr   jen.Code // expression of the destination's address; nil: &dst
	path   string   // name of a runtime.Path variable of the value, for containers
	// pathUsed, when not nil, is set when the code uses path, which the
	// caller then declares.
	pathUsed *bool
	base     string   // name stem for package variables
	pointer  bool     // the destination is a pointer
	defaults jen.Code // passed to nested scans
	// shadow names a []string that the exact values of numbers are
	// appended to as well (runtime.NumberKey): uniqueItems compares those.
	shadow string
}

// field emits the reading of one property of t.
func (g *vgen) field(t *goType, fd *goField) []jen.Code {
	ctx := valueCtx{
		schema:  fd.Schema,
		typ:     fd.Type,
		ptr:     jen.Id("at").Dot("Field").Call(jen.Lit(fd.JSON)),
		at:      jen.Id("at").Dot("Key").Call(jen.Lit(fd.JSON)),
		base:    t.Name + fd.Name,
		pointer: fd.Pointer || (fd.Type.Kind == kStruct && fd.Type.Recursive),
	}
	ctx.defaults = jen.False()
	if fd.Schema.Get("properties") != nil {
		ctx.defaults = jen.Id("defaults")
	}
	dst := jen.Id("out").Dot(fd.Name)
	if inner, nullable, want := resolve(ctx); !nullable {
		if call := g.readCall(ctx, inner, want, dst); call != nil {
			return []jen.Code{jen.Id("te").Op("=").Add(call)}
		}
	}
	if !needsPath(fd.Type) {
		return g.value(ctx, dst)
	}
	used := false
	ctx.path, ctx.pathUsed = "p", &used
	ctx.ptr = jen.Id("p").Dot("String").Call()
	body := g.value(ctx, dst)
	if used {
		body = append([]jen.Code{jen.Id("p").Op(":=").Add(ctx.at)}, body...)
	}
	return body
}

func needsPath(t *goType) bool {
	return t.Kind == kStruct || t.Kind == kSlice || t.Kind == kMap
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

// value emits the reading of the next value of d into dst.
func (g *vgen) value(ctx valueCtx, dst *jen.Statement) []jen.Code {
	inner, nullable, want := resolve(ctx)
	read := g.read(ctx, inner, want, dst)
	if !nullable {
		return read
	}
	var zero jen.Code = jen.Nil()
	if !ctx.pointer {
		zero = zeroOf(ctx.typ)
	}
	onNull := []jen.Code{
		jen.If(jen.Err().Op(":=").Id("d").Dot("Null").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Qual(runtimePkg, "ArgSyntax").Call(jen.Err()))),
		dst.Clone().Op("=").Add(zero),
	}
	if nullOutsideEnum(ctx) {
		// type [T, "null"] lets null through, its enum or const does not.
		onNull = []jen.Code{ret(rt("ArgNotInEnum", ctx.ptr, jen.Nil(), jen.Id(g.enumVar(ctx, inner))))}
	}
	return []jen.Code{
		jen.If(jen.Id("d").Dot("Peek").Call().Op("==").Qual(jsonscanPkg, "Null")).Block(onNull...).Else().Block(read...),
	}
}

// nullOutsideEnum reports whether a nullable value's schema lists its type
// with "null" beside an enum or const that null is not in: the enum and
// const apply to null as well. (With anyOf [T, {type: null}], they are
// T's, and null is the other branch's.)
func nullOutsideEnum(ctx valueCtx) bool {
	s := ctx.schema
	if s != nil && s.Get("$ref") != nil {
		s = ctx.typ.Schema
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

// resolve returns the schema a value is read under, its $ref and nullable
// wrapper removed, whether it may be null, and its JSON Schema type as
// errors word it.
func resolve(ctx valueCtx) (inner *catalog.Node, nullable bool, want string) {
	s := ctx.schema
	if s != nil && s.Get("$ref") != nil {
		s = ctx.typ.Schema
	}
	inner = s
	if in, ok := nullableInner(s); ok {
		inner, nullable = in, true
		if in.Get("$ref") != nil {
			inner = ctx.typ.Schema
		}
	}
	return inner, nullable, typeName(ctx.schema, ctx.typ)
}

func zeroOf(t *goType) jen.Code {
	switch t.Kind {
	case kBool:
		return jen.False()
	case kInt, kFloat:
		return jen.Lit(0)
	case kString:
		return jen.Lit("")
	case kEnum:
		return jen.Id(t.Name).Parens(jen.Lit(""))
	case kStruct:
		return jen.Id(t.Name).Values()
	case kTime:
		return jen.Qual("time", "Time").Values()
	}
	return jen.Nil()
}

// assign stores v, a local of the value's type, in dst.
func assign(ctx valueCtx, dst *jen.Statement, v jen.Code) jen.Code {
	if ctx.pointer {
		return dst.Clone().Op("=").Op("&").Add(v)
	}
	return dst.Clone().Op("=").Add(v)
}

// assignConst stores the value of an expression that is not addressable.
func assignConst(ctx valueCtx, dst *jen.Statement, v jen.Code) []jen.Code {
	if ctx.pointer {
		return []jen.Code{jen.Id("v").Op(":=").Add(v), dst.Clone().Op("=").Op("&").Id("v")}
	}
	return []jen.Code{dst.Clone().Op("=").Add(v)}
}

func ret(call jen.Code) jen.Code { return jen.Return(call) }

func rt(name string, args ...jen.Code) *jen.Statement {
	return jen.Qual(runtimePkg, name).Call(args...)
}

// read emits the reading of a non-null value under the schema s.
func (g *vgen) read(ctx valueCtx, s *catalog.Node, want string, dst *jen.Statement) []jen.Code {
	t := ctx.typ
	typed := s.Get("type") != nil
	if call := g.readCall(ctx, s, want, dst); call != nil {
		return []jen.Code{ifErr(call)}
	}
	if ctx.pathUsed != nil {
		*ctx.pathUsed = true
	}
	readErr := func(errExpr jen.Code) jen.Code {
		if !typed {
			return ret(rt("ArgEnumRead", ctx.ptr, errExpr, jen.Id(g.enumVar(ctx, s))))
		}
		return ret(rt("ArgRead", ctx.ptr, jen.Lit(want), errExpr))
	}
	switch t.Kind {
	case kBool:
		out := []jen.Code{
			jen.List(jen.Id("v"), jen.Err()).Op(":=").Id("d").Dot("Bool").Call(),
			jen.If(jen.Err().Op("!=").Nil()).Block(readErr(jen.Err())),
		}
		if c := s.Get("const"); c != nil {
			out = append(out, jen.If(jen.Id("v").Op("!=").Lit(c.Bool)).Block(
				ret(rt("ArgNotInEnum", ctx.ptr, jen.Id("v"), jen.Id(g.enumVar(ctx, s))))))
		}
		return append(out, assign(ctx, dst, jen.Id("v")))
	case kInt:
		return g.readInt(ctx, s, want, dst, readErr)
	case kFloat:
		return g.readFloat(ctx, s, dst, readErr)
	case kString, kEnum, kTime:
		return g.readString(ctx, s, dst, readErr)
	case kStruct:
		v := jen.Op("&").Add(dst.Clone())
		var pre []jen.Code
		if ctx.pointer {
			pre = []jen.Code{jen.Id("v").Op(":=").New(jen.Id(t.Name)), dst.Clone().Op("=").Id("v")}
			v = jen.Id("v")
		}
		g.structFunc(t, s, isClosed(s))
		return append(pre,
			jen.If(jen.Err().Op(":=").Id("d").Dot("BeginObject").Call(), jen.Err().Op("!=").Nil()).Block(readErr(jen.Err())),
			jen.If(jen.Id("te").Op(":=").Id(g.scans[t]).Call(jen.Id("d"), jen.Op("&").Id(ctx.path), v, ctx.defaults, jen.Id("late")), jen.Id("te").Op("!=").Nil()).Block(jen.Return(jen.Id("te"))),
		)
	case kSlice:
		return g.readSlice(ctx, s, dst, readErr)
	case kMap:
		return g.readMap(ctx, s, dst, readErr)
	}
	// Any JSON value.
	return []jen.Code{
		jen.List(jen.Id("v"), jen.Id("te")).Op(":=").Add(rt("ReadAny", jen.Id("d"), ctx.at, jen.Id("late"))),
		jen.If(jen.Id("te").Op("!=").Nil()).Block(jen.Return(jen.Id("te"))),
		assign(ctx, dst, jen.Id("v")),
	}
}

// readCall returns the call of the runtime reader of a value (see
// runtime.ReadString, ReadObject, ReadList...) under its resolved schema
// s, or nil when the value needs generated code of its own.
func (g *vgen) readCall(ctx valueCtx, s *catalog.Node, want string, dst *jen.Statement) jen.Code {
	typed := s.Get("type") != nil
	switch ctx.typ.Kind {
	case kStruct:
		if !typed || ctx.typ.Recursive {
			return nil
		}
		g.structFunc(ctx.typ, s, isClosed(s))
		name := "ReadObject"
		if ctx.pointer {
			name = "ReadObjectPtr"
		}
		return rt(name, jen.Id("d"), ctx.at, jen.Lit(want), g.addr(ctx, dst), ctx.defaults, jen.Id("late"), jen.Id(g.scans[ctx.typ]))
	case kSlice:
		return g.readList(ctx, s, want, dst)
	}
	return g.readScalar(ctx, s, want, typed, dst)
}

// addr is the address of a value's destination.
func (g *vgen) addr(ctx valueCtx, dst *jen.Statement) jen.Code {
	if ctx.addr != nil {
		return ctx.addr
	}
	return jen.Op("&").Add(dst.Clone())
}

// readList returns the runtime.ReadList call of an array whose items a
// reader call reads, or nil.
func (g *vgen) readList(ctx valueCtx, s *catalog.Node, want string, dst *jen.Statement) jen.Code {
	t := ctx.typ
	if ctx.pointer || s.Get("type") == nil {
		return nil
	}
	if u := s.Get("uniqueItems"); u != nil && u.Kind == catalog.Bool && u.Bool {
		return nil
	}
	elem := valueCtx{
		schema:   s.Get("items"),
		typ:      t.Elem,
		at:       jen.Id("p"),
		addr:     jen.Id("v"),
		base:     ctx.base + "Item",
		defaults: jen.False(),
	}
	inner, nullable, elemWant := resolve(elem)
	if nullable || inner == nil {
		return nil
	}
	call := g.readCall(elem, inner, elemWant, jen.Op("*").Id("v"))
	if call == nil {
		return nil
	}
	var spec jen.Code = jen.Nil()
	if mn, mx := limits(s, "minItems", "maxItems"); mn >= 0 || mx >= 0 || want != "array" {
		d := keyed{jen.Id("Type").Op(":").Lit(want)}
		d.add("MinItems", jen.Lit(mn))
		d.add("MaxItems", jen.Lit(mx))
		spec = jen.Op("&").Id(g.pkgVar(ctx.base+"List", jen.Qual(runtimePkg, "ArraySchema").Values(d...)))
	}
	item := jen.Func().Params(
		jen.Id("d").Op("*").Qual(jsonscanPkg, "Decoder"),
		jen.Id("p").Qual(runtimePkg, "Path"),
		jen.Id("v").Op("*").Add(typeExpr(t.Elem)),
	).Op("*").Qual(runtimePkg, "ToolError").Block(jen.Return(call))
	return rt("ReadList", jen.Id("d"), ctx.at, spec, g.addr(ctx, dst), item)
}

// readScalar returns the call of the runtime reader of a boolean, number
// or string value (runtime.ReadString...), or nil when the value is of
// another kind or its schema needs more than a reader checks: a const, or
// numbers compared for uniqueItems.
func (g *vgen) readScalar(ctx valueCtx, s *catalog.Node, want string, typed bool, dst *jen.Statement) jen.Code {
	t := ctx.typ
	if s.Get("const") != nil || ctx.shadow != "" {
		return nil
	}
	typ := jen.Lit(want)
	if !typed {
		typ = jen.Lit("")
	}
	var name string
	var spec jen.Code = jen.Nil()
	args := []jen.Code{jen.Id("d"), ctx.at}
	switch t.Kind {
	case kBool:
		name = "ReadBool"
		spec = jen.Lit(want)
	case kInt, kFloat:
		name = "ReadInt"
		plain := "integer"
		if t.Kind == kFloat {
			name, plain = "ReadFloat", "number"
		}
		var d keyed
		if b := g.bounds(s); b != nil {
			d.add("Bounds", jen.Op("&").Add(b))
		}
		if m := s.Get("multipleOf"); m != nil {
			d.add("Multiple", rt("NewMultiple", jen.Lit(m.Num)))
		}
		if e := s.Get("enum"); e != nil {
			d.add("Enum", jen.Index().Int64().Values(intEnum(e)...))
			d.add("Allowed", allowedValues(e.Items))
		}
		if len(d) > 0 || !typed || want != plain {
			d = append(keyed{jen.Id("Type").Op(":").Add(typ)}, d...)
			spec = jen.Op("&").Id(g.pkgVar(ctx.base+"Schema", jen.Qual(runtimePkg, "NumberSchema").Values(d...)))
		}
	case kString, kEnum, kTime:
		name = "ReadString"
		if t.Kind == kTime {
			name = "ReadTime"
		}
		d := keyed{jen.Id("Type").Op(":").Add(typ)}
		mn, mx := limits(s, "minLength", "maxLength")
		d.add("MinLength", jen.Lit(mn))
		d.add("MaxLength", jen.Lit(mx))
		checks := mn >= 0 || mx >= 0
		if p, ok := s.Get("pattern").StringValue(); ok {
			d.add("Pattern", jen.Qual("regexp", "MustCompile").Call(jen.Lit(p)))
			checks = true
		}
		if fm, ok := s.Get("format").StringValue(); ok && formatAsserted(fm) {
			d.add("Format", jen.Lit(fm))
			checks = true
		}
		if t.Kind == kEnum {
			vals := make([]string, len(t.Values))
			for i, v := range t.Values {
				vals[i] = v.Value
			}
			d.add("Enum", jen.Index().String().Values(lits(vals)...))
			d.add("Allowed", allowedValues(s.Get("enum").Items))
			checks = true
		}
		if checks || !typed || want != "string" {
			spec = jen.Op("&").Id(g.pkgVar(ctx.base+"Schema", jen.Qual(runtimePkg, "StringSchema").Values(d...)))
		}
	default:
		return nil
	}
	if ctx.pointer {
		name += "Ptr"
	}
	args = append(args, spec, g.addr(ctx, dst))
	if t.Kind == kInt || t.Kind == kFloat || t.Kind == kTime {
		args = append(args, jen.Id("late"))
	}
	return rt(name, args...)
}

// intEnum lists the values of an integer enum, each once: a switch may
// not have a case twice.
func intEnum(e *catalog.Node) []jen.Code { return lits(intEnumValues(e)) }

// intEnumValues are the distinct values of an integer enum, in order.
func intEnumValues(e *catalog.Node) []int64 {
	var vals []int64
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

// outside is the condition that the length n is outside [mn, mx], of
// which -1 is an absent bound.
func outside(n *jen.Statement, mn, mx int) *jen.Statement {
	switch {
	case mn < 0:
		return n.Op(">").Lit(mx)
	case mx < 0:
		return n.Op("<").Lit(mn)
	}
	return n.Clone().Op("<").Lit(mn).Op("||").Add(n).Op(">").Lit(mx)
}

// allowedValues is the []any of an enum's values, as errors list them.
func allowedValues(items []*catalog.Node) jen.Code {
	vals := make([]jen.Code, len(items))
	for i, it := range items {
		switch it.Kind {
		case catalog.String:
			vals[i] = jen.Lit(it.Str)
		case catalog.Number:
			vals[i] = jen.Qual("encoding/json", "Number").Parens(jen.Lit(it.Num))
		case catalog.Bool:
			vals[i] = jen.Lit(it.Bool)
		default:
			vals[i] = jen.Nil()
		}
	}
	return jen.Index().Any().Values(vals...)
}

// enumVar declares the allowed values of an enum or const.
func (g *vgen) enumVar(ctx valueCtx, s *catalog.Node) string {
	if name, ok := g.enums[s]; ok {
		return name
	}
	var items []*catalog.Node
	if e := s.Get("enum"); e != nil {
		items = e.Items
	} else if c := s.Get("const"); c != nil {
		items = []*catalog.Node{c}
	}
	name := g.pkgVar(ctx.base+"Allowed", allowedValues(items))
	g.enums[s] = name
	return name
}

func (g *vgen) boundsVar(ctx valueCtx, s *catalog.Node) string {
	b := g.bounds(s)
	if b == nil {
		return ""
	}
	return g.pkgVar(ctx.base+"Bounds", b)
}

// bounds is the runtime.Bounds of a number's schema, or nil when it has
// none.
func (g *vgen) bounds(s *catalog.Node) *jen.Statement {
	b, ok := numBounds(s)
	if !ok {
		return nil
	}
	var d keyed
	if b.hasMin {
		d.add("Min", jen.Lit(b.min))
		d.add("HasMin", jen.True())
		if b.exMin {
			d.add("ExclusiveMin", jen.True())
		}
	}
	if b.hasMax {
		d.add("Max", jen.Lit(b.max))
		d.add("HasMax", jen.True())
		if b.exMax {
			d.add("ExclusiveMax", jen.True())
		}
	}
	return jen.Qual(runtimePkg, "Bounds").Values(d...)
}

// boundsSpec is what a number's schema bounds it by.
type boundsSpec struct {
	min, max                     float64
	hasMin, hasMax, exMin, exMax bool
}

// numBounds returns the bounds of a number's schema, or false when it
// has none: of minimum and exclusiveMinimum the stricter, and so for the
// maximum.
func numBounds(s *catalog.Node) (boundsSpec, bool) {
	var b boundsSpec
	b.min, b.hasMin = s.Get("minimum").Float()
	if f, ok := s.Get("exclusiveMinimum").Float(); ok && (!b.hasMin || f >= b.min) {
		b.min, b.hasMin, b.exMin = f, true, true
	}
	b.max, b.hasMax = s.Get("maximum").Float()
	if f, ok := s.Get("exclusiveMaximum").Float(); ok && (!b.hasMax || f <= b.max) {
		b.max, b.hasMax, b.exMax = f, true, true
	}
	return b, b.hasMin || b.hasMax
}

// multipleVar declares the multipleOf of a number.
func (g *vgen) multipleVar(ctx valueCtx, s *catalog.Node) string {
	m := s.Get("multipleOf")
	if m == nil {
		return ""
	}
	return g.pkgVar(ctx.base+"Multiple", rt("NewMultiple", jen.Lit(m.Num)))
}

func (g *vgen) readInt(ctx valueCtx, s *catalog.Node, want string, dst *jen.Statement, readErr func(jen.Code) jen.Code) []jen.Code {
	bounds := g.boundsVar(ctx, s)
	mult := g.multipleVar(ctx, s)
	n := jen.Id("n")
	// In the general validator's order: const, enum, then the bounds; all
	// exact.
	var checks []jen.Code
	if c := s.Get("const"); c != nil {
		cn, _ := jsonscan.ParseInt64([]byte(c.Num))
		checks = append(checks, jen.If(jen.Id("n").Op("!=").Lit(cn)).Block(ret(rt("ArgNotInEnum", ctx.ptr, n.Clone(), jen.Id(g.enumVar(ctx, s))))))
	}
	if e := s.Get("enum"); e != nil {
		checks = append(checks, jen.Switch(jen.Id("n")).Block(
			jen.Case(intEnum(e)...),
			jen.Default().Block(ret(rt("ArgNotInEnum", ctx.ptr, n.Clone(), jen.Id(g.enumVar(ctx, s))))),
		))
	}
	if bounds != "" {
		checks = append(checks, jen.If(jen.Op("!").Id(bounds).Dot("CheckInt").Call(n.Clone())).Block(ret(rt("ArgIntOutOfRange", ctx.ptr, n.Clone(), jen.Id(bounds)))))
	}
	if mult != "" {
		checks = append(checks, jen.If(jen.Op("!").Id(mult).Dot("Int").Call(jen.Id("n"))).Block(ret(rt("ArgIntNotMultiple", ctx.ptr, n.Clone(), jen.Id(mult)))))
	}
	var onErr jen.Code
	if s.Get("type") == nil {
		onErr = readErr(jen.Err())
	} else {
		bArg, mArg := jen.Nil(), jen.Nil()
		enumerated := s.Get("enum") != nil || s.Get("const") != nil
		if bounds != "" && !enumerated {
			bArg = jen.Op("&").Id(bounds)
		}
		if mult != "" && !enumerated {
			mArg = jen.Id(mult)
		}
		onErr = jen.If(jen.Id("te").Op(":=").Qual(runtimePkg, "ArgInt").Call(ctx.ptr, jen.Lit(want), jen.Err(), bArg, mArg, jen.Id("late")), jen.Id("te").Op("!=").Nil()).Block(jen.Return(jen.Id("te")))
		switch {
		case s.Get("enum") != nil || s.Get("const") != nil:
			// No allowed value is beyond int64.
			onErr = jen.Add(onErr).Line().Return(rt("ArgNotInEnum", ctx.ptr, rt("OverflowNumber", jen.Err()), jen.Id(g.enumVar(ctx, s))))
		case ctx.shadow != "":
			onErr = jen.Add(onErr).Line().Id(ctx.shadow).Op("=").Append(jen.Id(ctx.shadow), rt("OverflowKey", jen.Err()))
		}
	}
	if ctx.shadow != "" {
		checks = append(checks, jen.Id(ctx.shadow).Op("=").Append(jen.Id(ctx.shadow), rt("IntKey", n.Clone())))
	}
	var store []jen.Code
	if ctx.typ.Bits == 32 {
		store = append(store,
			jen.If(jen.Id("n").Op("<").Qual("math", "MinInt32").Op("||").Id("n").Op(">").Qual("math", "MaxInt32")).Block(
				rt("Late", jen.Id("late"), rt("ArgNotFit", ctx.ptr, n.Clone(), jen.Lit("int32"))),
			).Else().Block(
				jen.Id("v").Op(":=").Int32().Parens(jen.Id("n")),
				assign(ctx, dst, jen.Id("v")),
			))
	} else {
		store = append(store, assign(ctx, dst, jen.Id("n")))
	}
	return []jen.Code{
		jen.List(jen.Id("n"), jen.Err()).Op(":=").Id("d").Dot("Int64").Call(),
		jen.If(jen.Err().Op("!=").Nil()).Block(onErr).Else().Block(append(checks, store...)...),
	}
}

func (g *vgen) readFloat(ctx valueCtx, s *catalog.Node, dst *jen.Statement, readErr func(jen.Code) jen.Code) []jen.Code {
	bounds := g.boundsVar(ctx, s)
	mult := g.multipleVar(ctx, s)
	out := []jen.Code{
		jen.List(jen.Id("num"), jen.Id("f"), jen.Err()).Op(":=").Qual(runtimePkg, "ReadNumber").Call(jen.Id("d")),
		jen.If(jen.Err().Op("!=").Nil()).Block(readErr(jen.Err())),
	}
	// In the general validator's order: const, then the bounds; all
	// exact, on the number as written.
	if c := s.Get("const"); c != nil {
		out = append(out, jen.If(jen.Op("!").Qual(runtimePkg, "NumberIs").Call(jen.Id("num"), jen.Id("f"), jen.Lit(mustFloat(c)))).Block(ret(rt("ArgNotInEnum", ctx.ptr, rt("NumberValue", jen.Id("num")), jen.Id(g.enumVar(ctx, s))))))
	}
	if bounds != "" {
		out = append(out, jen.If(jen.Op("!").Id(bounds).Dot("CheckNumber").Call(jen.String().Parens(jen.Id("num")), jen.Id("f"))).Block(ret(rt("ArgNumberOutOfRange", ctx.ptr, jen.String().Parens(jen.Id("num")), jen.Id("f"), jen.Id(bounds)))))
	}
	if mult != "" {
		out = append(out, jen.If(jen.Op("!").Id(mult).Dot("NumberMultiple").Call(jen.String().Parens(jen.Id("num")))).Block(ret(rt("ArgNumberNotMultiple", ctx.ptr, jen.Id("num"), jen.Id(mult)))))
	}
	if ctx.shadow != "" {
		out = append(out, jen.Id(ctx.shadow).Op("=").Append(jen.Id(ctx.shadow), rt("NumberKey", jen.Id("num"))))
	}
	goType := "float64"
	if ctx.typ.Bits == 32 {
		goType = "float32"
	}
	out = append(out, jen.If(jen.Qual("math", "IsInf").Call(jen.Id("f"), jen.Lit(0))).Block(
		rt("Late", jen.Id("late"), rt("ArgNotFit", ctx.ptr, rt("NumberValue", jen.Id("num")), jen.Lit(goType))),
	))
	if ctx.typ.Bits == 32 {
		return append(out,
			jen.If(jen.List(jen.Id("v"), jen.Id("ok")).Op(":=").Qual(runtimePkg, "Float32").Call(jen.Id("f")), jen.Op("!").Id("ok")).Block(
				rt("Late", jen.Id("late"), rt("ArgNotFit", ctx.ptr, rt("NumberValue", jen.Id("num")), jen.Lit("float32"))),
			).Else().Block(assign(ctx, dst, jen.Id("v"))))
	}
	return append(out, assign(ctx, dst, jen.Id("f")))
}

// exactFloat reports whether the number num as written is a float64
// exactly.
func exactFloat(num string) bool {
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return false
	}
	r, ok := new(big.Rat).SetString(num)
	return ok && r.Cmp(new(big.Rat).SetFloat64(f)) == 0
}

func mustFloat(n *catalog.Node) float64 {
	f, _ := strconv.ParseFloat(n.Num, 64)
	return f
}

func (g *vgen) readString(ctx valueCtx, s *catalog.Node, dst *jen.Statement, readErr func(jen.Code) jen.Code) []jen.Code {
	t := ctx.typ
	// In the general validator's order: const, enum and format, which it
	// reports alone, then the length and the pattern.
	var checks []jen.Code
	if c := s.Get("const"); c != nil {
		checks = append(checks, jen.If(jen.Id("s").Op("!=").Lit(c.Str)).Block(
			ret(rt("ArgNotInEnum", ctx.ptr, jen.Id("s"), jen.Id(g.enumVar(ctx, s))))))
	}
	var enumCheck jen.Code
	if t.Kind == kEnum {
		var vals []jen.Code
		for _, v := range t.Values {
			vals = append(vals, jen.Lit(v.Value))
		}
		enumCheck = jen.Switch(jen.Id("s")).Block(
			jen.Case(vals...),
			jen.Default().Block(ret(rt("ArgNotInEnum", ctx.ptr, jen.Id("s"), jen.Id(g.enumVar(ctx, s))))),
		)
	}
	if fm, ok := s.Get("format").StringValue(); ok && formatAsserted(fm) {
		fv := g.pkgVar(ctx.base+"Format", rt("FormatChecker", jen.Lit(fm)))
		checks = append(checks, jen.If(jen.Op("!").Id(fv).Call(jen.Id("s"))).Block(
			ret(rt("ArgFormat", ctx.ptr, jen.Id("s"), jen.Lit(fm)))))
	}
	if mn, mx := limits(s, "minLength", "maxLength"); mn >= 0 || mx >= 0 {
		checks = append(checks, jen.If(jen.Id("n").Op(":=").Qual("unicode/utf8", "RuneCountInString").Call(jen.Id("s")), outside(jen.Id("n"), mn, mx)).Block(
			ret(rt("ArgLength", ctx.ptr, jen.Id("s"), jen.Lit(mn), jen.Lit(mx)))))
	}
	if p, ok := s.Get("pattern").StringValue(); ok {
		re := g.pkgVar(ctx.base+"Pattern", jen.Qual("regexp", "MustCompile").Call(jen.Lit(p)))
		checks = append(checks, jen.If(jen.Op("!").Id(re).Dot("MatchString").Call(jen.Id("s"))).Block(
			ret(rt("ArgPattern", ctx.ptr, jen.Id("s"), jen.Lit(p)))))
	}
	if t.Kind == kEnum && len(checks) == 0 {
		// Only the enum to check: compare the bytes, store the constant.
		var cases []jen.Code
		for _, v := range t.Values {
			cases = append(cases, jen.Case(jen.Lit(v.Value)).Block(assignConst(ctx, dst, jen.Id(v.Name))...))
		}
		cases = append(cases, jen.Default().Block(ret(rt("ArgNotInEnum", ctx.ptr, jen.String().Parens(jen.Id("b")), jen.Id(g.enumVar(ctx, s))))))
		return []jen.Code{
			jen.List(jen.Id("b"), jen.Err()).Op(":=").Id("d").Dot("StringBytes").Call(),
			jen.If(jen.Err().Op("!=").Nil()).Block(readErr(jen.Err())),
			jen.Switch(jen.String().Parens(jen.Id("b"))).Block(cases...),
		}
	}
	var store []jen.Code
	switch t.Kind {
	case kEnum:
		// The enum goes after a const, before the rest.
		n := 0
		if s.Get("const") != nil {
			n = 1
		}
		checks = slices.Insert(checks, n, enumCheck)
		store = assignConst(ctx, dst, jen.Id(t.Name).Parens(jen.Id("s")))
	case kTime:
		store = []jen.Code{
			jen.Var().Id("v").Qual("time", "Time"),
			jen.If(jen.Err().Op(":=").Id("v").Dot("UnmarshalText").Call(jen.Index().Byte().Parens(jen.Id("s"))), jen.Err().Op("!=").Nil()).Block(
				rt("Late", jen.Id("late"), rt("ArgNotFit", ctx.ptr, jen.Id("s"), jen.Lit("time.Time"))),
			).Else().Block(assign(ctx, dst, jen.Id("v"))),
		}
	default:
		store = []jen.Code{assign(ctx, dst, jen.Id("s"))}
	}
	out := []jen.Code{
		jen.List(jen.Id("s"), jen.Err()).Op(":=").Id("d").Dot("String").Call(),
		jen.If(jen.Err().Op("!=").Nil()).Block(readErr(jen.Err())),
	}
	out = append(out, checks...)
	return append(out, store...)
}

// formatAsserted reports whether the general validator asserts a format;
// it ignores the others.
func formatAsserted(f string) bool {
	switch f {
	case "json-pointer", "relative-json-pointer", "uuid", "duration", "period", "ipv4", "ipv6",
		"hostname", "email", "date", "time", "date-time", "uri", "iri", "uri-reference",
		"iri-reference", "uri-template", "semver", "regex":
		return true
	}
	return false
}

func (g *vgen) readSlice(ctx valueCtx, s *catalog.Node, dst *jen.Statement, readErr func(jen.Code) jen.Code) []jen.Code {
	t := ctx.typ
	g.depth++
	depth := g.depth
	i, ep, list := "i", "ep", "list"
	if depth > 1 {
		i, ep, list = fmt.Sprintf("i%d", depth), fmt.Sprintf("ep%d", depth), fmt.Sprintf("list%d", depth)
	}
	elem := valueCtx{
		schema:   s.Get("items"),
		typ:      t.Elem,
		ptr:      jen.Id(ctx.path).Dot("Elem").Call(jen.Id(i)),
		at:       jen.Id(ctx.path).Dot("Index").Call(jen.Id(i)),
		base:     ctx.base + "Item",
		defaults: jen.False(),
	}
	unique := false
	if u := s.Get("uniqueItems"); u != nil && u.Kind == catalog.Bool && u.Bool {
		unique = true
	}
	// Numbers are compared as the general validator compares them: by
	// their exact values, also those the Go type cannot hold.
	floats := ""
	if unique && (t.Elem.Kind == kInt || t.Elem.Kind == kFloat) {
		floats = "floats"
		if depth > 1 {
			floats = fmt.Sprintf("floats%d", depth)
		}
		elem.shadow = floats
	}
	var elemBody []jen.Code
	used := false
	if needsPath(t.Elem) {
		elem.path, elem.ptr, elem.pathUsed = ep, jen.Id(ep).Dot("String").Call(), &used
	}
	elemBody = append(elemBody, jen.Var().Id("item").Add(typeExpr(t.Elem)))
	elemBody = append(elemBody, g.value(elem, jen.Id("item"))...)
	if used {
		elemBody = append([]jen.Code{jen.Id(ep).Op(":=").Id(ctx.path).Dot("Index").Call(jen.Id(i))}, elemBody...)
	}
	elemBody = append(elemBody, jen.Id(list).Op("=").Append(jen.Id(list), jen.Id("item")))
	out := []jen.Code{
		jen.If(jen.Err().Op(":=").Id("d").Dot("BeginArray").Call(), jen.Err().Op("!=").Nil()).Block(readErr(jen.Err())),
		jen.Id(list).Op(":=").Add(typeExpr(t)).Values(),
	}
	if floats != "" {
		out = append(out, jen.Var().Id(floats).Index().String())
	}
	out = append(out,
		jen.For(jen.Id(i).Op(":=").Lit(0), jen.Empty(), jen.Id(i).Op("++")).Block(
			jen.List(jen.Id("more"), jen.Err()).Op(":=").Id("d").Dot("NextElem").Call(),
			jen.If(jen.Err().Op("!=").Nil()).Block(ret(rt("ArgSyntax", jen.Err()))),
			jen.If(jen.Op("!").Id("more")).Block(jen.Break()),
			jen.Block(elemBody...),
		),
	)
	g.depth = depth - 1
	if mn, mx := limits(s, "minItems", "maxItems"); mn >= 0 || mx >= 0 {
		out = append(out, jen.If(outside(jen.Len(jen.Id(list)), mn, mx)).Block(ret(rt("ArgItems", jen.Id(ctx.path).Dot("String").Call(), jen.Len(jen.Id(list)), jen.Lit(mn), jen.Lit(mx)))))
	}
	if unique {
		compared := list
		if floats != "" {
			compared = floats
		}
		out = append(out, jen.If(jen.List(jen.Id("j"), jen.Id("k"), jen.Id("dup")).Op(":=").Qual(runtimePkg, "Duplicate").Call(jen.Id(compared)), jen.Id("dup")).Block(
			ret(rt("ArgNotUnique", jen.Id(ctx.path).Dot("String").Call(), jen.Id("j"), jen.Id("k"), jen.Id(list)))))
	}
	return append(out, assign(ctx, dst, jen.Id(list)))
}

func (g *vgen) readMap(ctx valueCtx, s *catalog.Node, dst *jen.Statement, readErr func(jen.Code) jen.Code) []jen.Code {
	t := ctx.typ
	g.depth++
	depth := g.depth
	ep, m := "ep", "m"
	if depth > 1 {
		ep, m = fmt.Sprintf("ep%d", depth), fmt.Sprintf("m%d", depth)
	}
	closed := isClosed(s)
	var member []jen.Code
	if closed {
		// No member is allowed: report the first name in order.
		member = []jen.Code{
			jen.If(jen.Op("!").Id("hasUnknown").Op("||").String().Parens(jen.Id("key")).Op("<").Id("unknown")).Block(
				jen.List(jen.Id("unknown"), jen.Id("hasUnknown")).Op("=").List(jen.String().Parens(jen.Id("key")), jen.True()),
			),
			jen.If(jen.Err().Op(":=").Id("d").Dot("Skip").Call(), jen.Err().Op("!=").Nil()).Block(ret(rt("ArgSyntax", jen.Err()))),
		}
	} else {
		var ap *catalog.Node
		if a := s.Get("additionalProperties"); a != nil && a.Kind == catalog.Object {
			ap = a
		}
		elem := valueCtx{
			schema:   ap,
			typ:      t.Elem,
			ptr:      jen.Id(ctx.path).Dot("Field").Call(jen.Id("k")),
			at:       jen.Id(ctx.path).Dot("Key").Call(jen.Id("k")),
			base:     ctx.base + "Value",
			defaults: jen.False(),
		}
		used := false
		if needsPath(t.Elem) {
			elem.path, elem.ptr, elem.pathUsed = ep, jen.Id(ep).Dot("String").Call(), &used
		}
		member = append(member, jen.Var().Id("item").Add(typeExpr(t.Elem)))
		member = append(member, g.value(elem, jen.Id("item"))...)
		if used {
			member = append([]jen.Code{jen.Id(ep).Op(":=").Id(ctx.path).Dot("Key").Call(jen.Id("k"))}, member...)
		}
		member = append([]jen.Code{jen.Id("k").Op(":=").String().Parens(jen.Id("key"))}, member...)
		member = append(member, jen.Id(m).Index(jen.Id("k")).Op("=").Id("item"))
	}
	g.depth = depth - 1
	out := []jen.Code{
		jen.If(jen.Err().Op(":=").Id("d").Dot("BeginObject").Call(), jen.Err().Op("!=").Nil()).Block(readErr(jen.Err())),
		jen.Id(m).Op(":=").Add(typeExpr(t)).Values(),
	}
	if closed {
		out = append(out, jen.Var().Id("unknown").String(), jen.Var().Id("hasUnknown").Bool())
	}
	out = append(out, jen.For().Block(
		jen.List(jen.Id("key"), jen.Id("more"), jen.Err()).Op(":=").Id("d").Dot("NextKey").Call(),
		jen.If(jen.Err().Op("!=").Nil()).Block(ret(rt("ArgSyntax", jen.Err()))),
		jen.If(jen.Op("!").Id("more")).Block(jen.Break()),
		jen.Block(member...),
	))
	if closed {
		out = append(out, jen.If(jen.Id("hasUnknown")).Block(
			ret(rt("ArgUnknown", jen.Id(ctx.path).Dot("String").Call(), jen.Id("unknown"), jen.Index().String().Values()))))
	}
	return append(out, assign(ctx, dst, jen.Id(m)))
}
