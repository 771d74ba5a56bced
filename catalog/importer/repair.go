package importer

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/toolcat/toolcat/catalog"
)

// The repairs of an imported schema. A catalog a team writes must not
// contradict itself, and toolcat gen refuses a default, const or enum
// member that its own schema rejects. Tool sets written for other systems
// often do (servers generated from Python signatures write Optional[str] =
// None as type: string, default: null; others write booleans as
// "false"): import repairs each the way a careful person would, marks it
// to decide, and reports it, so that what import writes loads, generates
// and builds with no hand edit.

// noValue are the strings that stand for "no value" in the sources.
var noValue = map[string]bool{"": true, "none": true, "null": true, "nil": true, "n/a": true, "na": true, "undefined": true}

// repair fixes the schema n (args or result) and its subschemas in place,
// noting each change as a value to decide.
func (e *entry) repair(n *yaml.Node, at string) {
	e.repairSchema(n, nil, at, 0)
}

// repairSchema repairs one schema; key is the mapping key it is the value
// of, which carries the comment of a keyword removed, or nil.
func (e *entry) repairSchema(n, key *yaml.Node, at string, depth int) {
	if n == nil || n.Kind != yaml.MappingNode || depth > maxDepth {
		return
	}
	drop := func(kw, why string) {
		del(n, kw)
		e.decide(n, key, fmt.Sprintf("%s: %s", at, why))
	}
	e.repairType(n, key, at, drop)
	types := schemaTypes(n)
	if d := get(n, "default"); d != nil {
		switch {
		case d.Tag == "!!null" && len(types) > 0 && !types["null"]:
			drop("default", fmt.Sprintf("default null on a property of type %s; removed (leaving the argument out means no value)", typeList(n)))
		case d.Kind == yaml.ScalarNode && d.Tag == "!!str" && len(types) > 0 && !types["string"]:
			if v := convertString(d.Value, types); v != nil {
				v.LineComment = fmt.Sprintf("%s: the source wrote the default as the string %q", Decide, d.Value)
				set(n, "default", v)
				e.note(true, "%s: default %q converted to %s", at, d.Value, v.Value)
			} else if noValue[strings.ToLower(strings.TrimSpace(d.Value))] {
				drop("default", fmt.Sprintf("default %q on a property of type %s means no value; removed", d.Value, typeList(n)))
			} else {
				drop("default", fmt.Sprintf("default %q is not of the property's type %s; removed", d.Value, typeList(n)))
			}
		case d.Kind == yaml.ScalarNode && (d.Tag == "!!int" || d.Tag == "!!float" || d.Tag == "!!bool") && len(types) == 1 && types["string"]:
			v := strNode(d.Value)
			kind := "number"
			if d.Tag == "!!bool" {
				kind = "boolean"
			}
			v.LineComment = fmt.Sprintf("%s: the source wrote the default as the %s %s", Decide, kind, d.Value)
			set(n, "default", v)
			e.note(true, "%s: default %s converted to the string %q", at, d.Value, d.Value)
		}
	}
	if d, en := get(n, "default"), get(n, "enum"); d != nil && d.Tag == "!!str" && en != nil && en.Kind == yaml.SequenceNode && allStr(en) {
		if !slices.ContainsFunc(en.Content, func(v *yaml.Node) bool { return v.Value == d.Value }) {
			drop("default", fmt.Sprintf("default %s is not one of the property's enum; removed", compact(d)))
		}
	}
	// Values the schema allows but the argument's Go type cannot hold.
	for _, kw := range []string{"default", "const"} {
		if v := get(n, kw); v != nil {
			if why := goFit(n, v); why != "" {
				drop(kw, fmt.Sprintf("%s %s %s; removed", kw, compact(v), why))
			}
		}
	}
	if en := get(n, "enum"); en != nil && en.Kind == yaml.SequenceNode {
		var keep []*yaml.Node
		for _, v := range en.Content {
			if why := goFit(n, v); why != "" {
				e.decide(n, key, fmt.Sprintf("%s: enum member %s %s; removed", at, compact(v), why))
			} else {
				keep = append(keep, v)
			}
		}
		en.Content = keep
		if len(keep) == 0 {
			drop("enum", "enum left with no member; removed")
		}
	}
	for _, k := range schemaMaps {
		if m := get(n, k); m != nil && m.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(m.Content); i += 2 {
				e.repairSchema(m.Content[i+1], m.Content[i], at+"."+m.Content[i].Value, depth+1)
			}
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if slices.Contains(schemaOne, n.Content[i].Value) {
			e.repairSchema(n.Content[i+1], n.Content[i], at, depth+1)
		}
	}
	for _, k := range schemaLists {
		if l := get(n, k); l != nil && l.Kind == yaml.SequenceNode {
			for _, s := range l.Content {
				e.repairSchema(s, nil, at, depth+1)
			}
		}
	}
}

