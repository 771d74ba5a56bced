package gen

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/toolcat/toolcat/catalog"
)

// genToolFile emits <tool>_gen.go: the tool's types, interface, error
// constructors, metadata and registration, with the names buildModel gave
// them. The source that follows f's, if any, is returned with it (see
// genDescs).
func genToolFile(m *model, t *toolModel) (*jen.File, []byte, error) {
	f := newFile(m.pkg)
	for _, nt := range t.named {
		genNamedType(f, nt)
	}
	genResultAlias(f, t)
	// In data mode, what follows the types is text (see emit_text.go):
	// genValidator emits nothing through jennifer then. A declaration
	// that cannot be text (see metaText, plainComment) is emitted through
	// jennifer with all before it. In code mode only the binding is text,
	// after the validator.
	var iface, ctors, meta []byte
	text := 0 // how many of the interface, the error constructors and the metadata are text, from the last
	if textFuncs() && t.data {
		var ok bool
		if meta, ok = metaText(nil, t); ok {
			text = 1
			if ctors, ok = errorConstructorsText(nil, t); ok {
				text = 2
				if iface, ok = interfaceText(nil, t); ok {
					text = 3
				}
			}
		}
	}
	var tail []byte
	if text < 3 {
		genInterface(f, t)
	}
	if text < 2 {
		genErrorConstructors(f, t)
	}
	if text < 1 {
		genRenamed(f, t)
		genMeta(f, t)
	}
	if text > 0 {
		tail = append(append(append(iface, ctors...), renamedText(nil, t)...), meta...)
		markImport(f, runtimePkg, "Meta")
		markImport(f, "encoding/json", "RawMessage")
		if t.t.SLAms > 0 {
			markImport(f, "time", "Millisecond")
		}
		if text == 3 {
			markImport(f, "context", "Context")
		}
	}
	descs, err := genValidator(f, t)
	if err != nil {
		return nil, nil, err
	}
	if !textFuncs() {
		genToolBinding(f, t)
		return f, genDescs(f, t, descs), nil
	}
	if len(descs) > 0 {
		tail = dataValidatorText(tail, t, descs[0].name)
	}
	tail = toolBindingText(tail, t)
	return f, append(tail, genDescs(f, t, descs)...), nil
}

// resultExpr is what Execute returns: a pointer to a result struct, or the
// result type itself.
func resultExpr(t *toolModel) *jen.Statement {
	if t.result != nil && t.result.Kind == kStruct {
		return jen.Op("*").Id(t.resultNm)
	}
	return jen.Id(t.resultNm)
}

// genResultAlias names the result when its schema is not an object with
// properties (or absent): an alias of the Go type it maps to.
func genResultAlias(f *jen.File, t *toolModel) {
	if t.result != nil && t.result.Kind == kStruct {
		return
	}
	if t.result == nil {
		f.Comment(t.resultNm + " is what " + t.t.Name + " returns; the catalog gives no result schema.")
		f.Type().Id(t.resultNm).Op("=").Any()
		return
	}
	if t.result.Name == t.resultNm {
		return // an enum or union already named after the result
	}
	f.Comment(t.resultNm + " is what " + t.t.Name + " returns.")
	f.Type().Id(t.resultNm).Op("=").Add(typeExpr(t.result))
}

// genInterface emits the interface users implement.
func genInterface(f *jen.File, t *toolModel) {
	f.Add(comment(interfaceDoc(t)))
	methods := []jen.Code{
		comment("Execute does the work. Return a *runtime.ToolError (see the " + t.iface + "*\nerror constructors) for failures the model should act on."),
		jen.Id("Execute").Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("args").Op("*").Id(t.args.Name)).Params(resultExpr(t), jen.Error()),
	}
	if t.dryRun {
		methods = append(methods,
			jen.Comment("DryRun previews what Execute would do, changing nothing."),
			jen.Id("DryRun").Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("args").Op("*").Id(t.args.Name)).Params(jen.Op("*").Qual(runtimePkg, "Preview"), jen.Error()),
		)
	}
	if t.revert {
		methods = append(methods,
			jen.Comment("Revert undoes a call that returned result."),
			jen.Id("Revert").Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("args").Op("*").Id(t.args.Name), jen.Id("result").Add(resultExpr(t))).Error(),
		)
	}
	f.Type().Id(t.iface).Interface(methods...)
}

