package catalog

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
)

// decode turns the validated catalog value into the Go model, with the
// position of every tool and field.
func (l *loader) decode(cat cue.Value, files []File) *Catalog {
	c := &Catalog{
		Package: str(cat, "package"),
		Title:   str(cat, "title"),
		Pos:     Pos{File: files[0].Name, Line: 1, Col: 1},
	}
	// The format gives it a default: it is always set.
	c.IdempotencyKey = str(cat, "idempotency_key")
	for _, f := range files {
		c.Files = append(c.Files, f.Name)
	}
	eachField(cat.LookupPath(cue.ParsePath("services")), func(name string, v cue.Value) {
		c.Services = append(c.Services, &Service{
			Name:        name,
			Description: str(v, "description"),
			URL:         str(v, "url"),
			Pos:         l.keyPos(l.pos(v.Pos()), "services", name),
		})
	})
	// The user's value of a tool gives positions where no YAML or JSON
	// tree does. A lookup by name in a struct scans its fields, so the
	// tools are listed once, when a tool first needs one.
	var userTools map[string]cue.Value
	user := func(name string) cue.Value {
		if userTools == nil {
			userTools = map[string]cue.Value{}
			eachField(l.data.LookupPath(cue.ParsePath("tools")), func(name string, v cue.Value) {
				userTools[name] = v
			})
		}
		if v, ok := userTools[name]; ok {
			return v
		}
		return l.data.LookupPath(cue.MakePath(cue.Str("tools"), cue.Str(name)))
	}
	eachField(cat.LookupPath(cue.ParsePath("tools")), func(name string, v cue.Value) {
		c.Tools = append(c.Tools, l.decodeTool(name, v, user))
	})
	c.Suppress = l.suppressions(cat.LookupPath(cue.ParsePath("suppress")), "suppress")
	c.Metadata = l.metadata(cat)
	sort.Slice(c.Services, func(i, j int) bool { return c.Services[i].Name < c.Services[j].Name })
	sort.Slice(c.Tools, func(i, j int) bool { return c.Tools[i].Name < c.Tools[j].Name })
	return c
}

// finishTools does what needs the whole catalog, once its parts are
// decoded: a tool without an idempotency_key gets the catalog's when it
// has side effects, host otherwise, and original names are checked.
func (l *loader) finishTools(c *Catalog) {
	for _, t := range c.Tools {
		if t.IdempotencyKey == "" {
			t.IdempotencyKey = IdempotencyKeyHost
			if t.HasSideEffects {
				t.IdempotencyKey = c.IdempotencyKey
			}
		}
	}
	l.checkOriginalNames(c)
	for _, t := range c.Tools {
		if strings.TrimSpace(t.Description) == "" && !l.reported(t.Name, "description") {
			l.errs.add(t.PosOf("description"), "tools.%s.description: empty; say what the tool does, when to use it and when not to: the model reads it to choose the tool", t.Name)
		}
		if t.SideEffect != "" && !t.HasSideEffects {
			l.errs.add(t.PosOf("side_effect"), "tools.%s: side_effect %s says what a side effect does, but has_side_effects is false; set has_side_effects: true, or remove side_effect", t.Name, t.SideEffect)
		}
	}
}

// reported reports whether an error names field of tool already: one
// that is missing, or of the wrong type.
func (l *loader) reported(tool, field string) bool {
	return slices.ContainsFunc(l.errs, func(e *Error) bool {
		return strings.Contains(e.Msg, "tools."+tool+"."+field+":") || strings.Contains(e.Msg, "tools."+tool+": missing required field \""+field+"\"") ||
			strings.Contains(e.Msg, "tools."+tool+": got ") || strings.Contains(e.Msg, "tool name "+strconv.Quote(tool))
	})
}

// checkOriginalNames reports an original_name that another tool is
// called by: the registry answers to both names of a tool, so every name
// must be one tool's.
func (l *loader) checkOriginalNames(c *Catalog) {
	names := make(map[string]string, len(c.Tools))
	for _, t := range c.Tools {
		names[t.Name] = t.Name
	}
	for _, t := range c.Tools {
		o := t.OriginalName
		if o == "" || o == t.Name {
			continue
		}
		if other, taken := names[o]; taken {
			what := "is the name of tool " + other
			if other != o {
				what = "is the original_name of tool " + other + " too"
			}
			l.errs.add(t.PosOf("original_name"), "tools.%s: original_name %q %s; a name calls one tool only", t.Name, o, what)
			continue
		}
		names[o] = t.Name
	}
}

