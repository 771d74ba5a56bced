package gen

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/dave/jennifer/jen"
	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/runtime/jsonscan"
)

// The one-pass validator as Go code (code mode). It decodes the raw JSON
// with a jsonscan.Decoder straight into the Args struct and checks the
// schema as it goes: one function per struct type (scan<Type>), which
// runtime.OnePass drives. What depends on the tool is generated (which
// member goes to which field, the schema of each value as a package
// variable); reading and checking a value is a call into the runtime's
// readers (runtime.ReadString...), and values they do not cover get code
// of their own. Errors come from the runtime's Arg* helpers, so they read
// as the general validator's.

// planCode plans m's one-pass code: which values a runtime reader reads,
// and the package variables and scan functions the code declares, whose
// names it asks for in the order they are declared.
func (m *vModel) planCode() {
	p := &codePlan{m: m, allowed: map[*catalog.Node]*vDecl{}}
	p.object(m.args)
}

// codePlan plans the code of one validator.
type codePlan struct {
	m *vModel
	// allowed are the variables of the values an enum or const allows,
	// by the schema that has them: values of one schema share one.
	allowed map[*catalog.Node]*vDecl
}

// decl declares a package variable named like base.
func (p *codePlan) decl(base string, value any) *vDecl {
	d := &vDecl{value: value}
	p.m.ask(lowerIdent(base), &d.name)
	p.m.decls = append(p.m.decls, d)
	return d
}

// object plans the scan function of o, once: its runtime.Object, the
// reading of each field, then the defaults decoded from JSON.
func (p *codePlan) object(o *vObject) {
	if o.planned {
		return
	}
	o.planned = true
	p.m.ask("scan"+o.typ.Name, &o.scan)
	o.objectVar = p.decl(o.typ.Name+"Object", o.obj)
	for _, f := range o.fields {
		p.value(f.val)
	}
	for _, f := range o.fields {
		if f.fd.Default != nil && !literalDefault(f.fd.Type) {
			f.defaultVar = p.decl(o.typ.Name+f.fd.Name+"Default", rawBytes(defaultJSON(f.fd.Default)))
		}
	}
	p.m.objects = append(p.m.objects, o)
}

// value plans the reading of v, and of the null it refuses.
func (p *codePlan) value(v *vValue) {
	p.read(v)
	if v.refuseNull {
		p.allowedVar(v)
	}
}

// read plans the reading of a non-null v: a runtime reader's call, or
// code of its own, with the variables each check uses, in the general
// validator's order of checks.
func (p *codePlan) read(v *vValue) {
	if readable(v) {
		p.readCall(v)
		return
	}
	switch v.typ.Kind {
	case kBool:
		if !v.typed || v.hasConst {
			p.allowedVar(v)
		}
	case kInt, kFloat:
		if v.bounds != nil {
			v.boundsVar = p.decl(v.base+"Bounds", *v.bounds)
		}
		if v.multipleOf != "" {
			v.multipleVar = p.decl(v.base+"Multiple", newMultiple(v.multipleOf))
		}
		if !v.typed || v.hasConst || (v.hasEnum && v.typ.Kind == kInt) {
			p.allowedVar(v)
		}
	case kString, kEnum, kTime:
		if v.hasConst || v.typ.Kind == kEnum {
			p.allowedVar(v)
		}
		if v.format != "" {
			v.formatVar = p.decl(v.base+"Format", formatChecker(v.format))
		}
		if v.hasPattern {
			v.patternVar = p.decl(v.base+"Pattern", mustCompile(v.pattern))
		}
		if !v.typed {
			p.allowedVar(v)
		}
	case kStruct:
		p.object(v.obj)
		if !v.typed {
			p.allowedVar(v)
		}
	case kSlice, kMap:
		if v.item != nil {
			p.value(v.item)
		}
		if !v.typed {
			p.allowedVar(v)
		}
	}
}

