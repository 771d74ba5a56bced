package gen

import (
	"fmt"
	"go/ast"
	"go/token"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"
	"github.com/toolcat/toolcat/catalog"
)

// The last declarations of a tool's file in data mode, its metadata (the
// schema constants and the Meta function), its validator function and its
// binding to the runtime, have the same shape for every tool: gen writes
// them as text, already in gofmt's layout, after what jennifer renders
// and gofmt formats and before the descriptors (see preformatDescs).
// Parsing and printing them again was about a third of the time gofmt
// took on a large catalog's files. In code mode the validator, which
// jennifer emits, follows the metadata, so only the binding is text. The
// text's qualified names (runtime., json., time.) are imported by jennifer
// through markImport.

// preformatFuncs is on: the validator and binding functions of a tool's
// file are written in gofmt's layout by gen. Tests turn it off to have
// gofmt lay them out, and compare.
var preformatFuncs = true

// dataValidatorText is the function that returns t's data-mode validator,
// as genDataValidator would have jennifer emit it; top names the
// descriptor of the arguments.
func dataValidatorText(out []byte, t *toolModel, top string) []byte {
	out = append(out, "\n// "...)
	out = append(out, t.validatorFn...)
	out = append(out, " returns the validator of "...)
	out = append(out, t.t.Name...)
	out = append(out, "'s arguments:\n// runtime.DataPassFor reads them in one pass, as "...)
	out = append(out, top...)
	out = append(out, " describes.\nfunc "...)
	out = append(out, t.validatorFn...)
	out = append(out, "(*runtime.Meta) (runtime.Validator, error) {\n\treturn runtime.DataPassFor((*"...)
	out = append(out, t.args.Name...)
	out = append(out, ")(nil), &"...)
	out = append(out, top...)
	return append(out, ")\n}\n"...)
}

// toolBindingText is the function genToolBinding would have jennifer emit.
func toolBindingText(out []byte, t *toolModel) []byte {
	out = append(out, "\n// "...)
	out = append(out, t.toolFn...)
	out = append(out, " binds the implementation of "...)
	out = append(out, t.iface...)
	out = append(out, " in impls to the runtime; ok is false when impls has none.\nfunc "...)
	out = append(out, t.toolFn...)
	out = append(out, "(impls *Tools) (tool runtime.Tool, ok bool, err error) {\n\timpl := impls."...)
	out = append(out, t.field...)
	out = append(out, '\n')
	for _, r := range t.renamed {
		if r.iface != "" {
			out = append(out, "\tif impl == nil {\n\t\timpl = impls."...)
			out = append(out, r.iface...)
			out = append(out, "\n\t}\n"...)
		}
	}
	out = append(out, "\tif impl == nil {\n\t\treturn runtime.Tool{}, false, nil\n\t}\n\tmeta := "...)
	out = append(out, t.metaFn...)
	out = append(out, "()\n\tv, err := "...)
	out = append(out, t.validatorFn...)
	out = append(out, "(&meta)\n\tif err != nil {\n\t\treturn runtime.Tool{}, true, err\n\t}\n\treturn runtime.Tool{\n"...)
	// The fields in the order of jennifer's Dict (by key), their values
	// aligned one column past the longest key, Validator.
	if t.dryRun {
		out = append(out, "\t\tDryRun:    runtime.Bind(impl.DryRun),\n"...)
	}
	out = append(out, "\t\tExecute:   runtime.Bind(impl.Execute),\n\t\tMeta:      meta,\n"...)
	if t.revert {
		out = append(out, "\t\tRevert:    runtime.BindRevert(impl.Revert),\n"...)
	}
	return append(out, "\t\tValidator: v,\n\t}, true, nil\n}\n"...)
}

// textFuncs reports whether the functions above are written as text: only
// with the descriptors, which follow them, written as text too.
func textFuncs() bool { return preformatFuncs && preformatDescs }

// metaEntry is one field of a tool's runtime.Meta literal, as metaText
// writes it: value is on one line unless lines holds the lines of a
// literal that spans several.
type metaEntry struct {
	key, value string
	lines      []string
}

// metaTextKeyMax is the longest key of a literal whose fields metaText
// aligns as gofmt does: go/printer aligns the keys of consecutive
// one-line fields when each is at most 40 bytes long, and otherwise
// decides by the ratio of their lengths, which metaText does not do.
const metaTextKeyMax = 40

