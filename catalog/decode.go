package catalog

import (
	"sort"

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
	userTools := l.data.LookupPath(cue.ParsePath("tools"))
	eachField(cat.LookupPath(cue.ParsePath("tools")), func(name string, v cue.Value) {
		c.Tools = append(c.Tools, l.decodeTool(name, v, userTools.LookupPath(cue.MakePath(cue.Str(name)))))
	})
	c.Suppress = l.suppressions(cat.LookupPath(cue.ParsePath("suppress")), "suppress")
	sort.Slice(c.Services, func(i, j int) bool { return c.Services[i].Name < c.Services[j].Name })
	sort.Slice(c.Tools, func(i, j int) bool { return c.Tools[i].Name < c.Tools[j].Name })
	return c
}

func (l *loader) decodeTool(name string, v, user cue.Value) *Tool {
	t := &Tool{
		Name:                name,
		Description:         str(v, "description"),
		Category:            str(v, "category"),
		Version:             str(v, "version"),
		Owner:               str(v, "owner"),
		Risk:                Risk(str(v, "risk")),
		HasSideEffects:      boolean(v, "has_side_effects"),
		Idempotent:          boolean(v, "idempotent"),
		IdempotencyRequired: boolean(v, "idempotency_required"),
		SupportsDryRun:      boolean(v, "supports_dry_run"),
		Revertible:          boolean(v, "revertible"),
		ReturnsUntrusted:    boolean(v, "returns_untrusted"),
		CapabilityRequired:  str(v, "capability_required"),
		Exposure:            str(v, "exposure"),
		Autonomy:            Autonomy(str(v, "autonomy")),
		MaxRetries:          integer(v, "max_retries"),
		SLAms:               integer(v, "sla_ms"),
		FallbackTool:        str(v, "fallback_tool"),
		AdditionalArgs:      str(v, "additional_args"),
		Pos:                 l.pos(user.Pos()),
		FieldPos:            map[string]Pos{},
	}
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
	// A tool written in YAML or JSON has exact positions in its tree.
	if f := l.treeField("tools", name); f != nil {
		t.Pos = f.KeyPos
		for _, tf := range f.Value.Fields {
			t.FieldPos[tf.Key] = tf.KeyPos
		}
	}
	if n := str(v, "name"); n != "" && n != name {
		l.errs.add(t.PosOf("name"), "tools.%s: name %q differs from the tool's key %q; drop the name field or make them equal", name, n, name)
	}
	if it, err := v.LookupPath(cue.ParsePath("dependencies")).List(); err == nil {
		var user *Node
		if f := l.treeField("tools", name, "dependencies"); f != nil && f.Value.Kind == Array {
			user = f.Value
		}
		for i := 0; it.Next(); i++ {
			s, _ := it.Value().String()
			p := l.pos(it.Value().Pos())
			if user != nil && i < len(user.Items) {
				p = user.Items[i].Pos
			}
			if !p.IsValid() {
				p = t.PosOf("dependencies")
			}
			t.Dependencies = append(t.Dependencies, s)
			t.DependencyPos = append(t.DependencyPos, p)
		}
	}
	// The schemas of a tool with other errors are still checked, as long
	// as they are themselves well-formed values.
	t.Args = l.schema(name, "args", v, t.Pos)
	t.Result = l.schema(name, "result", v, t.PosOf("result"))
	if v.Validate(cue.Concrete(true)) != nil {
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

func boolean(v cue.Value, field string) bool {
	b, _ := v.LookupPath(cue.MakePath(cue.Str(field))).Bool()
	return b
}

func integer(v cue.Value, field string) int {
	i, _ := v.LookupPath(cue.MakePath(cue.Str(field))).Int64()
	return int(i)
}

// treeField finds the field at path in the parsed YAML and JSON files, in
// load order; nil when no such file writes it.
func (l *loader) treeField(path ...string) *Field {
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
