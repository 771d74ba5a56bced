package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tiktoken-go/tokenizer"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/codemode/tsdecl"
	"github.com/toolcat/toolcat/runtime/export"
)

// DocsIndex is the index page of the generated docs.
const DocsIndex = "index.md"

// DocsDeclarations is the file of the generated docs that declares every
// tool in TypeScript: the API a model programs against in code mode
// (runtime/codemode), as its search_api tool returns it.
const DocsDeclarations = "api.d.ts"

// TokenCount is the size of one tool's definition as a model reads it.
type TokenCount struct {
	Tool   string
	Tokens int
	Hidden bool // hidden tools are not in the prompt until discovered
}

// Tokens counts, with the o200k_base encoding (GPT-4o and later; other
// models' counts differ by a few percent), the tokens of each tool's
// definition as providers send it: its name, description and argument
// schema. The encodings ship inside the tokenizer module: nothing is
// fetched.
func Tokens(cat *catalog.Catalog) ([]TokenCount, error) {
	codec, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		return nil, fmt.Errorf("loading the tokenizer: %w", err)
	}
	out := make([]TokenCount, 0, len(cat.Tools))
	for _, t := range cat.Tools {
		def, err := json.Marshal(struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		}{t.Name, t.Description, exposedArgs(t).JSON()})
		if err != nil {
			return nil, err
		}
		n, err := codec.Count(string(def))
		if err != nil {
			return nil, err
		}
		out = append(out, TokenCount{Tool: t.Name, Tokens: n, Hidden: t.Exposure == "hidden"})
	}
	return out, nil
}

// Docs renders the catalog as Markdown: an index by category with the
// prompt size of every tool, and a page per tool with what it does, when
// to use it, its arguments, result, errors, side effects and examples.
// Beside them go the tool definitions of every provider (openai.json,
// openai-responses.json, anthropic.json, gemini.json, mcp.json), from the
// runtime's exporters: what a model is sent, for review in diffs.
func Docs(cat *catalog.Catalog) (map[string][]byte, error) {
	tokens, err := Tokens(cat)
	if err != nil {
		return nil, err
	}
	for _, t := range cat.Tools {
		if pos, ok := keyArgDeclared(t); ok {
			return nil, fmt.Errorf("%s: tools.%s.args declares idempotency_key, the argument the tool takes its idempotency key from (idempotency_key: argument); rename it or set idempotency_key: host (lint rule IDEMPOTENCY_KEY_ARG_RESERVED)", pos, t.Name)
		}
	}
	files := map[string][]byte{}
	pages := fileBases(cat.Tools, strings.TrimSuffix(DocsIndex, ".md"))
	for _, t := range cat.Tools {
		files[pages[t.Name]+".md"] = toolPage(cat, t, pages)
	}
	metas := Metas(cat)
	var skipped []string
	for _, p := range providers {
		if why := refusedName(p.provider, cat); why != "" {
			// A provider that cannot take a tool's name gets no file; lint
			// reports the name (TOOL_NAME_FORMAT).
			skipped = append(skipped, fmt.Sprintf("`%s` is not written: %s.", p.file, why))
			continue
		}
		b, err := p.export(metas, export.IncludeHidden())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.file, err)
		}
		files[p.file] = b
	}
	files[DocsDeclarations] = tsdecl.File(metas)
	declTokens, err := countTokens(files[DocsDeclarations])
	if err != nil {
		return nil, err
	}
	files[DocsIndex] = docsIndex(cat, tokens, skipped, pages, declTokens)
	return files, nil
}

// countTokens counts the o200k_base tokens of text.
func countTokens(text []byte) (int, error) {
	codec, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		return 0, fmt.Errorf("loading the tokenizer: %w", err)
	}
	return codec.Count(string(text))
}

// refusedName says which tool name provider does not accept, or "".
func refusedName(provider string, cat *catalog.Catalog) string {
	for _, t := range cat.Tools {
		if err := export.CheckName(provider, t.Name); err != nil {
			return fmt.Sprintf("%s does not accept the tool name %q", provider, t.Name)
		}
	}
	return ""
}

// providers are the tool definitions docs writes, as each provider's API
// takes them, so that reviewers see in a diff what the model will see.
// Hidden tools are included: a host sends them once discovered.
var providers = []struct {
	file     string
	provider string // as export.CheckName names it
	export   func([]runtime.Meta, ...export.Option) ([]byte, error)
}{
	{"openai.json", "openai", export.OpenAIChat},
	{"openai-responses.json", "openai", export.OpenAIResponses},
	{"anthropic.json", "anthropic", export.Anthropic},
	{"gemini.json", "gemini", export.Gemini},
	{"mcp.json", "mcp", export.MCP},
}