// metaText is the schema constants and the metadata function genMeta
// would have jennifer emit for t, with ok false when t's literal is one
// metaText does not lay out (see metaTextKeyMax).
func metaText(out []byte, t *toolModel) ([]byte, bool) {
	c := t.t
	var b []byte // scratch for quoting
	quote := func(s string) string {
		b = strconv.AppendQuote(b[:0], s)
		return string(b)
	}
	var consts [][2]string
	schema := func(name string, n *catalog.Node) string {
		s := string(n.JSON())
		if strings.ContainsAny(s, "`\r") {
			s = quote(s)
		} else {
			s = "`" + s + "`"
		}
		consts = append(consts, [2]string{name, s})
		return "json.RawMessage(" + name + ")"
	}
	entries := []metaEntry{
		{key: "Name", value: quote(c.Name)},
		{key: "Description", value: quote(c.Description)},
		{key: "Risk", value: "runtime.Risk" + exported(string(c.Risk))},
		{key: "Exposure", value: "runtime.Exposure" + exported(c.Exposure)},
		{key: "AdditionalArgs", value: "runtime.AdditionalArgs" + exported(c.AdditionalArgs)},
		{key: "MinAutonomy", value: "runtime.Autonomy" + exported(string(c.Autonomy))},
		{key: "ArgsSchema", value: schema(t.argsConst, c.Args)},
	}
	str := func(key, v string) {
		if v != "" {
			entries = append(entries, metaEntry{key: key, value: quote(v)})
		}
	}
	flag := func(key string, on bool) {
		if on {
			entries = append(entries, metaEntry{key: key, value: "true"})
		}
	}
	num := func(key string, n int) {
		if n > 0 {
			entries = append(entries, metaEntry{key: key, value: strconv.Itoa(n)})
		}
	}
	list := func(key string, items []string) {
		if len(items) == 0 {
			return
		}
		q := make([]string, len(items))
		for i, s := range items {
			q[i] = quote(s)
		}
		entries = append(entries, metaEntry{key: key, value: "[]string{" + strings.Join(q, ", ") + "}"})
	}
	str("OriginalName", c.OriginalName)
	str("Category", c.Category)
	str("Version", c.Version)
	str("Owner", c.Owner)
	flag("HasSideEffects", c.HasSideEffects)
	if c.SideEffect != "" {
		entries = append(entries, metaEntry{key: "SideEffect", value: "runtime.SideEffect" + exported(c.SideEffect)})
	}
	flag("Idempotent", c.Idempotent)
	flag("IdempotencyRequired", c.IdempotencyRequired)
	flag("IdempotencyKeyArg", c.IdempotencyKey == catalog.IdempotencyKeyArgument)
	flag("SupportsDryRun", c.SupportsDryRun)
	flag("Revertible", c.Revertible)
	flag("ReturnsUntrusted", c.ReturnsUntrusted)
	str("CapabilityRequired", c.CapabilityRequired)
	num("MaxRetries", c.MaxRetries)
	num("MaxResultBytes", c.MaxResultBytes)
	str("FallbackTool", c.FallbackTool)
	if c.SLAms > 0 {
		entries = append(entries, metaEntry{key: "SLA", value: strconv.Itoa(c.SLAms) + " * time.Millisecond"})
	}
	list("Dependencies", c.Dependencies)
	list("Queries", c.Queries)
	if c.Result != nil {
		entries = append(entries, metaEntry{key: "ResultSchema", value: schema(t.resultConst, c.Result)})
	}
	var hints []metaEntry
	for _, h := range c.Errors {
		if h.Suggestion != "" {
			hints = append(hints, metaEntry{key: "runtime." + codeConst(h.Code), value: quote(h.Suggestion)})
		}
	}
	if len(hints) > 0 {
		slices.SortFunc(hints, func(a, b metaEntry) int { return strings.Compare(a.key, b.key) })
		for i := 1; i < len(hints); i++ {
			if hints[i].key == hints[i-1].key {
				return out, false // jennifer's Dict keeps one of them
			}
		}
		if len(hints) == 1 {
			// jennifer writes a map of one entry on one line.
			entries = append(entries, metaEntry{key: "ErrorHints", value: "map[runtime.Code]string{" + hints[0].key + ": " + hints[0].value + "}"})
		} else {
			lines := make([]string, 0, len(hints)+2)
			lines = append(lines, "map[runtime.Code]string{")
			lines = append(lines, alignEntries(hints, "\t\t\t")...)
			entries = append(entries, metaEntry{key: "ErrorHints", lines: append(lines, "\t\t}")})
		}
	}
	for _, e := range append(hints, entries...) {
		// go/printer gives up aligning a field longer than 1e6 bytes.
		if len(e.key) > metaTextKeyMax || len(e.value) > 1e6-100 {
			return out, false
		}
	}
	slices.SortFunc(entries, func(a, b metaEntry) int { return strings.Compare(a.key, b.key) })

	out = append(out, "\n// The JSON Schemas of "...)
	out = append(out, c.Name...)
	out = append(out, ", as the catalog gives them.\nconst (\n"...)
	width := 0
	for _, k := range consts {
		width = max(width, len(k[0]))
	}
	for _, k := range consts {
		out = append(out, '\t')
		out = append(out, k[0]...)
		out = appendSpaces(out, width-len(k[0])+1)
		out = append(out, "= "...)
		out = append(out, k[1]...)
		out = append(out, '\n')
	}
	out = append(out, ")\n\n// "...)
	out = append(out, t.metaFn...)
	out = append(out, " is the catalog entry of "...)
	out = append(out, c.Name...)
	out = append(out, ".\nfunc "...)
	out = append(out, t.metaFn...)
	out = append(out, "() runtime.Meta {\n\treturn runtime.Meta{\n"...)
	for _, l := range alignEntries(entries, "\t\t") {
		out = append(out, l...)
		out = append(out, '\n')
	}
	return append(out, "\t}\n}\n"...), true
}

