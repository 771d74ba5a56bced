package catalog

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"cuelang.org/go/cue"
	cueerrors "cuelang.org/go/cue/errors"

	"github.com/toolcat/toolcat/runtime"
)

// cueErrors records CUE errors with the user's positions and messages
// that say what was found and what the format allows.
func (l *loader) cueErrors(err error) {
	seen := map[string]bool{}
	for _, e := range cueerrors.Errors(err) {
		path := slices.Clone(e.Path())
		if len(path) > 0 && path[0] == "#Catalog" {
			path = path[1:]
		}
		for i, p := range path {
			// CUE quotes the labels that are not identifiers: "get-user".
			if strings.HasPrefix(p, `"`) {
				if u, err := strconv.Unquote(p); err == nil {
					path[i] = u
				}
			}
		}
		key := strings.Join(path, "\x00")
		if len(path) > 0 && seen[key] {
			continue
		}
		seen[key] = true
		pos, msg := l.explain(path, e)
		if msg == "" {
			continue // reported by checkFields
		}
		if !pos.IsValid() {
			// The earliest of the user's positions, so the choice is stable.
			for _, p := range e.InputPositions() {
				if q := l.pos(p); q.IsValid() && (!pos.IsValid() || q.Before(pos)) {
					pos = q
				}
			}
		}
		if !pos.IsValid() {
			pos = l.pos(e.Position())
		}
		if len(path) > 0 && !strings.HasPrefix(msg, pathString(path[:1])) {
			msg = pathString(path) + ": " + msg
		}
		l.errs = append(l.errs, &Error{Pos: pos, Msg: msg})
	}
}

// explain turns one CUE error into a position and a message; the position
// is invalid when CUE's own positions should be used.
func (l *loader) explain(path []string, e cueerrors.Error) (Pos, string) {
	format, args := e.Msg()
	raw := fmt.Sprintf(format, args...)
	if len(path) == 0 || !l.data.Exists() {
		return Pos{}, raw
	}
	if strings.Contains(raw, "field not allowed") || l.isMetadata(path) {
		return Pos{}, "" // checkFields says it better, with a did-you-mean
	}
	dv, parent := l.dataAt(path)
	if !dv.Exists() {
		return l.keyPos(l.pos(parent.Pos()), path[:len(path)-1]...), missingField(path)
	}
	if dv.Err() != nil {
		// A conflict between files: name where each value is written.
		return Pos{}, raw + l.writtenAt(e)
	}
	pos := l.pos(dv.Pos())
	if f := l.treeField(path...); f != nil {
		pos = f.Value.Pos // the value itself, as written in YAML or JSON
	}
	d := l.defAt(path)
	if !d.Exists() || d.Err() != nil || !dv.IsConcrete() {
		return pos, raw
	}
	if isNameDef(d) && dv.Kind() == cue.StringKind {
		if len(path) == 3 && path[0] == "tools" && path[2] == "name" {
			return pos, "" // the tool's key says it, or that it differs from the name
		}
		s, _ := dv.String()
		if err := runtime.CheckName(s); err != nil {
			return pos, err.Error()
		}
	}
	if op, args := d.Expr(); op == cue.OrOp && strings.Contains(raw, "empty disjunction") && len(literalAlternatives(d)) == 0 {
		// A field with a default, #Retries | *0: say what the constraint
		// wants, not that no alternative matched.
		for _, a := range args {
			if _, isDefault := a.Default(); !a.IsConcrete() || isDefault {
				if err := a.Unify(dv).Validate(cue.Concrete(true)); err != nil {
					errs := cueerrors.Errors(err)
					f, args := errs[0].Msg()
					raw = fmt.Sprintf(f, args...)
					d = a
					break
				}
			}
		}
	}
	got := valueString(dv)
	if alts := literalAlternatives(d); len(alts) > 0 {
		return pos, fmt.Sprintf("got %s; want one of %s", got, strings.Join(alts, ", "))
	}
	if want := d.IncompleteKind(); want&dv.Kind() == 0 {
		if kind := kindName(dv.Kind()); kind != got { // null, an object, a list say it all
			got = kind + " " + got
		}
		return pos, fmt.Sprintf("got %s; want %s", got, kindName(want))
	}
	return pos, boundMessage(raw, got, dv)
}