// decodeTool decodes tool name from its value v in the catalog; userTool
// returns a tool's value as the user's files wrote it.
func (l *loader) decodeTool(name string, v cue.Value, userTool func(string) cue.Value) *Tool {
	t := &Tool{Name: name, FieldPos: map[string]Pos{}}
	// One pass over the tool's fields: a lookup per field costs more.
	var toolName string
	if it, err := v.Fields(); err == nil {
		for it.Next() {
			f := it.Value()
			switch it.Selector().Unquoted() {
			case "name":
				toolName, _ = f.String()
			case "description":
				t.Description, _ = f.String()
			case "original_name":
				t.OriginalName, _ = f.String()
			case "category":
				t.Category, _ = f.String()
			case "version":
				t.Version, _ = f.String()
			case "owner":
				t.Owner, _ = f.String()
			case "risk":
				r, _ := f.String()
				t.Risk = Risk(r)
			case "has_side_effects":
				t.HasSideEffects, _ = f.Bool()
			case "side_effect":
				t.SideEffect, _ = f.String()
			case "idempotent":
				t.Idempotent, _ = f.Bool()
			case "idempotency_required":
				t.IdempotencyRequired, _ = f.Bool()
			case "supports_dry_run":
				t.SupportsDryRun, _ = f.Bool()
			case "revertible":
				t.Revertible, _ = f.Bool()
			case "returns_untrusted":
				t.ReturnsUntrusted, _ = f.Bool()
			case "capability_required":
				t.CapabilityRequired, _ = f.String()
			case "exposure":
				t.Exposure, _ = f.String()
			case "autonomy":
				a, _ := f.String()
				t.Autonomy = Autonomy(a)
			case "max_retries":
				n, _ := f.Int64()
				t.MaxRetries = int(n)
			case "sla_ms":
				n, _ := f.Int64()
				t.SLAms = int(n)
			case "max_result_bytes":
				n, _ := f.Int64()
				t.MaxResultBytes = int(n)
			case "fallback_tool":
				t.FallbackTool, _ = f.String()
			case "additional_args":
				t.AdditionalArgs, _ = f.String()
			case "idempotency_key":
				t.IdempotencyKey, _ = f.String()
			}
		}
	}
	if f := l.treeField("tools", name); f != nil {
		// A tool written in YAML or JSON has exact positions in its tree.
		t.Pos = f.KeyPos
		for _, tf := range f.Value.Fields {
			t.FieldPos[tf.Key] = tf.KeyPos
		}
	} else {
		user := userTool(name)
		t.Pos = l.pos(user.Pos())
		if !t.Pos.IsValid() {
			t.Pos = l.pos(v.Pos())
		}
		if it, err := user.Fields(); err == nil {
			for it.Next() {
				if p := l.pos(it.Value().Pos()); p.IsValid() {
					t.FieldPos[it.Selector().Unquoted()] = p
				}
			}
		}
		if p := l.cuePos("tools", name); p.IsValid() {
			t.Pos = p
		}
	}
	if toolName != "" && toolName != name {
		l.errs.add(t.PosOf("name"), "tools.%s: name %q differs from the tool's key %q; drop the name field or make them equal", name, toolName, name)
	}
	t.Dependencies, t.DependencyPos = l.stringList(t, v, "dependencies")
	t.Queries, t.QueryPos = l.stringList(t, v, "queries")
	t.RenamedFrom, t.RenamedFromPos = l.stringList(t, v, "renamed_from")
	// The schemas of a tool with other errors are still checked, as long
	// as they are themselves well-formed values.
	t.Args = l.schema(name, "args", v, t.Pos)
	t.Result = l.schema(name, "result", v, t.PosOf("result"))
	if !l.valid && v.Validate(cue.Concrete(true)) != nil {
		return t // reported by validation
	}
	eachField(v.LookupPath(cue.ParsePath("errors")), func(code string, e cue.Value) {
		h := ErrorHint{Code: code, Suggestion: str(e, "suggestion"), Pos: l.keyPos(l.pos(e.Pos()), "tools", name, "errors", code)}
		if r := e.LookupPath(cue.ParsePath("retry_allowed")); r.Exists() {
			b, _ := r.Bool()
			h.RetryAllowed = &b
		}
		t.Errors = append(t.Errors, h)
	})
	var userExamples *Node
	if f := l.treeField("tools", name, "examples"); f != nil {
		userExamples = f.Value
	}
	if it, err := v.LookupPath(cue.ParsePath("examples")).List(); err == nil {
		for i := 0; it.Next(); i++ {
			e := it.Value()
			ex := Example{
				Description: str(e, "description"),
				Error:       str(e, "error"),
				Pos:         l.pos(e.Pos()),
			}
			if !ex.Pos.IsValid() {
				ex.Pos = t.PosOf("examples")
			}
			var user *Node
			if userExamples != nil && userExamples.Kind == Array && i < len(userExamples.Items) {
				user = userExamples.Items[i]
				ex.Pos = user.Pos
			}
			ex.Args = l.node(e.LookupPath(cue.ParsePath("args")), ex.Pos, 0)
			overlayPos(ex.Args, user.Field("args"))
			if r := e.LookupPath(cue.ParsePath("result")); r.Exists() {
				ex.Result = l.node(r, ex.Pos, 0)
				overlayPos(ex.Result, user.Field("result"))
			}
			t.Examples = append(t.Examples, ex)
		}
	}
	t.Suppress = l.suppressions(v.LookupPath(cue.ParsePath("suppress")), "tools", name, "suppress")
	return t
}

