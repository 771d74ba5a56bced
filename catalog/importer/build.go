package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"
)

// Options configure Build.
type Options struct {
	// Package is the catalog's Go package name; "" means "tools".
	Package string
}

// Note is one thing Build changed, assumed or kept as a comment.
type Note struct {
	// Tool is the catalog name of the tool; "" for the whole import.
	Tool string
	// Decide is set when a human must confirm the value (the YAML says
	// TODO(toolcat import): decide there).
	Decide  bool
	Message string
}

func (n Note) String() string {
	var b strings.Builder
	if n.Tool != "" {
		b.WriteString(n.Tool + ": ")
	}
	if n.Decide {
		b.WriteString("decide: ")
	}
	b.WriteString(n.Message)
	return b.String()
}

// Result is an imported catalog.
type Result struct {
	// YAML is the catalog file.
	YAML []byte
	// Tools counts the tools written; Renamed, Merged and Decide count
	// the tools given a new name, the identical duplicates merged and the
	// values left to a human.
	Tools, Renamed, Merged, Decide int
	Notes                          []Note
}

// namePattern is what a catalog (and every provider) takes as a name.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// SnakeCase converts a tool name to lower snake_case: getUser, get-user,
// files.read and HTTPRequest become get_user, get_user, files_read and
// http_request. The result has at most 64 characters and is never empty.
func SnakeCase(s string) string {
	rs := []rune(s)
	var b strings.Builder
	under := func() {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "_") {
			b.WriteByte('_')
		}
	}
	for i, r := range rs {
		switch {
		case r < unicode.MaxASCII && unicode.IsUpper(r):
			prevLower := i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]))
			acronymEnd := i > 0 && unicode.IsUpper(rs[i-1]) && i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if prevLower || acronymEnd {
				under()
			}
			b.WriteRune(unicode.ToLower(r))
		case r < unicode.MaxASCII && (unicode.IsLower(r) || unicode.IsDigit(r)):
			b.WriteRune(r)
		default:
			under()
		}
	}
	out := strings.Trim(b.String(), "_")
	if out == "" {
		out = "tool"
	}
	if out[0] >= '0' && out[0] <= '9' {
		out = "tool_" + out
	}
	if len(out) > 64 {
		out = strings.TrimRight(out[:64], "_")
	}
	return out
}

// entry is one tool on its way into the catalog.
type entry struct {
	name     string
	keepWire bool // write original_name
	t        Tool
	notes    []Note
	node     *yaml.Node
}

func (e *entry) note(decide bool, format string, args ...any) {
	e.notes = append(e.notes, Note{Tool: e.name, Decide: decide, Message: fmt.Sprintf(format, args...)})
}

// Build makes one catalog of tools, in the order given: the first of two
// tools with one name keeps it.
func Build(tools []Tool, o Options) (*Result, error) {
	if o.Package == "" {
		o.Package = "tools"
	}
	if !regexp.MustCompile(`^[a-z][a-z0-9_]*$`).MatchString(o.Package) {
		return nil, fmt.Errorf("package %q is not a lower-case Go identifier", o.Package)
	}
	res := &Result{}
	byName := map[string]*entry{}
	byBase := map[string][]*entry{} // by the name before any suffix
	var entries []*entry
	// Tools already named in snake_case keep their names first, so that a
	// converted name never takes the name another tool is called by.
	var order []Tool
	for _, pass := range []bool{true, false} {
		for _, t := range tools {
			if (SnakeCase(t.Name) == t.Name) == pass {
				order = append(order, t)
			}
		}
	}
	for _, t := range order {
		e := &entry{name: SnakeCase(t.Name), t: t}
		if prev, dup := byName[e.name]; dup {
			if twin := sameAs(byBase[e.name], t); twin != nil {
				res.Merged++
				twin.note(false, "%s (%s) is the same tool as %s (%s); imported once", t.Name, t.Source, twin.t.Name, twin.t.Source)
				continue
			}
			base := e.name
			for i := 2; byName[e.name] != nil; i++ {
				suffix := fmt.Sprintf("_%d", i)
				e.name = strings.TrimRight(base[:min(len(base), 64-len(suffix))], "_") + suffix
			}
			e.note(true, "%s (%s) has the name of %s (%s) once in snake_case; named %s", t.Name, t.Source, prev.t.Name, prev.t.Source, e.name)
		}
		byName[e.name] = e
		byBase[SnakeCase(t.Name)] = append(byBase[SnakeCase(t.Name)], e)
		entries = append(entries, e)
	}
	// A wire name is kept only when no other tool answers to it.
	wire := map[string]int{}
	for _, e := range entries {
		wire[e.t.Name]++
	}
	for _, e := range entries {
		if e.name != e.t.Name && namePattern.MatchString(e.t.Name) && e.t.Format != FormatSchema {
			e.keepWire = byName[e.t.Name] == nil && wire[e.t.Name] == 1
		}
	}
	// The catalog lists tools by name.
	sortEntries(entries)
	toolsNode := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, e := range entries {
		e.build()
		if e.name != e.t.Name {
			res.Renamed++
		}
		k := strNode(e.name)
		k.HeadComment = e.headComment()
		toolsNode.Content = append(toolsNode.Content, k, e.node)
	}
	res.Tools = len(entries)
	doc := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	doc.HeadComment = "Written by toolcat import. Review every \"" + Decide + "\" and run toolcat lint."
	set(doc, "package", strNode(o.Package))
	set(doc, "tools", toolsNode)
	data, err := encode(doc)
	if err != nil {
		return nil, err
	}
	// A value that contradicts its schema is removed and the catalog
	// written again; removing one can make another contradict (a default
	// outside an enum whose member was removed), hence the few rounds.
	for range 3 {
		if repairValues(data, entries) == 0 {
			break
		}
		if data, err = encode(doc); err != nil {
			return nil, err
		}
	}
	for _, e := range entries {
		for _, n := range e.notes {
			n.Tool = e.name
			if n.Decide {
				res.Decide++
			}
			res.Notes = append(res.Notes, n)
		}
	}
	res.YAML = data
	return res, nil
}