// genErrorConstructors emits one constructor per declared error code,
// carrying the catalog's suggestion.
func genErrorConstructors(f *jen.File, t *toolModel) {
	hints := append([]catalog.ErrorHint(nil), t.t.Errors...)
	sort.Slice(hints, func(i, j int) bool { return hints[i].Code < hints[j].Code })
	for _, h := range hints {
		name := t.ctors[h.Code]
		ctor := "NewError"
		doc := fmt.Sprintf("%s returns the %s error of %s", name, h.Code, t.t.Name)
		if h.Suggestion != "" {
			doc += fmt.Sprintf(", with the catalog's suggestion:\n%q", h.Suggestion)
		}
		f.Add(comment(doc + "."))
		call := jen.Qual(runtimePkg, ctor).Call(jen.Qual(runtimePkg, codeConst(h.Code)), jen.Id("message"))
		if h.Suggestion != "" {
			call = call.Dot("WithSuggestion").Call(jen.Lit(h.Suggestion))
		}
		if h.RetryAllowed != nil {
			call = call.Dot("WithRetryAllowed").Call(jen.Lit(*h.RetryAllowed))
		}
		f.Func().Id(name).Params(jen.Id("message").String()).Op("*").Qual(runtimePkg, "ToolError").Block(jen.Return(call))
	}
}

// genRenamed keeps the Go names of a renamed tool's earlier names, as
// deprecated aliases, so that code written against them still compiles.
func genRenamed(f *jen.File, t *toolModel) {
	for _, r := range t.renamed {
		why := r.why(t.t.Name)
		alias := func(old, cur string) {
			if old == "" {
				return
			}
			f.Add(comment(fmt.Sprintf("Deprecated: %s is the Go name of %s %s; use %s.", old, r.from, why, cur)))
			f.Type().Id(old).Op("=").Id(cur)
		}
		alias(r.iface, t.iface)
		for _, p := range r.types {
			alias(p[0], p[1])
		}
		for _, c := range r.consts {
			f.Add(comment(fmt.Sprintf("Deprecated: %s is the Go name of a value of %s %s; use %s.", c[0], r.from, why, c[1])))
			f.Const().Id(c[0]).Id(c[2]).Op("=").Id(c[1])
		}
		for _, code := range slices.Sorted(maps.Keys(r.ctors)) {
			old, cur := r.ctors[code], t.ctors[code]
			f.Add(comment(fmt.Sprintf("Deprecated: %s is the Go name of %s %s; use %s.", old, r.from, why, cur)))
			f.Func().Id(old).Params(jen.Id("message").String()).Op("*").Qual(runtimePkg, "ToolError").Block(jen.Return(jen.Id(cur).Call(jen.Id("message"))))
		}
	}
}

// why says when the kept names were current, for their Deprecated
// comments: before it was renamed name, or before toolcat spelled
// laterInitialisms as initialisms.
func (r *renamedNames) why(name string) string {
	if r.respelled {
		return "before toolcat spelled " + strings.Join(laterSpellings(), " and ") + " as initialisms"
	}
	return "before it was renamed " + name
}

// fieldWhy is why for the comment of a kept Tools field.
func (r *renamedNames) fieldWhy(name string) string {
	if r.respelled {
		return r.why(name)
	}
	return "before " + r.from + " was renamed " + name
}

// codeConst names the runtime constant of an error code.
func codeConst(code string) string { return "Code" + exported(code) }