// stringList decodes the tool's list of strings field, with the position
// of each item: as written in YAML or JSON, else CUE's, else the field's.
func (l *loader) stringList(t *Tool, v cue.Value, field string) ([]string, []Pos) {
	it, err := v.LookupPath(cue.MakePath(cue.Str(field))).List()
	if err != nil {
		return nil, nil
	}
	var user *Node
	if f := l.treeField("tools", t.Name, field); f != nil && f.Value.Kind == Array {
		user = f.Value
	}
	var items []string
	var pos []Pos
	for i := 0; it.Next(); i++ {
		s, _ := it.Value().String()
		p := l.pos(it.Value().Pos())
		if user != nil && i < len(user.Items) {
			p = user.Items[i].Pos
		}
		if !p.IsValid() {
			p = t.PosOf(field)
		}
		items = append(items, s)
		pos = append(pos, p)
	}
	return items, pos
}

// metadata decodes the top-level fields the format does not declare.
func (l *loader) metadata(cat cue.Value) []Metadata {
	declared := fieldNames(l.def)
	var out []Metadata
	eachField(cat, func(name string, v cue.Value) {
		if slices.Contains(declared, name) {
			return
		}
		m := Metadata{Key: name, Pos: l.keyPos(l.pos(v.Pos()), name)}
		if p := l.cuePos(name); p.IsValid() {
			m.Pos = p
		}
		if v.Kind() == cue.StringKind {
			m.Value, _ = v.String()
		} else if f := l.treeField(name); f != nil && f.Value.Kind == Number {
			m.Value = f.Value.Num // as written, as direct keeps it
		} else {
			b, _ := v.MarshalJSON()
			m.Value = string(b)
		}
		out = append(out, m)
	})
	return out
}

// suppressions decodes a suppress list found at path.
func (l *loader) suppressions(v cue.Value, path ...string) []Suppression {
	var out []Suppression
	it, err := v.List()
	if err != nil {
		return nil
	}
	var user *Node
	if f := l.treeField(path...); f != nil {
		user = f.Value
	}
	for i := 0; it.Next(); i++ {
		s := it.Value()
		p := l.pos(s.Pos())
		if user != nil && user.Kind == Array && i < len(user.Items) {
			p = user.Items[i].Pos
		}
		if !p.IsValid() {
			p = l.keyPos(l.start, path...)
		}
		out = append(out, Suppression{Rule: str(s, "rule"), Reason: str(s, "reason"), Pos: p})
	}
	return out
}

// keyPos returns the position of the key at path in the YAML and JSON
// files, or p when none writes it.
func (l *loader) keyPos(p Pos, path ...string) Pos {
	if f := l.treeField(path...); f != nil {
		return f.KeyPos
	}
	return p
}