func docsIndex(cat *catalog.Catalog, tokens []TokenCount, skipped []string, pages map[string]string, declTokens int) []byte {
	var b bytes.Buffer
	title := cat.Title
	if title == "" {
		title = "Tools of package " + cat.Package
	}
	fmt.Fprintf(&b, "# %s\n\n<!-- Generated by toolcat docs. DO NOT EDIT. -->\n\n", title)
	if len(cat.Metadata) > 0 {
		b.WriteString("| catalog | |\n|---|---|\n")
		for _, m := range cat.Metadata {
			fmt.Fprintf(&b, "| %s | %s |\n", cell(m.Key), cell(m.Value))
		}
		b.WriteString("\n")
	}
	byTool := map[string]TokenCount{}
	core, hidden := 0, 0
	for _, tc := range tokens {
		byTool[tc.Tool] = tc
		if tc.Hidden {
			hidden += tc.Tokens
		} else {
			core += tc.Tokens
		}
	}
	fmt.Fprintf(&b, "%d tools. The core tools' definitions take %d tokens of every prompt", len(cat.Tools), core)
	if hidden > 0 {
		fmt.Fprintf(&b, "; the hidden ones, %d more once discovered", hidden)
	}
	b.WriteString(" (o200k_base).\n")
	fmt.Fprintf(&b, "For code mode, [`%s`](%s) declares every tool in TypeScript (%d tokens).\n", DocsDeclarations, DocsDeclarations, declTokens)
	cats := map[string][]*catalog.Tool{}
	for _, t := range cat.Tools {
		c := t.Category
		if c == "" {
			c = "other"
		}
		cats[c] = append(cats[c], t)
	}
	for _, c := range slices.Sorted(maps.Keys(cats)) {
		fmt.Fprintf(&b, "\n## %s\n\n| tool | what it does | risk | side effects | tokens |\n|---|---|---|---|---|\n", c)
		for _, t := range cats[c] {
			effects := "no"
			if t.HasSideEffects {
				effects = "yes"
			}
			name := fmt.Sprintf("[`%s`](%s.md)", t.Name, pages[t.Name])
			if t.Exposure == "hidden" {
				name += " (hidden)"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %d |\n", name, cell(firstLine(t.Description)), t.Risk, effects, byTool[t.Name].Tokens)
		}
	}
	if len(skipped) > 0 {
		b.WriteString("\n## Provider definitions\n\n")
		for _, s := range skipped {
			b.WriteString("- " + s + "\n")
		}
	}
	return b.Bytes()
}

// pageOf is the base of the page of the tool called name, or of the page
// it would have: a fallback lint reports as missing links all the same.
func pageOf(pages map[string]string, name string) string {
	if p, ok := pages[name]; ok {
		return p
	}
	return fileName(name)
}

// toolPage renders the page of t; pages names the page of every tool.
func toolPage(cat *catalog.Catalog, t *catalog.Tool, pages map[string]string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n<!-- Generated by toolcat docs. DO NOT EDIT. -->\n\n", t.Name)
	b.WriteString(strings.TrimSpace(t.Description) + "\n\n")
	facts := [][2]string{}
	add := func(k, v string) {
		if v != "" {
			facts = append(facts, [2]string{k, v})
		}
	}
	if t.OriginalName != "" {
		add("wire name", "`"+t.OriginalName+"`: the name models and MCP clients call")
	}
	add("category", t.Category)
	add("version", t.Version)
	add("owner", t.Owner)
	add("risk", string(t.Risk))
	switch {
	case t.HasSideEffects && t.SideEffect != "":
		add("side effects", "yes, "+t.SideEffect)
	default:
		add("side effects", yesNo(t.HasSideEffects))
	}
	add("idempotent", yesNo(t.Idempotent))
	switch {
	case t.IdempotencyKey == catalog.IdempotencyKeyArgument && t.IdempotencyRequired:
		add("idempotency key", "required: the `idempotency_key` argument, or the host's")
	case t.IdempotencyKey == catalog.IdempotencyKeyArgument:
		add("idempotency key", "the `idempotency_key` argument, or the host's")
	case t.IdempotencyRequired:
		add("idempotency key", "required")
	}
	if t.SupportsDryRun {
		add("dry run", "supported")
	}
	if t.Revertible {
		add("revert", "supported")
	}
	if t.ReturnsUntrusted {
		add("output", "untrusted: wrapped before the model reads it")
	}
	add("capability", code(t.CapabilityRequired))
	add("exposure", t.Exposure)
	add("autonomy", string(t.Autonomy)+" and above")
	if t.MaxRetries > 0 {
		add("retries", fmt.Sprintf("%d per step", t.MaxRetries))
	}
	if t.SLAms > 0 {
		add("deadline", fmt.Sprintf("%d ms", t.SLAms))
	}
	if t.MaxResultBytes > 0 {
		add("largest result", fmt.Sprintf("%d bytes of JSON", t.MaxResultBytes))
	}
	if len(t.Dependencies) > 0 {
		deps := make([]string, len(t.Dependencies))
		for i, d := range t.Dependencies {
			if cat.Tool(d) != nil {
				deps[i] = fmt.Sprintf("[`%s`](%s.md)", d, pages[d])
			} else {
				deps[i] = code(d)
			}
		}
		add("depends on", strings.Join(deps, ", "))
	}
	if t.FallbackTool != "" {
		add("fallback", fmt.Sprintf("[`%s`](%s.md), when a dependency is unavailable", t.FallbackTool, pageOf(pages, t.FallbackTool)))
	}
	b.WriteString("| | |\n|---|---|\n")
	for _, f := range facts {
		fmt.Fprintf(&b, "| %s | %s |\n", f[0], cell(f[1]))
	}
	b.WriteString("\n## Arguments\n\n")
	writeSchemaTable(&b, exposedArgs(t), "the tool takes no arguments")
	if extra := additionalArgsNote(t.AdditionalArgs); extra != "" {
		b.WriteString("\n" + extra + "\n")
	}
	if t.Result != nil {
		b.WriteString("\n## Result\n\n")
		writeSchemaTable(&b, t.Result, "")
	}
	if len(t.Errors) > 0 {
		b.WriteString("\n## Errors\n\n| code | what to do |\n|---|---|\n")
		errs := append([]catalog.ErrorHint(nil), t.Errors...)
		sort.Slice(errs, func(i, j int) bool { return errs[i].Code < errs[j].Code })
		for _, e := range errs {
			fmt.Fprintf(&b, "| `%s` | %s |\n", e.Code, cell(e.Suggestion))
		}
	}
	if len(t.Examples) > 0 {
		b.WriteString("\n## Examples\n")
		for _, ex := range t.Examples {
			b.WriteString("\n")
			if ex.Description != "" {
				b.WriteString(ex.Description + "\n\n")
			}
			fmt.Fprintf(&b, "```json\n%s\n```\n", indentJSON(ex.Args.JSON()))
			if ex.Error != "" {
				fmt.Fprintf(&b, "\nanswers `%s`.\n", ex.Error)
			} else if ex.Result != nil {
				fmt.Fprintf(&b, "\nreturns\n\n```json\n%s\n```\n", indentJSON(ex.Result.JSON()))
			}
		}
	}
	return b.Bytes()
}

// exposedArgs is the args schema of t as the model sees it: with the
// idempotency_key argument when the tool takes its key as one, as
// runtime/export adds it.
func exposedArgs(t *catalog.Tool) *catalog.Node {
	if t.IdempotencyKey != catalog.IdempotencyKeyArgument || t.Args == nil || t.Args.Kind != catalog.Object {
		return t.Args
	}
	if _, ok := keyArgDeclared(t); ok {
		return t.Args
	}
	str := func(s string) *catalog.Node { return &catalog.Node{Kind: catalog.String, Str: s} }
	key := &catalog.Node{Kind: catalog.Object, Fields: []*catalog.Field{
		{Key: "type", Value: str("string")},
		{Key: "description", Value: str(runtime.IdempotencyKeyDescription)},
		{Key: "minLength", Value: &catalog.Node{Kind: catalog.Number, Num: "1"}},
		{Key: "maxLength", Value: &catalog.Node{Kind: catalog.Number, Num: strconv.Itoa(runtime.IdempotencyKeyMaxLength)}},
	}}
	args := *t.Args
	args.Fields = nil
	var props, req *catalog.Node
	for _, f := range t.Args.Fields {
		switch f.Key {
		case "properties":
			if f.Value.Kind == catalog.Object {
				props = &catalog.Node{Kind: catalog.Object, Pos: f.Value.Pos, Fields: slices.Clone(f.Value.Fields)}
				f = &catalog.Field{Key: f.Key, KeyPos: f.KeyPos, Value: props}
			}
		case "required":
			if f.Value.Kind == catalog.Array {
				req = &catalog.Node{Kind: catalog.Array, Pos: f.Value.Pos, Items: slices.Clone(f.Value.Items)}
				f = &catalog.Field{Key: f.Key, KeyPos: f.KeyPos, Value: req}
			}
		}
		args.Fields = append(args.Fields, f)
	}
	if props == nil {
		props = &catalog.Node{Kind: catalog.Object}
		args.Fields = append(args.Fields, &catalog.Field{Key: "properties", Value: props})
	}
	props.Fields = append(props.Fields, &catalog.Field{Key: runtime.IdempotencyKeyArg, Value: key})
	if t.IdempotencyRequired {
		if req == nil {
			req = &catalog.Node{Kind: catalog.Array}
			args.Fields = append(args.Fields, &catalog.Field{Key: "required", Value: req})
		}
		req.Items = append(req.Items, str(runtime.IdempotencyKeyArg))
	}
	return &args
}

// keyArgDeclared reports whether t takes its idempotency key as an
// argument and its own args already declare a property of that name, and
// where.
func keyArgDeclared(t *catalog.Tool) (catalog.Pos, bool) {
	if t.IdempotencyKey != catalog.IdempotencyKeyArgument {
		return catalog.Pos{}, false
	}
	props := t.Args.Get("properties")
	if f := props.Field(runtime.IdempotencyKeyArg); f != nil {
		return f.KeyPos, true
	}
	return catalog.Pos{}, false
}

func additionalArgsNote(policy string) string {
	switch policy {
	case "strip":
		return "Arguments the schema does not declare are dropped before the tool runs."
	case "allow":
		return "Arguments the schema does not declare are passed through."
	}
	return ""
}

// writeSchemaTable lists the properties of an object schema, nested ones
// with dotted names.
func writeSchemaTable(b *bytes.Buffer, s *catalog.Node, empty string) {
	type row struct{ name, typ, req, def, cons, desc string }
	var rows []row
	var walk func(prefix string, s *catalog.Node, depth int)
	walk = func(prefix string, s *catalog.Node, depth int) {
		if s == nil || depth > 8 {
			return
		}
		if ref, ok := s.Get("$ref").StringValue(); ok && strings.HasPrefix(ref, "#/") {
			return
		}
		props := s.Get("properties")
		if props == nil || props.Kind != catalog.Object {
			return
		}
		required := map[string]bool{}
		if r := s.Get("required"); r != nil && r.Kind == catalog.Array {
			for _, it := range r.Items {
				required[it.Str] = true
			}
		}
		for _, p := range props.Fields {
			name := prefix + p.Key
			r := row{name: "`" + name + "`", typ: typeString(p.Value), req: yesNo(required[p.Key])}
			if d := p.Value.Get("default"); d != nil {
				r.def = "`" + string(d.JSON()) + "`"
			}
			r.cons = constraints(p.Value)
			if e := p.Value.Get("enum"); e != nil && e.Kind == catalog.Array {
				vals := make([]string, len(e.Items))
				for i, it := range e.Items {
					vals[i] = "`" + string(it.JSON()) + "`"
				}
				r.cons = strings.TrimPrefix(r.cons+", one of "+strings.Join(vals, ", "), ", ")
			}
			r.desc, _ = p.Value.Get("description").StringValue()
			rows = append(rows, r)
			walk(name+".", p.Value, depth+1)
			if items := p.Value.Get("items"); items != nil {
				walk(name+"[].", items, depth+1)
			}
		}
	}
	walk("", s, 0)
	if len(rows) == 0 {
		if empty != "" {
			b.WriteString(empty + ".\n")
		} else {
			fmt.Fprintf(b, "```json\n%s\n```\n", indentJSON(s.JSON()))
		}
		return
	}
	b.WriteString("| name | type | required | default | allowed | description |\n|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", r.name, cell(r.typ), r.req, cell(r.def), cell(r.cons), cell(r.desc))
	}
}