// writtenAt lists the user's positions of a conflict, " (written at
// a.yaml:4:11 and b.yaml:3:11)", or "" when fewer than two are known.
func (l *loader) writtenAt(e cueerrors.Error) string {
	var ps []Pos
	for _, p := range e.InputPositions() {
		if q := l.pos(p); q.IsValid() && !slices.Contains(ps, q) {
			ps = append(ps, q)
		}
	}
	if len(ps) < 2 {
		return ""
	}
	slices.SortFunc(ps, func(a, b Pos) int {
		if a.Before(b) {
			return -1
		}
		if b.Before(a) {
			return 1
		}
		return 0
	})
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	return " (written at " + strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1] + ")"
}

// isNameDef reports whether d is the format's #Name, the pattern of
// runtime.NamePattern, or a disjunction with it (#Name | null).
func isNameDef(d cue.Value) bool { return nameDef(d, 0) }

func nameDef(d cue.Value, depth int) bool {
	if depth > 4 {
		return false
	}
	for _, v := range []cue.Value{d, d.Eval()} {
		switch op, args := v.Expr(); op {
		case cue.RegexMatchOp:
			if len(args) == 1 {
				re, err := args[0].String()
				return err == nil && re == runtime.NamePattern
			}
		case cue.OrOp:
			for _, a := range args {
				if nameDef(a, depth+1) {
					return true
				}
			}
		}
	}
	return false
}

// boundMessage rewrites CUE's "invalid value -5 (out of bound >0)" as
// "got -5; want >0", and a failed length builtin, "invalid value [...]
// (does not satisfy list.MaxItems(20))", as "got a list of 21 items; want
// at most 20 items".
func boundMessage(raw, got string, dv cue.Value) string {
	if i := strings.LastIndex(raw, " (does not satisfy "); i >= 0 && strings.HasPrefix(raw, "invalid value ") && strings.HasSuffix(raw, ")") {
		if want, ok := lengthWant(raw[i+len(" (does not satisfy ") : len(raw)-1]); ok {
			return "got " + lengthGot(dv, got) + "; want " + want
		}
	}
	inner, ok := strings.CutPrefix(raw, "invalid value "+got+" (")
	if !ok || !strings.HasSuffix(inner, ")") {
		return raw
	}
	inner = strings.TrimSuffix(inner, ")")
	switch {
	case inner == `out of bound =~"\\S"`:
		// The format's way to say "not blank".
		return "got " + got + "; want some text, not only blanks"
	case strings.HasPrefix(inner, "out of bound "):
		return "got " + got + "; want " + strings.TrimPrefix(inner, "out of bound ")
	case strings.HasPrefix(inner, "does not match "):
		return "got " + got + "; want a value matching " + strings.TrimPrefix(inner, "does not match ")
	}
	return "got " + got + ": " + inner
}

// missingField is the message for a required field absent at path.
func missingField(path []string) string {
	msg := fmt.Sprintf("missing required field %q", path[len(path)-1])
	if len(path) > 1 {
		msg = pathString(path[:len(path)-1]) + ": " + msg
	}
	return msg
}

// dataAt returns the user's value at path and the nearest existing parent.
func (l *loader) dataAt(path []string) (v, parent cue.Value) {
	v = l.data
	for _, p := range path {
		parent = v
		v = v.LookupPath(cue.MakePath(selectorFor(v, p)))
		if !v.Exists() {
			return v, parent
		}
	}
	return v, parent
}

// defAt returns the format's definition at path, following pattern
// constraints such as tools: [Name]: #Tool.
func (l *loader) defAt(path []string) cue.Value {
	d := l.def
	data := l.data
	var dpath []string
	for _, p := range path {
		sel := selectorFor(data, p)
		data = data.LookupPath(cue.MakePath(sel))
		var pattern bool
		d, pattern = l.defChildCached(d, sel, dpath)
		switch {
		case sel.Type() == cue.IndexLabel:
			dpath = append(dpath, "[]")
		case pattern:
			dpath = append(dpath, "*")
		default:
			dpath = append(dpath, p)
		}
		if !d.Exists() {
			return d
		}
	}
	return d
}