// repairType removes the type names JSON Schema does not have (an empty
// name, one Normalise does not know, a value that is no string): a
// schema that names no type takes any value.
func (e *entry) repairType(n, key *yaml.Node, at string, drop func(kw, why string)) {
	ty := get(n, "type")
	if ty == nil {
		return
	}
	switch ty.Kind {
	case yaml.ScalarNode:
		if ty.Tag != "!!str" || !standardTypes[ty.Value] {
			drop("type", fmt.Sprintf("type %s is not a JSON Schema type; removed, so any value is accepted", compact(ty)))
		}
	case yaml.SequenceNode:
		var keep, bad []*yaml.Node
		for _, c := range ty.Content {
			if c.Kind == yaml.ScalarNode && c.Tag == "!!str" && standardTypes[c.Value] && !slices.ContainsFunc(keep, func(k *yaml.Node) bool { return k.Value == c.Value }) {
				keep = append(keep, c)
			} else {
				bad = append(bad, c)
			}
		}
		switch {
		case len(bad) == 0 && len(keep) > 0:
		case len(keep) == 0:
			drop("type", fmt.Sprintf("type %s names no JSON Schema type; removed, so any value is accepted", compact(ty)))
		default:
			was := compact(ty)
			ty.Content = keep
			e.decide(n, key, fmt.Sprintf("%s: type %s: %s removed, not being JSON Schema types", at, was, compactList(bad)))
		}
	default:
		drop("type", fmt.Sprintf("type %s is not a JSON Schema type; removed, so any value is accepted", compact(ty)))
	}
}

// decide notes a repair to decide and writes it as a comment above the
// schema's first key, or above key, the key the schema is the value of.
func (e *entry) decide(n, key *yaml.Node, msg string) {
	e.note(true, "%s", msg)
	c := Decide + ": " + escapeControl(msg)
	switch {
	case key != nil:
		key.HeadComment = joinComment(key.HeadComment, c)
	case len(n.Content) > 0:
		n.Content[0].HeadComment = joinComment(n.Content[0].HeadComment, c)
	default:
		n.LineComment = joinComment(n.LineComment, c)
	}
}

func joinComment(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}

// allStr reports whether every member of the list l is a string.
func allStr(l *yaml.Node) bool {
	return !slices.ContainsFunc(l.Content, func(v *yaml.Node) bool { return v.Tag != "!!str" })
}

// schemaTypes is the set of type names n gives itself.
func schemaTypes(n *yaml.Node) map[string]bool {
	ty := get(n, "type")
	types := map[string]bool{}
	switch {
	case ty == nil:
	case ty.Kind == yaml.ScalarNode:
		types[ty.Value] = true
	case ty.Kind == yaml.SequenceNode:
		for _, c := range ty.Content {
			types[c.Value] = true
		}
	}
	return types
}

func typeList(n *yaml.Node) string {
	if ty := get(n, "type"); ty != nil && ty.Kind == yaml.ScalarNode {
		return ty.Value
	}
	return compact(get(n, "type"))
}

func compactList(ns []*yaml.Node) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = compact(n)
	}
	return strings.Join(parts, ", ")
}

// convertString converts a default written as a string into the value
// it unambiguously stands for in one of types: true or false for a
// boolean, a number for an integer or number. It returns nil otherwise.
func convertString(s string, types map[string]bool) *yaml.Node {
	t := strings.TrimSpace(s)
	if types["boolean"] {
		switch strings.ToLower(t) {
		case "true":
			return boolNode(true)
		case "false":
			return boolNode(false)
		}
	}
	if types["integer"] || types["number"] {
		r, ok := new(big.Rat).SetString(t)
		if !ok || strings.ContainsAny(t, "/_xXoObBpP") || strings.HasPrefix(t, "+") || strings.HasPrefix(t, ".") {
			return nil
		}
		if r.IsInt() && types["integer"] {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: r.Num().String()}
		}
		if types["number"] {
			f, _ := r.Float64()
			if math.IsInf(f, 0) {
				return nil
			}
			tag := "!!float"
			if r.IsInt() {
				tag = "!!int"
			}
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: strconv.FormatFloat(f, 'g', -1, 64)}
		}
	}
	return nil
}

// goFit says why the Go type toolcat gen gives the schema n cannot hold
// the value v, or "": an integer beyond 64 bits (or 32, with format
// int32), a date-time that is not RFC 3339.
func goFit(n, v *yaml.Node) string {
	types := schemaTypes(n)
	delete(types, "null")
	if len(types) != 1 || v.Kind != yaml.ScalarNode {
		return ""
	}
	switch {
	case types["integer"] && (v.Tag == "!!int" || v.Tag == "!!float"):
		if !fitsInt(v.Value, str(get(n, "format")) == "int32") {
			return "does not fit the property's integer type"
		}
	case types["string"] && v.Tag == "!!str" && str(get(n, "format")) == "date-time":
		if err := new(time.Time).UnmarshalText([]byte(v.Value)); err != nil {
			return "is not an RFC 3339 date-time"
		}
	case types["number"] && v.Tag == "!!float" && str(get(n, "format")) == "float":
		if f, err := strconv.ParseFloat(v.Value, 64); err == nil && math.Abs(f) > math.MaxFloat32 {
			return "does not fit the property's float32 type (format float)"
		}
	}
	return ""
}