// encode writes doc as YAML, indented by two spaces.
func encode(doc *yaml.Node) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("writing the catalog: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("writing the catalog: %w", err)
	}
	return buf.Bytes(), nil
}

func sortEntries(es []*entry) {
	for i := 1; i < len(es); i++ {
		for j := i; j > 0 && es[j].name < es[j-1].name; j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
}

// sameAs returns the entry of es that defines t, or nil.
func sameAs(es []*entry, t Tool) *entry {
	for _, e := range es {
		if same(e.t, t) {
			return e
		}
	}
	return nil
}

// same reports whether a and b define one tool.
func same(a, b Tool) bool {
	js := func(n *yaml.Node) string {
		if n == nil {
			return ""
		}
		return compact(n)
	}
	return a.Description == b.Description && js(a.Input) == js(b.Input) && js(a.Output) == js(b.Output)
}

// headComment keeps what the catalog has no field for.
func (e *entry) headComment() string {
	var lines []string
	if len(e.t.Extra) > 0 {
		lines = append(lines, fmt.Sprintf("From %s (%s); not mapped, kept here:", oneLine(e.t.Source), e.t.Format))
		for _, k := range sortedKeys(e.t.Extra) {
			lines = append(lines, "  "+oneLine(k)+": "+escapeControl(e.t.Extra[k]))
		}
	}
	return strings.Join(lines, "\n")
}

// build writes the entry's catalog node.
func (e *entry) build() {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	e.node = n
	t := e.t
	if len(e.t.Extra) > 0 {
		e.note(false, "%d field(s) of the source kept as a comment: %s", len(t.Extra), strings.Join(sortedKeys(t.Extra), ", "))
	}
	if e.name != t.Name && t.Format == FormatSchema {
		e.note(false, "named %s after the schema's title or file, %q", e.name, t.Name)
	} else if e.name != t.Name {
		if e.keepWire {
			set(n, "original_name", strNode(t.Name))
			e.note(false, "renamed from %s, kept as original_name (the wire name)", t.Name)
		} else if namePattern.MatchString(t.Name) {
			e.note(true, "renamed from %s, which another tool is called by; callers must use %s", t.Name, e.name)
			n.HeadComment = fmt.Sprintf("The source named this tool %q, as another tool.", t.Name)
		} else {
			e.note(true, "renamed from %q, which no provider accepts as a name; callers must use %s", t.Name, e.name)
			n.HeadComment = fmt.Sprintf("The source named this tool %q.", t.Name)
		}
	}
	d := strNode(t.Description)
	if strings.Contains(t.Description, "\n") {
		d.Style = yaml.LiteralStyle
	}
	if strings.TrimSpace(t.Description) == "" {
		// A catalog needs a description; this one tells the model little
		// and lint says so, until a human writes it.
		d = strNode(fmt.Sprintf("Calls %s; the source gave no description.", t.Name))
		d.LineComment = Decide + ": the source has no description; say what the tool does and when to use it"
		e.note(true, "no description")
	}
	set(n, "description", d)
	e.metadata(n)

	args := t.Input
	if args == nil {
		args = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		set(args, "type", strNode("object"))
		set(args, "properties", &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle})
		e.note(false, "no argument schema: takes no arguments")
	} else if args.Kind != yaml.MappingNode {
		e.note(true, "the argument schema is not an object (%s); kept as it is", compact(args))
	} else {
		for _, m := range Normalise(args, "args") {
			e.note(false, "%s", m)
		}
		e.repair(args, "args")
		if get(args, "type") == nil {
			args.Content = append([]*yaml.Node{strNode("type"), strNode("object")}, args.Content...)
			e.note(false, "args: type object added")
		}
		if ap := get(args, "additionalProperties"); ap == nil || !(ap.Tag == "!!bool" && ap.Value == "false") {
			v := strNode("reject")
			v.LineComment = Decide + ": the source schema leaves additionalProperties open; reject refuses arguments it does not declare, allow passes them on"
			set(n, "additional_args", v)
			e.note(true, "additional_args: the source leaves the argument object open")
		}
	}
	set(n, "args", args)
	if t.Output != nil {
		if t.Output.Kind == yaml.MappingNode {
			for _, m := range Normalise(t.Output, "result") {
				e.note(false, "%s", m)
			}
			e.repair(t.Output, "result")
		}
		set(n, "result", t.Output)
	}
	if len(t.Examples) > 0 {
		ex := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, a := range t.Examples {
			item := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			set(item, "args", a)
			ex.Content = append(ex.Content, item)
		}
		set(n, "examples", ex)
		e.note(false, "%d input example(s) kept as examples", len(t.Examples))
	}
}