// genMeta emits the tool's metadata, the Go form of its catalog entry.
func genMeta(f *jen.File, t *toolModel) {
	c := t.t
	d := jen.Dict{
		jen.Id("Name"):           jen.Lit(c.Name),
		jen.Id("Description"):    jen.Lit(c.Description),
		jen.Id("Risk"):           jen.Qual(runtimePkg, "Risk"+exported(string(c.Risk))),
		jen.Id("Exposure"):       jen.Qual(runtimePkg, "Exposure"+exported(c.Exposure)),
		jen.Id("AdditionalArgs"): jen.Qual(runtimePkg, "AdditionalArgs"+exported(c.AdditionalArgs)),
		jen.Id("MinAutonomy"):    jen.Qual(runtimePkg, "Autonomy"+exported(string(c.Autonomy))),
	}
	// The schemas are constants of their own: go/format lays out a
	// composite literal faster when its elements are short.
	var consts []jen.Code
	schema := func(field, name string, n *catalog.Node) {
		consts = append(consts, jen.Id(name).Op("=").Add(rawString(string(n.JSON()))))
		d[jen.Id(field)] = jen.Qual("encoding/json", "RawMessage").Call(jen.Id(name))
	}
	schema("ArgsSchema", t.argsConst, c.Args)
	set := func(key string, v any, ok bool) {
		if ok {
			d[jen.Id(key)] = jen.Lit(v)
		}
	}
	set("OriginalName", c.OriginalName, c.OriginalName != "")
	set("Category", c.Category, c.Category != "")
	set("Version", c.Version, c.Version != "")
	set("Owner", c.Owner, c.Owner != "")
	set("HasSideEffects", true, c.HasSideEffects)
	if c.SideEffect != "" {
		d[jen.Id("SideEffect")] = jen.Qual(runtimePkg, "SideEffect"+exported(c.SideEffect))
	}
	set("Idempotent", true, c.Idempotent)
	set("IdempotencyRequired", true, c.IdempotencyRequired)
	set("IdempotencyKeyArg", true, c.IdempotencyKey == catalog.IdempotencyKeyArgument)
	set("SupportsDryRun", true, c.SupportsDryRun)
	set("Revertible", true, c.Revertible)
	set("ReturnsUntrusted", true, c.ReturnsUntrusted)
	set("CapabilityRequired", c.CapabilityRequired, c.CapabilityRequired != "")
	set("MaxRetries", c.MaxRetries, c.MaxRetries > 0)
	set("MaxResultBytes", c.MaxResultBytes, c.MaxResultBytes > 0)
	set("FallbackTool", c.FallbackTool, c.FallbackTool != "")
	if c.SLAms > 0 {
		d[jen.Id("SLA")] = jen.Lit(c.SLAms).Op("*").Qual("time", "Millisecond")
	}
	if len(c.Dependencies) > 0 {
		deps := make([]jen.Code, len(c.Dependencies))
		for i, dep := range c.Dependencies {
			deps[i] = jen.Lit(dep)
		}
		d[jen.Id("Dependencies")] = jen.Index().String().Values(deps...)
	}
	if len(c.Queries) > 0 {
		qs := make([]jen.Code, len(c.Queries))
		for i, q := range c.Queries {
			qs[i] = jen.Lit(q)
		}
		d[jen.Id("Queries")] = jen.Index().String().Values(qs...)
	}
	if c.Result != nil {
		schema("ResultSchema", t.resultConst, c.Result)
	}
	hints := jen.Dict{}
	for _, h := range c.Errors {
		if h.Suggestion != "" {
			hints[jen.Qual(runtimePkg, codeConst(h.Code))] = jen.Lit(h.Suggestion)
		}
	}
	if len(hints) > 0 {
		d[jen.Id("ErrorHints")] = jen.Map(jen.Qual(runtimePkg, "Code")).String().Values(hints)
	}
	f.Comment("The JSON Schemas of " + c.Name + ", as the catalog gives them.")
	f.Const().Defs(consts...)
	f.Comment(t.metaFn + " is the catalog entry of " + c.Name + ".")
	f.Func().Id(t.metaFn).Params().Qual(runtimePkg, "Meta").Block(
		jen.Return(jen.Qual(runtimePkg, "Meta").Values(d)),
	)
}