// defChildCached is defChild for checkFields and defAt: the definition that a
// pattern gives a field (every tool's #Tool) is made once per parent and
// reused for its siblings, which are already known to match the pattern.
// dpath is the parent's path in the definition, "*" standing for names
// that a pattern matched; the second result says the child is one of them.
//
// A field that d declares, regular or optional, is looked up once per
// definition path and name too: listing a definition's optional fields
// costs more than anything else checkFields does, and every tool of a
// catalog asks for the same few.
func (l *loader) defChildCached(d cue.Value, sel cue.Selector, dpath []string) (cue.Value, bool) {
	key := strings.Join(dpath, "\x00")
	if sel.Type() == cue.StringLabel {
		named := key + "\x00\x00" + sel.Unquoted()
		if c, ok := l.namedDefs[named]; ok {
			if c.Exists() {
				return c, false
			}
		} else {
			c, ok := d.LookupPath(cue.MakePath(sel)), true
			if !c.Exists() {
				c, ok = optionalField(d, sel)
			}
			if !ok {
				c = cue.Value{}
			}
			if l.namedDefs == nil {
				l.namedDefs = map[string]cue.Value{}
			}
			l.namedDefs[named] = c
			if c.Exists() {
				return c, false
			}
		}
	} else {
		if c := d.LookupPath(cue.MakePath(sel)); c.Exists() {
			return c, false
		}
	}
	if c, ok := l.patternDefs[key]; ok {
		return c, true
	}
	c := defChild(d, sel)
	if l.patternDefs == nil {
		l.patternDefs = map[string]cue.Value{}
	}
	l.patternDefs[key] = c
	return c, true
}

// optionalField returns the definition of an optional field that d
// declares by name, such as #Tool's sla_ms?, evaluated so that its
// alternatives can be listed; a plain lookup does not find it.
func optionalField(d cue.Value, sel cue.Selector) (cue.Value, bool) {
	if sel.Type() != cue.StringLabel {
		return cue.Value{}, false
	}
	it, err := d.Fields(cue.Optional(true))
	if err != nil {
		return cue.Value{}, false
	}
	name := sel.Unquoted()
	for it.Next() {
		if it.IsOptional() && it.Selector().Unquoted() == name {
			return it.Value().Eval(), true
		}
	}
	return cue.Value{}, false
}

// defChild returns the definition of one field or element of d. A field
// that only a pattern constraint defines (tools: [Name]: #Tool) is made by
// filling it with top, so that the pattern applies.
func defChild(d cue.Value, sel cue.Selector) cue.Value {
	p := cue.MakePath(sel)
	if c := d.LookupPath(p); c.Exists() {
		return c
	}
	if sel.Type() == cue.IndexLabel {
		return d.LookupPath(cue.MakePath(cue.AnyIndex))
	}
	return d.FillPath(p, d.Context().CompileString("_")).LookupPath(p)
}

func selectorFor(v cue.Value, p string) cue.Selector {
	if v.IncompleteKind() == cue.ListKind {
		if i, err := strconv.Atoi(p); err == nil {
			return cue.Index(i)
		}
	}
	return cue.Str(p)
}