func typeString(s *catalog.Node) string {
	if ref, ok := s.Get("$ref").StringValue(); ok {
		return ref[strings.LastIndex(ref, "/")+1:]
	}
	t := s.Get("type")
	var out string
	switch {
	case t == nil:
		switch {
		case s.Get("anyOf") != nil:
			out = "one of several shapes"
		case s.Get("oneOf") != nil:
			out = "one of several shapes"
		case s.Get("const") != nil:
			out = "constant " + string(s.Get("const").JSON())
		case s.Get("enum") != nil:
			out = "enum"
		default:
			out = "any"
		}
	case t.Kind == catalog.String:
		out = t.Str
	default:
		var parts []string
		for _, it := range t.Items {
			parts = append(parts, it.Str)
		}
		out = strings.Join(parts, " or ")
	}
	if out == "array" {
		if items := s.Get("items"); items != nil {
			out = "array of " + typeString(items)
		}
	}
	if f, ok := s.Get("format").StringValue(); ok {
		out += " (" + f + ")"
	}
	return out
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func code(s string) string {
	if s == "" {
		return ""
	}
	return "`" + s + "`"
}

// cell makes text fit a Markdown table cell.
func cell(s string) string {
	s = strings.TrimSpace(s)
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", "<br>")
}

func indentJSON(raw []byte) string {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}