// metadata maps what the source says about the tool's behaviour: MCP's
// annotations, read as MCP defines them (a tool that does not say it is
// read-only may write; one that writes is destructive unless it says
// otherwise; every tool is open-world unless it says otherwise). What a
// source does not say is assumed on the safe side and marked to decide.
func (e *entry) metadata(n *yaml.Node) {
	a := e.t.Annotations
	if a == nil {
		a = &Annotations{}
	}
	field := func(key string, v *yaml.Node, why string) {
		if why != "" {
			v.LineComment = Decide + ": " + why
			e.note(true, "%s: %s", key, why)
		}
		set(n, key, v)
	}
	src := "MCP annotations"
	if e.t.Format != FormatMCP {
		src = string(e.t.Format) + " tools"
	}
	var why string
	readOnly := false
	if a.ReadOnly != nil {
		readOnly = *a.ReadOnly
	} else {
		why = "no readOnlyHint in the source; assumed to change something"
		if e.t.Format != FormatMCP {
			why = src + " do not say; assumed to change something"
		}
	}
	if readOnly {
		field("risk", strNode("low"), "")
		field("has_side_effects", boolNode(false), "")
		field("idempotent", boolNode(true), "")
	} else {
		risk := "high"
		riskWhy := "the source says it may destroy data (destructiveHint)"
		if a.Destructive != nil && !*a.Destructive {
			risk, riskWhy = "medium", "the source says it changes data without destroying it"
		} else if a.Destructive == nil {
			riskWhy = "no destructiveHint; MCP assumes destructive"
			if e.t.Format != FormatMCP {
				riskWhy = src + " do not say how much harm a call can do; assumed high"
			}
		}
		field("risk", strNode(risk), riskWhy)
		field("has_side_effects", boolNode(true), why)
		switch {
		case a.Destructive != nil && !*a.Destructive:
			field("side_effect", strNode("additive"), "")
		case a.Destructive != nil:
			field("side_effect", strNode("destructive"), "destructiveHint does not tell deleting from overwriting; overwrites if the tool changes what exists in place")
		case e.t.Format == FormatMCP:
			field("side_effect", strNode("destructive"), "no destructiveHint; MCP assumes destructive (additive if the tool only adds, overwrites if it changes what exists in place)")
		default:
			field("side_effect", strNode("destructive"), src+" do not say; assumed destructive (additive if the tool only adds, overwrites if it changes what exists in place)")
		}
		idem := a.Idempotent != nil && *a.Idempotent
		idemWhy := ""
		if a.Idempotent == nil {
			idemWhy = "no idempotentHint; assumed not safe to repeat"
		}
		field("idempotent", boolNode(idem), idemWhy)
	}
	untrusted, uWhy := true, ""
	if a.OpenWorld != nil {
		untrusted = *a.OpenWorld
	} else {
		uWhy = "no openWorldHint; output assumed to carry outside content"
	}
	field("returns_untrusted", boolNode(untrusted), uWhy)
}

// oneLine writes s for a comment line: control characters as JSON
// escapes, so that a key or file name cannot end the comment.
func oneLine(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	q, _ := json.Marshal(s)
	return escapeControl(string(q))
}

// escapeControl writes the control characters of s as \u escapes, as a
// YAML comment must not hold them (JSON leaves DEL and C1 ones as they
// are).
func escapeControl(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) {
			fmt.Fprintf(&b, "\\u%04x", r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}