// genToolBinding emits the function that binds the tool's implementation
// in the package's Tools to the runtime: runtime.Bind and
// runtime.BindRevert adapt its typed methods. The common file's binding
// table refers to it.
func genToolBinding(f *jen.File, t *toolModel) {
	fields := jen.Dict{
		jen.Id("Meta"):      jen.Id("meta"),
		jen.Id("Validator"): jen.Id("v"),
		jen.Id("Execute"):   jen.Qual(runtimePkg, "Bind").Call(jen.Id("impl").Dot("Execute")),
	}
	if t.dryRun {
		fields[jen.Id("DryRun")] = jen.Qual(runtimePkg, "Bind").Call(jen.Id("impl").Dot("DryRun"))
	}
	if t.revert {
		fields[jen.Id("Revert")] = jen.Qual(runtimePkg, "BindRevert").Call(jen.Id("impl").Dot("Revert"))
	}
	body := []jen.Code{jen.Id("impl").Op(":=").Id("impls").Dot(t.field)}
	for _, r := range t.renamed {
		if r.iface != "" {
			body = append(body, jen.If(jen.Id("impl").Op("==").Nil()).Block(jen.Id("impl").Op("=").Id("impls").Dot(r.iface)))
		}
	}
	body = append(body,
		jen.If(jen.Id("impl").Op("==").Nil()).Block(jen.Return(jen.Qual(runtimePkg, "Tool").Values(), jen.False(), jen.Nil())),
		jen.Id("meta").Op(":=").Id(t.metaFn).Call(),
		jen.List(jen.Id("v"), jen.Err()).Op(":=").Id(t.validatorFn).Call(jen.Op("&").Id("meta")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Qual(runtimePkg, "Tool").Values(), jen.True(), jen.Err())),
		jen.Return(jen.Qual(runtimePkg, "Tool").Values(fields), jen.True(), jen.Nil()),
	)
	f.Comment(t.toolFn + " binds the implementation of " + t.iface + " in impls to the runtime; ok is false when impls has none.")
	f.Func().Id(t.toolFn).Params(jen.Id("impls").Op("*").Id("Tools")).Params(jen.Id("tool").Qual(runtimePkg, "Tool"), jen.Id("ok").Bool(), jen.Err().Error()).Block(body...)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// genCommonFile emits toolcat_gen.go: the version check, the Tools struct
// and NewRegistry.
func genCommonFile(m *model) *jen.File {
	f := newFile(m.pkg)
	f.PackageComment("Package " + m.pkg + " holds the tools of the catalog" + titleSuffix(m.cat) + ", compiled by toolcat.")
	f.Add(comment("This file needs a runtime that supports generated code of version 4: a\nstale generation fails to compile here instead of misbehaving."))
	f.Const().Id("_").Op("=").Qual(runtimePkg, "GeneratedCodeVersion4")
	fields := make([]jen.Code, 0, len(m.tools))
	for _, t := range m.tools {
		fields = append(fields, jen.Comment(t.field+" implements "+t.t.Name+"."), jen.Id(t.field).Id(t.iface))
		for _, r := range t.renamed {
			if r.iface != "" {
				fields = append(fields, jen.Comment("Deprecated: "+r.iface+" is "+t.field+" "+r.fieldWhy(t.t.Name)+"; used when "+t.field+" is nil."), jen.Id(r.iface).Id(t.iface))
			}
		}
	}
	f.Comment("Tools holds an implementation of every tool of the catalog.")
	f.Type().Id("Tools").Struct(fields...)
	rows := make([]jen.Code, 0, len(m.tools))
	for _, t := range m.tools {
		// One line a tool: go/format lays out one-line literals fastest.
		row := keyed{jen.Id("Name").Op(":").Lit(t.t.Name)}
		row.add("Meta", jen.Id(t.metaFn))
		row.add("Bind", jen.Id(t.toolFn))
		rows = append(rows, jen.Values(row...))
	}
	f.Add(comment(bindingsVar + " binds every tool of the catalog, sorted by name: static data\nNewRegistry and Metas loop over."))
	f.Var().Id(bindingsVar).Op("=").Index().Qual(runtimePkg, "Binding").Types(jen.Id("Tools")).Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, rows...)
	genNewRegistry(f)
	f.Add(comment("RegisterTools registers every tool of the catalog with its implementation\nin impls into reg, as NewRegistry does: what a package that combines\nseveral generated packages into one registry calls."))
	f.Func().Id("RegisterTools").Params(jen.Id("reg").Op("*").Qual(runtimePkg, "Registry"), jen.Id("impls").Id("Tools")).Error().Block(
		jen.Return(jen.Qual(runtimePkg, "RegisterAll").Call(jen.Id("reg"), jen.Op("&").Id("impls"), jen.Id(bindingsVar))),
	)
	f.Add(comment("Metas returns the catalog entry of every tool, sorted by name: what\nprovider exports and docs are made from."))
	f.Func().Id("Metas").Params().Index().Qual(runtimePkg, "Meta").Block(
		jen.Return(jen.Qual(runtimePkg, "BindingMetas").Call(jen.Id(bindingsVar))),
	)
	return f
}