// alignEntries lays out the fields of a composite literal, one a line,
// indented by indent, as go/printer does when every key is short: the
// values of consecutive one-line fields start one column past the
// longest of their keys and its colon; a field that spans lines stands
// apart, its key followed by one space.
func alignEntries(entries []metaEntry, indent string) []string {
	var lines []string
	for i := 0; i < len(entries); {
		e := entries[i]
		if e.lines != nil {
			lines = append(lines, indent+e.key+": "+e.lines[0])
			for _, l := range e.lines[1:] {
				lines = append(lines, l)
			}
			lines[len(lines)-1] += ","
			i++
			continue
		}
		j, width := i, 0
		for ; j < len(entries) && entries[j].lines == nil; j++ {
			width = max(width, len(entries[j].key))
		}
		for _, e := range entries[i:j] {
			lines = append(lines, indent+e.key+":"+strings.Repeat(" ", width-len(e.key)+1)+e.value+",")
		}
		i = j
	}
	return lines
}

func appendSpaces(b []byte, n int) []byte {
	for range n {
		b = append(b, ' ')
	}
	return b
}

// importMarker names the declarations that only make jennifer import a
// package the text after its source uses, such as encoding/json for
// metaText's json.RawMessage: render drops them from the file's end.
const importMarker = "_toolcatImports"

// markImport makes f import the package path, for qual (a name it
// declares) used in the text that follows f.
func markImport(f *jen.File, path, qual string) {
	f.Var().Id(importMarker).Op("=").Qual(path, qual)
}

// dropImportMarkers removes the declarations of markImport, which are
// the last of file.
func dropImportMarkers(file *ast.File) {
	for n := len(file.Decls); n > 0; n-- {
		d, ok := file.Decls[n-1].(*ast.GenDecl)
		if !ok || d.Tok != token.VAR || len(d.Specs) != 1 {
			return
		}
		s, ok := d.Specs[0].(*ast.ValueSpec)
		if !ok || len(s.Names) != 1 || s.Names[0].Name != importMarker {
			return
		}
		file.Decls = file.Decls[:n-1]
	}
}

// plainComment reports whether a line of catalog text in a doc comment
// is one gofmt leaves as it is: it reformats a doc comment through
// go/doc/comment, which keeps a paragraph's text but may rewrite doc
// links, and go/scanner drops carriage returns from comments. A line
// with a bracket, a control character or invalid UTF-8 is left to
// jennifer and gofmt.
func plainComment(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < ' ' || r == 0x7f || r == '[' {
			return false
		}
	}
	return true
}

// appendComment is comment(text) as jennifer writes it and gofmt keeps
// it, for text whose lines start with a Go name or a quoted string (so
// that no line starts a comment of its own) and are plain (see
// plainComment).
func appendComment(out []byte, indent, text string) []byte {
	for line := range strings.SplitSeq(strings.TrimSpace(text), "\n") {
		out = append(out, indent...)
		if line = strings.TrimRight(line, " \t"); line == "" {
			out = append(out, "//\n"...)
			continue
		}
		out = append(out, "// "...)
		out = append(out, line...)
		out = append(out, '\n')
	}
	return out
}

// interfaceDoc is the doc comment of t's interface, as genInterface
// writes it.
func interfaceDoc(t *toolModel) string {
	return fmt.Sprintf("%s is the tool %s: %s", t.iface, t.t.Name, firstLine(t.t.Description)) +
		"\n\nImplement it in " + t.implFile + "; toolcat scaffolds that file once and never rewrites it."
}