// node converts a CUE value into a positioned JSON node; fallback is the
// position used where CUE has none (values from defaults).
func (l *loader) node(v cue.Value, fallback Pos, depth int) *Node {
	if v.Kind() == cue.BottomKind {
		if d, ok := v.Default(); ok {
			v = d
		}
	}
	p := l.pos(v.Pos())
	if !p.IsValid() {
		p = fallback
	}
	n := &Node{Pos: p}
	if depth > maxDepth {
		return n
	}
	switch v.Kind() {
	case cue.NullKind:
		n.Kind = Null
	case cue.BoolKind:
		n.Kind = Bool
		n.Bool, _ = v.Bool()
	case cue.IntKind, cue.FloatKind:
		n.Kind = Number
		b, _ := v.MarshalJSON()
		n.Num = string(b)
	case cue.StringKind:
		n.Kind = String
		n.Str, _ = v.String()
	case cue.StructKind:
		n.Kind = Object
		eachField(v, func(name string, fv cue.Value) {
			child := l.node(fv, p, depth+1)
			n.Fields = append(n.Fields, &Field{Key: name, KeyPos: child.Pos, Value: child})
		})
	case cue.ListKind:
		n.Kind = Array
		if it, err := v.List(); err == nil {
			for it.Next() {
				n.Items = append(n.Items, l.node(it.Value(), p, depth+1))
			}
		}
	}
	return n
}

func eachField(v cue.Value, fn func(name string, v cue.Value)) {
	it, err := v.Fields()
	if err != nil {
		return
	}
	for it.Next() {
		fn(it.Selector().Unquoted(), it.Value())
	}
}

func str(v cue.Value, field string) string {
	s, _ := v.LookupPath(cue.MakePath(cue.Str(field))).String()
	return s
}

// treeField finds the field at path in the parsed YAML and JSON files, in
// load order; nil when no such file writes it. Tools are found through the
// index that load builds once the files are parsed (catalogs have
// thousands, and the parts of a catalog share it).
func (l *loader) treeField(path ...string) *Field {
	if len(path) >= 2 && path[0] == "tools" {
		for _, tf := range l.toolIndex[path[1]] {
			f := tf
			for _, p := range path[2:] {
				if f = f.Value.Field(p); f == nil {
					break
				}
			}
			if f != nil {
				return f
			}
		}
		return nil
	}
	for _, root := range l.trees {
		var f *Field
		n := root
		for _, p := range path {
			if f = n.Field(p); f == nil {
				break
			}
			n = f.Value
		}
		if f != nil {
			return f
		}
	}
	return nil
}

// indexTools maps each tool name to its fields in the parsed files.
func (l *loader) indexTools() {
	l.toolIndex = map[string][]*Field{}
	for _, root := range l.trees {
		if tools := root.Get("tools"); tools != nil && tools.Kind == Object {
			for _, f := range tools.Fields {
				l.toolIndex[f.Key] = append(l.toolIndex[f.Key], f)
			}
		}
	}
}

// overlayPos copies the exact positions of a parsed value onto the node
// decoded from CUE, where their shapes agree.
func overlayPos(n *Node, user *Field) {
	if user == nil {
		return
	}
	var walk func(n, u *Node)
	walk = func(n, u *Node) {
		if n == nil || u == nil || n.Kind != u.Kind {
			return
		}
		n.Pos = u.Pos
		switch n.Kind {
		case Number:
			n.Num = u.Num // as written: CUE writes -0 as -NaN
		case Object:
			for _, f := range n.Fields {
				if uf := u.Field(f.Key); uf != nil {
					f.KeyPos = uf.KeyPos
					walk(f.Value, uf.Value)
				}
			}
		case Array:
			for i := range min(len(n.Items), len(u.Items)) {
				walk(n.Items[i], u.Items[i])
			}
		}
	}
	walk(n, user.Value)
}

// schema returns a tool's args or result schema: as written in YAML or
// JSON, or as evaluated from CUE (where the format's default applies).
func (l *loader) schema(tool, field string, v cue.Value, fallback Pos) *Node {
	if f, ok := l.schemas[[2]string{tool, field}]; ok {
		if p := l.cuePos("tools", tool, field); p.IsValid() {
			l.errs.add(f.KeyPos, "tools.%s.%s: written again; it was written at %s, and a schema is written in one file", tool, field, p)
		}
		return f.Value
	}
	sv := v.LookupPath(cue.MakePath(cue.Str(field)))
	if !sv.Exists() || sv.Validate(cue.Concrete(true)) != nil {
		return nil
	}
	return l.node(sv, fallback, 0)
}