// genNewRegistry emits NewRegistry, which registers the package's tools
// through its RegisterTools: the same in a package of tools and in the
// root of a split catalog.
func genNewRegistry(f *jen.File) {
	f.Add(comment("NewRegistry registers every tool of the catalog with its implementation\nin impls, each validating its arguments before the implementation sees\nthem. Every tool needs an implementation."))
	f.Func().Id("NewRegistry").Params(jen.Id("impls").Id("Tools"), jen.Id("opts").Op("...").Qual(runtimePkg, "Option")).Params(jen.Op("*").Qual(runtimePkg, "Registry"), jen.Error()).Block(
		jen.Id("reg").Op(":=").Qual(runtimePkg, "New").Call(jen.Id("opts").Op("...")),
		jen.If(jen.Err().Op(":=").Id("RegisterTools").Call(jen.Id("reg"), jen.Id("impls")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), jen.Err()),
		),
		jen.Return(jen.Id("reg"), jen.Nil()),
	)
}

func titleSuffix(c *catalog.Catalog) string {
	if c.Title == "" {
		return ""
	}
	return " " + fmt.Sprintf("%q", c.Title)
}

// genConformanceFile emits the test that runs the conformance harness
// against every tool, with the implementations the package's
// conformanceTools function returns.
func genConformanceFile(m *model) *jen.File {
	f := newFile(m.pkg)
	f.Add(comment("TestConformance checks every tool's implementation against its catalog\nentry with package conformance. The package provides the implementations\nunder test, over test doubles of their dependencies, and the options of\nthe checks, with a function\n\n\tfunc conformanceTools(t *testing.T) (Tools, conformance.Options)"))
	f.Func().Id("TestConformance").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.List(jen.Id("impls"), jen.Id("opts")).Op(":=").Id("conformanceTools").Call(jen.Id("t")),
		jen.List(jen.Id("reg"), jen.Err()).Op(":=").Id("NewRegistry").Call(jen.Id("impls")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Id("t").Dot("Fatal").Call(jen.Err())),
		jen.Qual(conformancePkg, "Run").Call(jen.Id("t"), jen.Id("reg"), jen.Id("conformanceSpecs"), jen.Id("opts")),
	)
	// What the catalog says of each tool: positions, declared errors,
	// examples. A table the compiler lays out as static data (a map
	// literal, and the Fields map in each Spec, would be code a tool in the
	// package's init), made a map once when the test binary starts.
	rows := make([]jen.Code, 0, len(m.tools))
	for _, t := range m.tools {
		// One line a tool: go/format lays out one-line literals fastest.
		spec := keyed{jen.Id("Pos").Op(":").Lit(m.pos(t.t.Pos))}
		var fields []string
		for _, name := range []string{"args", "result", "errors", "has_side_effects", "supports_dry_run", "revertible"} {
			if t.t.Has(name) {
				fields = append(fields, name, m.pos(t.t.PosOf(name)))
			}
		}
		var codes []string
		for _, e := range t.t.Errors {
			codes = append(codes, e.Code)
		}
		sort.Strings(codes)
		if len(codes) > 0 {
			spec.add("Errors", jen.Index().String().Values(lits(codes)...))
		}
		var exs []jen.Code
		for _, ex := range t.t.Examples {
			v := keyed{jen.Id("Args").Op(":").Lit(string(ex.Args.JSON()))}
			if ex.Description != "" {
				v.add("Description", jen.Lit(ex.Description))
			}
			if ex.Result != nil {
				v.add("Result", jen.Lit(string(ex.Result.JSON())))
			}
			if ex.Error != "" {
				v.add("Error", jen.Lit(ex.Error))
			}
			v.add("Pos", jen.Lit(m.pos(ex.Pos)))
			exs = append(exs, jen.Values(v...))
		}
		if len(exs) > 0 {
			spec.add("Examples", jen.Index().Qual(conformancePkg, "Example").Values(exs...))
		}
		row := keyed{jen.Id("Name").Op(":").Lit(t.t.Name)}
		row.add("Spec", jen.Qual(conformancePkg, "Spec").Values(spec...))
		if len(fields) > 0 {
			row.add("Fields", jen.Index().String().Values(lits(fields)...))
		}
		rows = append(rows, jen.Values(row...))
	}
	f.Add(comment(conformanceTable + " is what the catalog says of each tool: where it is\nwritten, the error codes it declares and its examples."))
	f.Var().Id(conformanceTable).Op("=").Index().Qual(conformancePkg, "NamedSpec").Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, rows...)
	f.Comment("conformanceSpecs are the specs of " + conformanceTable + " by tool name.")
	f.Var().Id("conformanceSpecs").Op("=").Qual(conformancePkg, "Specs").Call(jen.Id(conformanceTable))
	return f
}