// fitsInt reports whether the number text s is an integer an int64 (or
// int32) holds.
func fitsInt(s string, bits32 bool) bool {
	r, ok := new(big.Rat).SetString(s)
	if !ok || !r.IsInt() {
		return false
	}
	lo, hi := big.NewInt(math.MinInt64), big.NewInt(math.MaxInt64)
	if bits32 {
		lo, hi = big.NewInt(math.MinInt32), big.NewInt(math.MaxInt32)
	}
	return r.Num().Cmp(lo) >= 0 && r.Num().Cmp(hi) <= 0
}

// repairValues checks the default, const and enum values of every tool's
// argument schema against the schema that gives them, as toolcat gen
// does, once the catalog is written, and removes each value its schema
// rejects that the repairs above left (a default below its minimum, an
// enum member of the wrong type). It returns how many it removed; a
// catalog that does not load is left to lint to report.
func repairValues(data []byte, entries []*entry) int {
	cat, err := catalog.LoadFiles(catalog.File{Name: "tools.yaml", Data: data})
	if err != nil {
		return 0
	}
	byName := map[string]*entry{}
	for _, e := range entries {
		byName[e.name] = e
	}
	vc := catalog.NewValueChecker()
	removed := 0
	for _, t := range cat.Tools {
		e := byName[t.Name]
		if e == nil || t.Args == nil || t.Args.Kind != catalog.Object {
			continue
		}
		problems, _, _ := vc.SchemaValues(t.Name, "args", t.Args, nil, "default", "const", "enum")
		// Enum members are removed from the last, so that the indexes of
		// the others stay right.
		slices.SortStableFunc(problems, func(a, b catalog.ValueProblem) int { return enumIndex(t.Args, b) - enumIndex(t.Args, a) })
		for _, p := range problems {
			s, key := lookupYAML(get(e.node, "args"), p.Schema)
			if s == nil || s.Kind != yaml.MappingNode {
				continue
			}
			at := "args" + dotted(p.Schema)
			switch p.Keyword {
			case "enum":
				en := get(s, "enum")
				i := enumIndex(t.Args, p)
				if en == nil || en.Kind != yaml.SequenceNode || i < 0 || i >= len(en.Content) {
					continue
				}
				member := compact(en.Content[i])
				en.Content = slices.Delete(en.Content, i, i+1)
				msg := fmt.Sprintf("enum member %s is not valid against its schema (%s); removed", member, p.Msg)
				if len(en.Content) == 0 {
					del(s, "enum")
					msg = fmt.Sprintf("enum member %s is not valid against its schema (%s); removed, with the enum it was the only member of", member, p.Msg)
				}
				e.decide(s, key, at+": "+msg)
			default:
				if get(s, p.Keyword) == nil {
					continue
				}
				v := compact(get(s, p.Keyword))
				del(s, p.Keyword)
				e.decide(s, key, fmt.Sprintf("%s: %s %s is not valid against its schema (%s); removed", at, p.Keyword, v, p.Msg))
			}
			removed++
		}
	}
	return removed
}

// enumIndex is the index of an enum problem's member in its enum, or -1.
func enumIndex(root *catalog.Node, p catalog.ValueProblem) int {
	if p.Keyword != "enum" {
		return -1
	}
	en := root.Lookup(p.Schema).Get("enum")
	if en == nil {
		return -1
	}
	return slices.Index(en.Items, p.Value)
}

// lookupYAML follows the JSON pointer ptr from n; it returns the node
// found and the mapping key it is the value of (nil for a list item or
// n itself).
func lookupYAML(n *yaml.Node, ptr string) (found, key *yaml.Node) {
	if ptr == "" {
		return n, nil
	}
	for _, tok := range pointerTokens(ptr) {
		switch {
		case n == nil:
			return nil, nil
		case n.Kind == yaml.MappingNode:
			key = nil
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == tok {
					key = n.Content[i]
				}
			}
			n = get(n, tok)
		case n.Kind == yaml.SequenceNode:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n.Content) {
				return nil, nil
			}
			n, key = n.Content[i], nil
		default:
			return nil, nil
		}
	}
	return n, key
}

func pointerTokens(ptr string) []string {
	toks := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i, tok := range toks {
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
	}
	return toks
}

// dotted writes a schema's JSON pointer as the notes name schemas: the
// names of properties and definitions joined by dots (args.a.b).
func dotted(ptr string) string {
	if ptr == "" {
		return ""
	}
	var b strings.Builder
	toks := pointerTokens(ptr)
	for i := 0; i < len(toks); i++ {
		if slices.Contains(schemaMaps, toks[i]) && i+1 < len(toks) {
			b.WriteString("." + toks[i+1])
			i++
		}
	}
	return b.String()
}