// readCall plans the call of the runtime reader of v.
func (p *codePlan) readCall(v *vValue) {
	v.reader = true
	switch v.typ.Kind {
	case kStruct:
		p.object(v.obj)
	case kSlice:
		p.readCall(v.item)
		if a := v.arraySchema(); a != nil {
			v.spec = p.decl(v.base+"List", *a)
		}
	case kInt, kFloat:
		if n := v.numberSchema(); n != nil {
			v.spec = p.decl(v.base+"Schema", *n)
		}
	case kString, kEnum, kTime:
		if s := v.stringSchema(); s != nil {
			v.spec = p.decl(v.base+"Schema", *s)
		}
	}
}

// allowedVar declares the values v's enum or const allows, once for its
// schema.
func (p *codePlan) allowedVar(v *vValue) {
	if d, ok := p.allowed[v.s]; ok {
		v.allowedVar = d
		return
	}
	v.allowedVar = p.decl(v.base+"Allowed", v.allowed)
	p.allowed[v.s] = v.allowedVar
}

// readable reports whether a runtime reader reads v in one call: an
// object, a list of what a reader reads, or a scalar whose schema needs
// no more than a reader checks (no const, no numbers compared for
// uniqueItems).
func readable(v *vValue) bool {
	switch v.typ.Kind {
	case kStruct:
		return v.typed && !v.typ.Recursive
	case kSlice:
		it := v.item
		return !v.pointer && v.typed && !v.unique && !it.nullable && it.s != nil && readable(it)
	case kBool, kInt, kFloat, kString, kEnum, kTime:
		return !v.hasConst && !v.shadow
	}
	return false
}

// literalDefault reports whether generated code assigns a default of
// type t as a Go literal; the others it decodes from their JSON.
func literalDefault(t *goType) bool {
	switch t.Kind {
	case kBool, kString, kEnum, kInt, kFloat:
		return true
	}
	return false
}

// genCodeValidator emits the one-pass validator m describes.
func genCodeValidator(f *jen.File, t *toolModel, m *vModel) {
	f.Add(comment(t.validatorFn + " returns the validator of " + t.t.Name + "'s arguments,\ngenerated from its schema: it decodes them into " + t.args.Name + " and\nchecks them in one pass."))
	f.Func().Id(t.validatorFn).Params(jen.Op("*").Qual(runtimePkg, "Meta")).Params(jen.Qual(runtimePkg, "Validator"), jen.Error()).Block(
		jen.Return(rt("OnePass", jen.Op("&").Id(m.args.objectVar.name), jen.Id(m.args.scan)), jen.Nil()),
	)
	if len(m.decls) > 0 {
		defs := make([]jen.Code, len(m.decls))
		for i, d := range m.decls {
			defs[i] = jen.Id(d.name).Op("=").Add(litCode(d.value))
		}
		f.Comment("The schemas " + t.validatorFn + " checks the arguments against.")
		f.Var().Defs(defs...)
	}
	g := &codeGen{}
	for _, o := range m.objects {
		f.Add(g.structFunc(o))
	}
}

// codeGen emits the scan functions of one validator.
type codeGen struct {
	// depth numbers the variables of nested blocks.
	depth int
}