// interfaceText is the interface genInterface would have jennifer emit,
// with ok false when its doc comment is not plain.
func interfaceText(out []byte, t *toolModel) ([]byte, bool) {
	if !plainComment(firstLine(t.t.Description)) {
		return out, false
	}
	res := t.resultNm
	if t.result != nil && t.result.Kind == kStruct {
		res = "*" + res
	}
	out = append(out, '\n')
	out = appendComment(out, "", interfaceDoc(t))
	out = append(out, "type "...)
	out = append(out, t.iface...)
	out = append(out, " interface {\n\t// Execute does the work. Return a *runtime.ToolError (see the "...)
	out = append(out, t.iface...)
	out = append(out, "*\n\t// error constructors) for failures the model should act on.\n\tExecute(ctx context.Context, args *"...)
	out = append(out, t.args.Name...)
	out = append(out, ") ("...)
	out = append(out, res...)
	out = append(out, ", error)\n"...)
	if t.dryRun {
		out = append(out, "\t// DryRun previews what Execute would do, changing nothing.\n\tDryRun(ctx context.Context, args *"...)
		out = append(out, t.args.Name...)
		out = append(out, ") (*runtime.Preview, error)\n"...)
	}
	if t.revert {
		out = append(out, "\t// Revert undoes a call that returned result.\n\tRevert(ctx context.Context, args *"...)
		out = append(out, t.args.Name...)
		out = append(out, ", result "...)
		out = append(out, res...)
		out = append(out, ") error\n"...)
	}
	return append(out, "}\n"...), true
}

// errorConstructorsText is what genErrorConstructors would have jennifer
// emit, with ok false when a suggestion is not plain in its doc comment.
func errorConstructorsText(out []byte, t *toolModel) ([]byte, bool) {
	start := len(out)
	hints := append([]catalog.ErrorHint(nil), t.t.Errors...)
	slices.SortFunc(hints, func(a, b catalog.ErrorHint) int { return strings.Compare(a.Code, b.Code) })
	for _, h := range hints {
		name := t.ctors[h.Code]
		doc := name + " returns the " + h.Code + " error of " + t.t.Name
		if h.Suggestion != "" {
			q := strconv.Quote(h.Suggestion)
			if !plainComment(q) {
				return out[:start], false
			}
			doc += ", with the catalog's suggestion:\n" + q
		}
		out = append(out, '\n')
		out = appendComment(out, "", doc+".")
		out = append(out, "func "...)
		out = append(out, name...)
		out = append(out, "(message string) *runtime.ToolError {\n\treturn runtime.NewError(runtime."...)
		out = append(out, codeConst(h.Code)...)
		out = append(out, ", message)"...)
		if h.Suggestion != "" {
			out = append(out, ".WithSuggestion("...)
			out = strconv.AppendQuote(out, h.Suggestion)
			out = append(out, ')')
		}
		if h.RetryAllowed != nil {
			out = append(out, ".WithRetryAllowed("...)
			out = strconv.AppendBool(out, *h.RetryAllowed)
			out = append(out, ')')
		}
		out = append(out, "\n}\n"...)
	}
	return out, true
}

// renamedText is what genRenamed would have jennifer emit.
func renamedText(out []byte, t *toolModel) []byte {
	for _, r := range t.renamed {
		why := r.why(t.t.Name)
		alias := func(old, cur string) {
			if old == "" {
				return
			}
			out = append(out, "\n// Deprecated: "...)
			out = append(out, old+" is the Go name of "+r.from+" "+why+"; use "+cur+".\ntype "+old+" = "+cur+"\n"...)
		}
		alias(r.iface, t.iface)
		for _, p := range r.types {
			alias(p[0], p[1])
		}
		for _, c := range r.consts {
			out = append(out, "\n// Deprecated: "...)
			out = append(out, c[0]+" is the Go name of a value of "+r.from+" "+why+"; use "+c[1]+".\nconst "+c[0]+" "+c[2]+" = "+c[1]+"\n"...)
		}
		for _, code := range slices.Sorted(maps.Keys(r.ctors)) {
			old, cur := r.ctors[code], t.ctors[code]
			out = append(out, "\n// Deprecated: "...)
			out = append(out, old+" is the Go name of "+r.from+" "+why+"; use "+cur+".\nfunc "+old+"(message string) *runtime.ToolError {\n\treturn "+cur+"(message)\n}\n"...)
		}
	}
	return out
}