// pathString writes a CUE path the way a user reads it:
// tools.search_articles.args.
func pathString(path []string) string {
	var b strings.Builder
	for i, p := range path {
		if _, err := strconv.Atoi(p); err == nil {
			b.WriteString("[" + p + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

// literalAlternatives lists the values of a disjunction of literals, such
// as "low" | "medium" | "high"; it returns nil for any other definition.
func literalAlternatives(d cue.Value) []string {
	var out []string
	var walk func(v cue.Value, depth int) bool
	walk = func(v cue.Value, depth int) bool {
		if depth > 8 {
			return false
		}
		op, args := v.Expr()
		switch {
		case op == cue.OrOp:
			for _, a := range args {
				if !walk(a, depth+1) {
					return false
				}
			}
			return true
		case v.IsConcrete() && v.Kind() != cue.StructKind && v.Kind() != cue.ListKind:
			if s := valueString(v); !slices.Contains(out, s) {
				out = append(out, s)
			}
			return true
		case op == cue.SelectorOp || op == cue.NoOp:
			// A reference such as #Risk: look at what it stands for.
			if e := v.Eval(); e.Exists() && (op != cue.NoOp || len(args) != 1 || !args[0].Equals(v)) {
				op2, _ := e.Expr()
				if op2 == cue.OrOp {
					return walk(e, depth+1)
				}
			}
		}
		return false
	}
	if op, _ := d.Expr(); op != cue.OrOp || !walk(d, 0) {
		return nil
	}
	return out
}

func valueString(v cue.Value) string {
	switch v.Kind() {
	case cue.StringKind:
		s, _ := v.String()
		if len(s) > 60 {
			// Cut at a character boundary, not inside one.
			n := 57
			for n > 0 && !utf8.RuneStart(s[n]) {
				n--
			}
			s = s[:n] + "..."
		}
		return strconv.Quote(s)
	case cue.StructKind:
		return "an object"
	case cue.ListKind:
		return "a list"
	}
	return fmt.Sprint(v)
}

func kindName(k cue.Kind) string {
	switch k {
	case cue.StringKind:
		return "a string"
	case cue.IntKind:
		return "an integer"
	case cue.FloatKind, cue.NumberKind:
		return "a number"
	case cue.BoolKind:
		return "a boolean"
	case cue.StructKind:
		return "an object"
	case cue.ListKind:
		return "a list"
	case cue.NullKind:
		return "null"
	}
	var parts []string
	for _, x := range []cue.Kind{cue.StringKind, cue.IntKind, cue.FloatKind, cue.BoolKind, cue.StructKind, cue.ListKind, cue.NullKind} {
		if k&x != 0 {
			parts = append(parts, kindName(x))
		}
	}
	if k&cue.NumberKind == cue.NumberKind {
		parts = []string{"a number"}
	}
	return strings.Join(parts, " or ")
}

// checkFields reports the fields of v that its definition d does not
// allow, with the closest allowed name.
func (l *loader) checkFields(v, d cue.Value, path, dpath []string) {
	if !d.Exists() || d.IncompleteKind() == cue.TopKind {
		return
	}
	kind := v.IncompleteKind()
	if kind == cue.BottomKind {
		// A struct with a conflict inside (two files that disagree on one
		// field) is bottom as a whole; its other fields are still checked.
		if _, err := v.Fields(); err == nil {
			kind = cue.StructKind
		}
	}
	if kind&d.IncompleteKind() == 0 {
		return // a value of the wrong kind: validation says so
	}
	switch kind {
	case cue.StructKind:
		it, err := v.Fields()
		if err != nil {
			return
		}
		if open := d.Allows(cue.Str("\x00toolcat-probe")); !open {
			key := strings.Join(dpath, "\x00")
			req, ok := l.required[key]
			if !ok {
				req = requiredFields(d)
				if l.required == nil {
					l.required = map[string][]string{}
				}
				l.required[key] = req
			}
			for _, name := range req {
				if !v.LookupPath(cue.MakePath(cue.Str(name))).Exists() {
					l.errs.add(l.keyPos(l.pos(v.Pos()), path...), "%s", missingField(append(path, name)))
				}
			}
		}
		var declared []string
		if len(path) == 0 {
			declared = fieldNames(d)
		}
		for it.Next() {
			sel := it.Selector()
			name := sel.Unquoted()
			if declared != nil && !slices.Contains(declared, name) {
				l.checkMetadata(it.Value(), name, declared)
				continue
			}
			if !d.Allows(sel) {
				msg := l.notAllowed(d, dpath, name)
				if len(path) > 0 {
					msg = pathString(path) + ": " + msg
				}
				l.errs.add(l.keyPos(l.pos(it.Value().Pos()), append(path, name)...), "%s", msg)
				continue
			}
			cd, pattern := l.defChildCached(d, sel, dpath)
			dname := name
			if pattern {
				dname = "*"
			}
			l.checkFields(it.Value(), cd, append(path, name), append(dpath, dname))
		}
	case cue.ListKind:
		it, err := v.List()
		if err != nil {
			return
		}
		elem := d.LookupPath(cue.MakePath(cue.AnyIndex))
		for i := 0; it.Next(); i++ {
			l.checkFields(it.Value(), elem, append(path, strconv.Itoa(i)), append(dpath, "[]"))
		}
	}
}

// checkMetadata checks a top-level field that the format does not declare:
// catalog metadata, a string, number or boolean, unless its name is a
// likely typo of a declared field.
func (l *loader) checkMetadata(v cue.Value, name string, declared []string) {
	pos := l.keyPos(l.pos(v.Pos()), name)
	if s := Closest(name, declared); s != "" {
		l.errs.add(pos, "unknown field %q; did you mean %q?", name, s)
		return
	}
	switch k := v.IncompleteKind(); {
	case !v.IsConcrete() && k&^(cue.StringKind|cue.NumberKind|cue.BoolKind) == 0:
		l.errs.add(pos, "catalog metadata %q has no value; give it a string, number or boolean", name)
	case k&^(cue.StringKind|cue.NumberKind|cue.BoolKind) == 0:
	default:
		found := "an incomplete value"
		if v.IsConcrete() {
			found = valueString(v)
			if k == cue.NullKind {
				found = "null"
			}
		}
		l.errs.add(pos, "unknown field %q; a catalog has the fields %s, and any other top-level field is catalog metadata: a string, number or boolean, not %s", name, strings.Join(declared, ", "), found)
	}
}

// isMetadata reports whether path starts at a top-level field that the
// format does not declare: catalog metadata, checked by checkMetadata.
func (l *loader) isMetadata(path []string) bool {
	return len(path) > 0 && !slices.Contains(fieldNames(l.def), path[0])
}

// mapKeys names the definitions of the format that constrain the keys of
// its maps, by the map's path in #Catalog, "*" standing for any name.
var mapKeys = map[string]string{
	"services":             "#Name",
	"tools":                "#Name",
	"tools\x00*\x00errors": "#ErrorCode",
}

// notAllowed says why the definition d, at dpath, has no field name: a
// struct names its closest field, a map what its keys must be.
func (l *loader) notAllowed(d cue.Value, dpath []string, name string) string {
	if fields := fieldNames(d); len(fields) > 0 {
		if s := Closest(name, fields); s != "" {
			return fmt.Sprintf("unknown field %q; did you mean %q?", name, s)
		}
		return fmt.Sprintf("unknown field %q; allowed fields are %s", name, strings.Join(fields, ", "))
	}
	def := cue.Value{}
	k, ok := mapKeys[strings.Join(dpath, "\x00")]
	if ok {
		def = l.data.LookupPath(cue.MakePath(cue.Def(k)))
	}
	if k == "#Name" {
		// One rule of names, runtime.NamePattern, with its own words.
		if err := runtime.CheckName(name); err != nil {
			return strings.TrimSuffix(dpath[0], "s") + " " + err.Error()
		}
	}
	if alts := literalAlternatives(def); len(alts) > 0 {
		msg := fmt.Sprintf("key %q is not one of %s", name, strings.Join(alts, ", "))
		if s := Closest(strconv.Quote(name), alts); s != "" {
			msg += "; did you mean " + s + "?"
		}
		return msg
	}
	if op, args := def.Expr(); op == cue.RegexMatchOp && len(args) == 1 {
		if re, err := args[0].String(); err == nil {
			return fmt.Sprintf("key %q is not allowed: keys here match the pattern %s", name, re)
		}
	}
	return fmt.Sprintf("key %q is not allowed here", name)
}

// fieldNames lists the regular fields a definition declares.
func fieldNames(d cue.Value) []string {
	it, err := d.Fields(cue.Optional(true))
	if err != nil {
		return nil
	}
	var out []string
	for it.Next() {
		out = append(out, it.Selector().Unquoted())
	}
	return out
}

// requiredFields lists the fields of a definition that have neither a
// concrete value nor a default: the ones a catalog must write.
func requiredFields(d cue.Value) []string {
	it, err := d.Fields()
	if err != nil {
		return nil
	}
	var out []string
	for it.Next() {
		f := it.Value()
		if _, ok := f.Default(); ok || f.IsConcrete() {
			continue
		}
		if k := f.IncompleteKind(); k == cue.StructKind || k == cue.ListKind {
			continue // structs and lists are satisfied by their defaults
		}
		out = append(out, it.Selector().Unquoted())
	}
	return out
}

// lengthBuiltins are the CUE length constraints the format uses, with
// what each wants, said for users.
var lengthBuiltins = map[string][2]string{
	"strings.MinRunes": {"at least", "character"},
	"strings.MaxRunes": {"at most", "character"},
	"list.MinItems":    {"at least", "item"},
	"list.MaxItems":    {"at most", "item"},
}

// lengthWant says what a length builtin call such as list.MaxItems(20)
// wants: "at most 20 items".
func lengthWant(call string) (string, bool) {
	name, arg, ok := strings.Cut(call, "(")
	w, known := lengthBuiltins[name]
	if !ok || !known || !strings.HasSuffix(arg, ")") {
		return "", false
	}
	n, err := strconv.Atoi(strings.TrimSuffix(arg, ")"))
	if err != nil {
		return "", false
	}
	return w[0] + " " + counted(n, w[1]), true
}

// lengthGot describes a string or a list with its length.
func lengthGot(dv cue.Value, got string) string {
	switch dv.Kind() {
	case cue.StringKind:
		s, _ := dv.String()
		return got + " (" + counted(utf8.RuneCountInString(s), "character") + ")"
	case cue.ListKind:
		n, _ := dv.Len().Int64()
		return "a list of " + counted(int(n), "item")
	}
	return got
}

func counted(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}