// structFunc emits scan<Type>, which reads the members of an object whose
// '{' d has consumed into out. With defaults, it applies the schema's
// defaults to absent members, as the general validator does along
// properties from the top.
func (g *codeGen) structFunc(o *vObject) jen.Code {
	t := o.typ
	body := []jen.Code{jen.Op("*").Id("out").Op("=").Id(t.Name).Values()}
	seen := jen.Lit(0)
	if o.bits > 0 {
		body = append(body, jen.Var().Id("seen").Uint64())
		seen = jen.Id("seen")
	}
	var cases []jen.Code
	for _, f := range o.fields {
		var stmts []jen.Code
		if f.seen >= 0 {
			stmts = append(stmts, jen.Id("seen").Op("|=").Lit(1).Op("<<").Lit(f.seen))
		}
		g.depth = 0
		stmts = append(stmts, g.field(f)...)
		cases = append(cases, jen.Case(jen.Lit(f.fd.JSON)).Block(stmts...))
	}
	cases = append(cases, jen.Default().Block(jen.Id("te").Op("=").Id("ms").Dot("Skip").Call()))
	body = append(body,
		jen.Id("ms").Op(":=").Id(o.objectVar.name).Dot("Members").Call(jen.Id("d"), jen.Id("at")),
		jen.For(jen.Id("ms").Dot("Next").Call()).Block(
			jen.Var().Id("te").Op("*").Qual(runtimePkg, "ToolError"),
			jen.Switch(jen.String().Parens(jen.Id("ms").Dot("Key"))).Block(cases...),
			jen.If(jen.Id("te").Op("!=").Nil()).Block(jen.Return(jen.Id("te"))),
		),
	)
	var defaults []jen.Code
	for _, f := range o.fields {
		if f.fd.Default == nil {
			continue
		}
		defaults = append(defaults, jen.If(jen.Id("seen").Op("&").Parens(jen.Lit(1).Op("<<").Lit(f.seen)).Op("==").Lit(0)).Block(setDefault(f)...))
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
	doc := o.scan + " reads the members of " + t.Name + " into out; d has read its '{'."
	return jen.Comment(doc).Line().Func().Id(o.scan).Params(
		jen.Id("d").Op("*").Qual(jsonscanPkg, "Decoder"),
		jen.Id("at").Op("*").Qual(runtimePkg, "Path"),
		jen.Id("out").Op("*").Id(t.Name),
		jen.Id("defaults").Bool(),
		jen.Id("late").Op("**").Qual(runtimePkg, "ToolError"),
	).Op("*").Qual(runtimePkg, "ToolError").Block(body...)
}

// ifErr returns from the enclosing scan function when call, which returns
// a *runtime.ToolError, reports one.
func ifErr(call jen.Code) jen.Code {
	return jen.If(jen.Id("te").Op(":=").Add(call), jen.Id("te").Op("!=").Nil()).Block(jen.Return(jen.Id("te")))
}

// setDefault assigns the default of an absent field.
func setDefault(f *vField) []jen.Code {
	fd := f.fd
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
	name := f.defaultVar.name
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

// valueCtx is where a value is read: the value, how its JSON pointer is
// written on error, and the path variable of containers.
type valueCtx struct {
	v    *vValue
	ptr  jen.Code // expression of the JSON pointer, evaluated on error only
	at   jen.Code // expression of the value's runtime.Path
	addr jen.Code // expression of the destination's address; nil: &dst
	path string   // name of a runtime.Path variable of the value, for containers
	// pathUsed, when not nil, is set when the code uses path, which the
	// caller then declares.
	pathUsed *bool
	defaults jen.Code // passed to nested scans
	// shadow names a []string that the exact values of numbers are
	// appended to as well (runtime.NumberKey): uniqueItems compares those.
	shadow string
}

// field emits the reading of one property.
func (g *codeGen) field(f *vField) []jen.Code {
	fd := f.fd
	ctx := valueCtx{
		v:   f.val,
		ptr: jen.Id("at").Dot("Field").Call(jen.Lit(fd.JSON)),
		at:  jen.Id("at").Dot("Key").Call(jen.Lit(fd.JSON)),
	}
	ctx.defaults = jen.False()
	if f.val.defaults {
		ctx.defaults = jen.Id("defaults")
	}
	dst := jen.Id("out").Dot(fd.Name)
	if !f.val.nullable && f.val.reader {
		return []jen.Code{jen.Id("te").Op("=").Add(g.readCall(ctx, dst))}
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

// value emits the reading of the next value of d into dst.
func (g *codeGen) value(ctx valueCtx, dst *jen.Statement) []jen.Code {
	v := ctx.v
	read := g.read(ctx, dst)
	if !v.nullable {
		return read
	}
	var zero jen.Code = jen.Nil()
	if !v.pointer {
		zero = zeroOf(v.typ)
	}
	onNull := []jen.Code{
		jen.If(jen.Err().Op(":=").Id("d").Dot("Null").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Qual(runtimePkg, "ArgSyntax").Call(jen.Err()))),
		dst.Clone().Op("=").Add(zero),
	}
	if v.refuseNull {
		// type [T, "null"] lets null through, its enum or const does not.
		onNull = []jen.Code{ret(rt("ArgNotInEnum", ctx.ptr, jen.Nil(), jen.Id(v.allowedVar.name)))}
	}
	return []jen.Code{
		jen.If(jen.Id("d").Dot("Peek").Call().Op("==").Qual(jsonscanPkg, "Null")).Block(onNull...).Else().Block(read...),
	}
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
	if ctx.v.pointer {
		return dst.Clone().Op("=").Op("&").Add(v)
	}
	return dst.Clone().Op("=").Add(v)
}

// assignConst stores the value of an expression that is not addressable.
func assignConst(ctx valueCtx, dst *jen.Statement, v jen.Code) []jen.Code {
	if ctx.v.pointer {
		return []jen.Code{jen.Id("v").Op(":=").Add(v), dst.Clone().Op("=").Op("&").Id("v")}
	}
	return []jen.Code{dst.Clone().Op("=").Add(v)}
}

func ret(call jen.Code) jen.Code { return jen.Return(call) }

func rt(name string, args ...jen.Code) *jen.Statement {
	return jen.Qual(runtimePkg, name).Call(args...)
}

// varName is the name of a package variable of the validator, "" for
// none.
func varName(d *vDecl) string {
	if d == nil {
		return ""
	}
	return d.name
}

// read emits the reading of a non-null value.
func (g *codeGen) read(ctx valueCtx, dst *jen.Statement) []jen.Code {
	v := ctx.v
	if v.reader {
		return []jen.Code{ifErr(g.readCall(ctx, dst))}
	}
	if ctx.pathUsed != nil {
		*ctx.pathUsed = true
	}
	readErr := func(errExpr jen.Code) jen.Code {
		if !v.typed {
			return ret(rt("ArgEnumRead", ctx.ptr, errExpr, jen.Id(v.allowedVar.name)))
		}
		return ret(rt("ArgRead", ctx.ptr, jen.Lit(v.want), errExpr))
	}
	switch v.typ.Kind {
	case kBool:
		out := []jen.Code{
			jen.List(jen.Id("v"), jen.Err()).Op(":=").Id("d").Dot("Bool").Call(),
			jen.If(jen.Err().Op("!=").Nil()).Block(readErr(jen.Err())),
		}
		if v.hasConst {
			out = append(out, jen.If(jen.Id("v").Op("!=").Lit(v.constant.Bool)).Block(
				ret(rt("ArgNotInEnum", ctx.ptr, jen.Id("v"), jen.Id(v.allowedVar.name)))))
		}
		return append(out, assign(ctx, dst, jen.Id("v")))
	case kInt:
		return g.readInt(ctx, dst, readErr)
	case kFloat:
		return g.readFloat(ctx, dst, readErr)
	case kString, kEnum, kTime:
		return g.readString(ctx, dst, readErr)
	case kStruct:
		addr := jen.Op("&").Add(dst.Clone())
		var pre []jen.Code
		if v.pointer {
			pre = []jen.Code{jen.Id("v").Op(":=").New(jen.Id(v.typ.Name)), dst.Clone().Op("=").Id("v")}
			addr = jen.Id("v")
		}
		return append(pre,
			jen.If(jen.Err().Op(":=").Id("d").Dot("BeginObject").Call(), jen.Err().Op("!=").Nil()).Block(readErr(jen.Err())),
			jen.If(jen.Id("te").Op(":=").Id(v.obj.scan).Call(jen.Id("d"), jen.Op("&").Id(ctx.path), addr, ctx.defaults, jen.Id("late")), jen.Id("te").Op("!=").Nil()).Block(jen.Return(jen.Id("te"))),
		)
	case kSlice:
		return g.readSlice(ctx, dst, readErr)
	case kMap:
		return g.readMap(ctx, dst, readErr)
	}
	// Any JSON value.
	return []jen.Code{
		jen.List(jen.Id("v"), jen.Id("te")).Op(":=").Add(rt("ReadAny", jen.Id("d"), ctx.at, jen.Id("late"))),
		jen.If(jen.Id("te").Op("!=").Nil()).Block(jen.Return(jen.Id("te"))),
		assign(ctx, dst, jen.Id("v")),
	}
}

// readCall returns the call of the runtime reader of a value (see
// runtime.ReadString, ReadObject, ReadList...).
func (g *codeGen) readCall(ctx valueCtx, dst *jen.Statement) jen.Code {
	v := ctx.v
	switch v.typ.Kind {
	case kStruct:
		name := "ReadObject"
		if v.pointer {
			name = "ReadObjectPtr"
		}
		return rt(name, jen.Id("d"), ctx.at, jen.Lit(v.want), g.addr(ctx, dst), ctx.defaults, jen.Id("late"), jen.Id(v.obj.scan))
	case kSlice:
		return g.readList(ctx, dst)
	}
	return g.readScalar(ctx, dst)
}

// addr is the address of a value's destination.
func (g *codeGen) addr(ctx valueCtx, dst *jen.Statement) jen.Code {
	if ctx.addr != nil {
		return ctx.addr
	}
	return jen.Op("&").Add(dst.Clone())
}

// specArg is the address of the schema variable d a reader checks with,
// nil for none.
func specArg(d *vDecl) jen.Code {
	if d == nil {
		return jen.Nil()
	}
	return jen.Op("&").Id(d.name)
}

// readList returns the runtime.ReadList call of an array whose items a
// reader call reads.
func (g *codeGen) readList(ctx valueCtx, dst *jen.Statement) jen.Code {
	v := ctx.v
	elem := valueCtx{
		v:        v.item,
		at:       jen.Id("p"),
		addr:     jen.Id("v"),
		defaults: jen.False(),
	}
	call := g.readCall(elem, jen.Op("*").Id("v"))
	item := jen.Func().Params(
		jen.Id("d").Op("*").Qual(jsonscanPkg, "Decoder"),
		jen.Id("p").Qual(runtimePkg, "Path"),
		jen.Id("v").Op("*").Add(typeExpr(v.typ.Elem)),
	).Op("*").Qual(runtimePkg, "ToolError").Block(jen.Return(call))
	return rt("ReadList", jen.Id("d"), ctx.at, specArg(v.spec), g.addr(ctx, dst), item)
}

// readScalar returns the call of the runtime reader of a boolean, number
// or string value (runtime.ReadString...).
func (g *codeGen) readScalar(ctx valueCtx, dst *jen.Statement) jen.Code {
	v := ctx.v
	t := v.typ
	var name string
	spec := specArg(v.spec)
	switch t.Kind {
	case kBool:
		name = "ReadBool"
		spec = jen.Lit(v.want)
	case kInt:
		name = "ReadInt"
	case kFloat:
		name = "ReadFloat"
	case kString, kEnum:
		name = "ReadString"
	case kTime:
		name = "ReadTime"
	}
	if v.pointer {
		name += "Ptr"
	}
	args := []jen.Code{jen.Id("d"), ctx.at, spec, g.addr(ctx, dst)}
	if t.Kind == kInt || t.Kind == kFloat || t.Kind == kTime {
		args = append(args, jen.Id("late"))
	}
	return rt(name, args...)
}

func (g *codeGen) readInt(ctx valueCtx, dst *jen.Statement, readErr func(jen.Code) jen.Code) []jen.Code {
	v := ctx.v
	bounds, mult := varName(v.boundsVar), varName(v.multipleVar)
	n := jen.Id("n")
	// In the general validator's order: const, enum, then the bounds; all
	// exact.
	var checks []jen.Code
	if v.hasConst {
		checks = append(checks, jen.If(jen.Id("n").Op("!=").Lit(v.constInt())).Block(ret(rt("ArgNotInEnum", ctx.ptr, n.Clone(), jen.Id(v.allowedVar.name)))))
	}
	if v.hasEnum {
		checks = append(checks, jen.Switch(jen.Id("n")).Block(
			jen.Case(lits(v.enumInts)...),
			jen.Default().Block(ret(rt("ArgNotInEnum", ctx.ptr, n.Clone(), jen.Id(v.allowedVar.name)))),
		))
	}
	if bounds != "" {
		checks = append(checks, jen.If(jen.Op("!").Id(bounds).Dot("CheckInt").Call(n.Clone())).Block(ret(rt("ArgIntOutOfRange", ctx.ptr, n.Clone(), jen.Id(bounds)))))
	}
	if mult != "" {
		checks = append(checks, jen.If(jen.Op("!").Id(mult).Dot("Int").Call(jen.Id("n"))).Block(ret(rt("ArgIntNotMultiple", ctx.ptr, n.Clone(), jen.Id(mult)))))
	}
	var onErr jen.Code
	if !v.typed {
		onErr = readErr(jen.Err())
	} else {
		bArg, mArg := jen.Nil(), jen.Nil()
		enumerated := v.hasEnum || v.hasConst
		if bounds != "" && !enumerated {
			bArg = jen.Op("&").Id(bounds)
		}
		if mult != "" && !enumerated {
			mArg = jen.Id(mult)
		}
		onErr = jen.If(jen.Id("te").Op(":=").Qual(runtimePkg, "ArgInt").Call(ctx.ptr, jen.Lit(v.want), jen.Err(), bArg, mArg, jen.Id("late")), jen.Id("te").Op("!=").Nil()).Block(jen.Return(jen.Id("te")))
		switch {
		case enumerated:
			// No allowed value is beyond int64.
			onErr = jen.Add(onErr).Line().Return(rt("ArgNotInEnum", ctx.ptr, rt("OverflowNumber", jen.Err()), jen.Id(v.allowedVar.name)))
		case ctx.shadow != "":
			onErr = jen.Add(onErr).Line().Id(ctx.shadow).Op("=").Append(jen.Id(ctx.shadow), rt("OverflowKey", jen.Err()))
		}
	}
	if ctx.shadow != "" {
		checks = append(checks, jen.Id(ctx.shadow).Op("=").Append(jen.Id(ctx.shadow), rt("IntKey", n.Clone())))
	}
	var store []jen.Code
	if v.typ.Bits == 32 {
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

func (g *codeGen) readFloat(ctx valueCtx, dst *jen.Statement, readErr func(jen.Code) jen.Code) []jen.Code {
	v := ctx.v
	bounds, mult := varName(v.boundsVar), varName(v.multipleVar)
	out := []jen.Code{
		jen.List(jen.Id("num"), jen.Id("f"), jen.Err()).Op(":=").Qual(runtimePkg, "ReadNumber").Call(jen.Id("d")),
		jen.If(jen.Err().Op("!=").Nil()).Block(readErr(jen.Err())),
	}
	// In the general validator's order: const, then the bounds; all
	// exact, on the number as written.
	if v.hasConst {
		out = append(out, jen.If(jen.Op("!").Qual(runtimePkg, "NumberIs").Call(jen.Id("num"), jen.Id("f"), jen.Lit(v.constFloat()))).Block(ret(rt("ArgNotInEnum", ctx.ptr, rt("NumberValue", jen.Id("num")), jen.Id(v.allowedVar.name)))))
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
	if v.typ.Bits == 32 {
		goType = "float32"
	}
	out = append(out, jen.If(jen.Qual("math", "IsInf").Call(jen.Id("f"), jen.Lit(0))).Block(
		rt("Late", jen.Id("late"), rt("ArgNotFit", ctx.ptr, rt("NumberValue", jen.Id("num")), jen.Lit(goType))),
	))
	if v.typ.Bits == 32 {
		return append(out,
			jen.If(jen.List(jen.Id("v"), jen.Id("ok")).Op(":=").Qual(runtimePkg, "Float32").Call(jen.Id("f")), jen.Op("!").Id("ok")).Block(
				rt("Late", jen.Id("late"), rt("ArgNotFit", ctx.ptr, rt("NumberValue", jen.Id("num")), jen.Lit("float32"))),
			).Else().Block(assign(ctx, dst, jen.Id("v"))))
	}
	return append(out, assign(ctx, dst, jen.Id("f")))
}

func (g *codeGen) readString(ctx valueCtx, dst *jen.Statement, readErr func(jen.Code) jen.Code) []jen.Code {
	v := ctx.v
	t := v.typ
	// In the general validator's order: const, enum and format, which it
	// reports alone, then the length and the pattern.
	var checks []jen.Code
	if v.hasConst {
		checks = append(checks, jen.If(jen.Id("s").Op("!=").Lit(v.constant.Str)).Block(
			ret(rt("ArgNotInEnum", ctx.ptr, jen.Id("s"), jen.Id(v.allowedVar.name)))))
	}
	var enumCheck jen.Code
	if t.Kind == kEnum {
		enumCheck = jen.Switch(jen.Id("s")).Block(
			jen.Case(lits(enumStrings(t))...),
			jen.Default().Block(ret(rt("ArgNotInEnum", ctx.ptr, jen.Id("s"), jen.Id(v.allowedVar.name)))),
		)
	}
	if v.format != "" {
		checks = append(checks, jen.If(jen.Op("!").Id(v.formatVar.name).Call(jen.Id("s"))).Block(
			ret(rt("ArgFormat", ctx.ptr, jen.Id("s"), jen.Lit(v.format)))))
	}
	if mn, mx := v.minLen, v.maxLen; mn >= 0 || mx >= 0 {
		checks = append(checks, jen.If(jen.Id("n").Op(":=").Qual("unicode/utf8", "RuneCountInString").Call(jen.Id("s")), outside(jen.Id("n"), mn, mx)).Block(
			ret(rt("ArgLength", ctx.ptr, jen.Id("s"), jen.Lit(mn), jen.Lit(mx)))))
	}
	if v.hasPattern {
		checks = append(checks, jen.If(jen.Op("!").Id(v.patternVar.name).Dot("MatchString").Call(jen.Id("s"))).Block(
			ret(rt("ArgPattern", ctx.ptr, jen.Id("s"), jen.Lit(v.pattern)))))
	}
	if t.Kind == kEnum && len(checks) == 0 {
		// Only the enum to check: compare the bytes, store the constant.
		var cases []jen.Code
		for _, e := range t.Values {
			cases = append(cases, jen.Case(jen.Lit(e.Value)).Block(assignConst(ctx, dst, jen.Id(e.Name))...))
		}
		cases = append(cases, jen.Default().Block(ret(rt("ArgNotInEnum", ctx.ptr, jen.String().Parens(jen.Id("b")), jen.Id(v.allowedVar.name)))))
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
		if v.hasConst {
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

func lits[T any](vs []T) []jen.Code {
	out := make([]jen.Code, len(vs))
	for i, v := range vs {
		out[i] = jen.Lit(v)
	}
	return out
}

func (g *codeGen) readSlice(ctx valueCtx, dst *jen.Statement, readErr func(jen.Code) jen.Code) []jen.Code {
	v := ctx.v
	t := v.typ
	g.depth++
	depth := g.depth
	i, ep, list := "i", "ep", "list"
	if depth > 1 {
		i, ep, list = fmt.Sprintf("i%d", depth), fmt.Sprintf("ep%d", depth), fmt.Sprintf("list%d", depth)
	}
	elem := valueCtx{
		v:        v.item,
		ptr:      jen.Id(ctx.path).Dot("Elem").Call(jen.Id(i)),
		at:       jen.Id(ctx.path).Dot("Index").Call(jen.Id(i)),
		defaults: jen.False(),
	}
	// Numbers are compared as the general validator compares them: by
	// their exact values, also those the Go type cannot hold.
	floats := ""
	if v.item.shadow {
		floats = "floats"
		if depth > 1 {
			floats = fmt.Sprintf("floats%d", depth)
		}
		elem.shadow = floats
	}
	elemBody := g.item(elem, ep, jen.Id(ctx.path).Dot("Index").Call(jen.Id(i)))
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
	if mn, mx := v.minItems, v.maxItems; mn >= 0 || mx >= 0 {
		out = append(out, jen.If(outside(jen.Len(jen.Id(list)), mn, mx)).Block(ret(rt("ArgItems", jen.Id(ctx.path).Dot("String").Call(), jen.Len(jen.Id(list)), jen.Lit(mn), jen.Lit(mx)))))
	}
	if v.unique {
		compared := list
		if floats != "" {
			compared = floats
		}
		out = append(out, jen.If(jen.List(jen.Id("j"), jen.Id("k"), jen.Id("dup")).Op(":=").Qual(runtimePkg, "Duplicate").Call(jen.Id(compared)), jen.Id("dup")).Block(
			ret(rt("ArgNotUnique", jen.Id(ctx.path).Dot("String").Call(), jen.Id("j"), jen.Id("k"), jen.Id(list)))))
	}
	return append(out, assign(ctx, dst, jen.Id(list)))
}

// item emits the reading of an array's item or a map's value into a
// local item; a container's path is ep, declared as at when the reading
// uses it.
func (g *codeGen) item(elem valueCtx, ep string, at jen.Code) []jen.Code {
	used := false
	if needsPath(elem.v.typ) {
		elem.path, elem.ptr, elem.pathUsed = ep, jen.Id(ep).Dot("String").Call(), &used
	}
	body := append([]jen.Code{jen.Var().Id("item").Add(typeExpr(elem.v.typ))}, g.value(elem, jen.Id("item"))...)
	if used {
		body = append([]jen.Code{jen.Id(ep).Op(":=").Add(at)}, body...)
	}
	return body
}

func (g *codeGen) readMap(ctx valueCtx, dst *jen.Statement, readErr func(jen.Code) jen.Code) []jen.Code {
	v := ctx.v
	t := v.typ
	g.depth++
	depth := g.depth
	ep, m := "ep", "m"
	if depth > 1 {
		ep, m = fmt.Sprintf("ep%d", depth), fmt.Sprintf("m%d", depth)
	}
	var member []jen.Code
	if v.closed {
		// No member is allowed: report the first name in order.
		member = []jen.Code{
			jen.If(jen.Op("!").Id("hasUnknown").Op("||").String().Parens(jen.Id("key")).Op("<").Id("unknown")).Block(
				jen.List(jen.Id("unknown"), jen.Id("hasUnknown")).Op("=").List(jen.String().Parens(jen.Id("key")), jen.True()),
			),
			jen.If(jen.Err().Op(":=").Id("d").Dot("Skip").Call(), jen.Err().Op("!=").Nil()).Block(ret(rt("ArgSyntax", jen.Err()))),
		}
	} else {
		elem := valueCtx{
			v:        v.item,
			ptr:      jen.Id(ctx.path).Dot("Field").Call(jen.Id("k")),
			at:       jen.Id(ctx.path).Dot("Key").Call(jen.Id("k")),
			defaults: jen.False(),
		}
		member = append([]jen.Code{jen.Id("k").Op(":=").String().Parens(jen.Id("key"))}, g.item(elem, ep, jen.Id(ctx.path).Dot("Key").Call(jen.Id("k")))...)
		member = append(member, jen.Id(m).Index(jen.Id("k")).Op("=").Id("item"))
	}
	g.depth = depth - 1
	out := []jen.Code{
		jen.If(jen.Err().Op(":=").Id("d").Dot("BeginObject").Call(), jen.Err().Op("!=").Nil()).Block(readErr(jen.Err())),
		jen.Id(m).Op(":=").Add(typeExpr(t)).Values(),
	}
	if v.closed {
		out = append(out, jen.Var().Id("unknown").String(), jen.Var().Id("hasUnknown").Bool())
	}
	out = append(out, jen.For().Block(
		jen.List(jen.Id("key"), jen.Id("more"), jen.Err()).Op(":=").Id("d").Dot("NextKey").Call(),
		jen.If(jen.Err().Op("!=").Nil()).Block(ret(rt("ArgSyntax", jen.Err()))),
		jen.If(jen.Op("!").Id("more")).Block(jen.Break()),
		jen.Block(member...),
	))
	if v.closed {
		out = append(out, jen.If(jen.Id("hasUnknown")).Block(
			ret(rt("ArgUnknown", jen.Id(ctx.path).Dot("String").Call(), jen.Id("unknown"), jen.Index().String().Values()))))
	}
	return append(out, assign(ctx, dst, jen.Id(m)))
}
