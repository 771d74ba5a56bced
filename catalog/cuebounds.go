package catalog

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/token"
)

// The shapes of CUE whose evaluation explodes, refused before evaluation
// with the position of the expression. CUE's evaluation of both grows
// faster than linearly: 10,000 iterations of a comprehension take about a
// second, 100,000 more than a minute; a unification of 10 two-way
// disjunctions of structs (1,024 alternatives) under a second, of 12 more
// than ten.

// maxIterations bounds the values a comprehension iterates over, the
// iterations of comprehensions nested in it multiplied, and the lists that
// list.Range and list.Repeat make. A catalog of 5,000 tools made by a
// comprehension is within it.
const maxIterations = 10_000

// maxAlternatives bounds the alternatives of one expression: the
// disjunctions unified in it, multiplied.
const maxAlternatives = 1024

// maxString bounds the strings a catalog makes, in bytes, by
// strings.Repeat, by joining strings with + or interpolation, or by
// repeating them with *: a chain of a1: a0 + a0 doubles at each step.
// (CUE bounds the exponent of numbers itself, and no longer adds lists.)
const maxString = 16 << 20

// suspect is a top-level field of a CUE file whose evaluation may not end:
// the place an overrun of the budget points at.
type suspect struct {
	pos  Pos
	what string // "a comprehension", ...
	rank int    // the likelier, the higher
}

// cueBounds walks one CUE file.
type cueBounds struct {
	l *loader
	// iterations is the product of the iterations of the comprehensions
	// around the node being walked.
	iterations float64
	counted    map[ast.Expr]bool    // | and & operands already counted
	sources    map[ast.Expr]bool    // the sources of for clauses
	refAlts    map[ast.Node]float64 // the alternatives of referenced values
	inRefs     map[ast.Node]bool    // referenced values being counted, against cycles
	estimates  map[ast.Expr]estimate
	errs       ErrorList
	top        *suspect // of the top-level field being walked
}

// checkCUEBounds reports the comprehensions, builtin calls and
// disjunctions of f that are too large to evaluate, and returns the
// top-level field most likely to explode if no bound catches it.
func (l *loader) checkCUEBounds(f *ast.File) *suspect {
	b := &cueBounds{l: l,
		iterations: 1, counted: map[ast.Expr]bool{}, sources: map[ast.Expr]bool{},
		refAlts: map[ast.Node]float64{}, inRefs: map[ast.Node]bool{},
		estimates: map[ast.Expr]estimate{}}
	b.sameLabels(f.Decls)
	var best *suspect
	for _, d := range f.Decls {
		b.top = nil
		ast.Walk(d, b.before, b.after)
		if b.top != nil && (best == nil || b.top.rank > best.rank) {
			best = b.top
			best.pos = l.pos(d.Pos())
		}
	}
	l.errs = append(l.errs, b.errs...)
	return best
}

func (b *cueBounds) suspect(what string, rank int) {
	if b.top == nil || rank > b.top.rank {
		b.top = &suspect{what: what, rank: rank}
	}
}

func (b *cueBounds) fail(n ast.Node, format string, args ...any) {
	b.errs.add(b.l.pos(n.Pos()), format, args...)
}

func (b *cueBounds) before(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.Comprehension:
		b.suspect("a comprehension", 3)
		iter := 1.0
		for _, c := range n.Clauses {
			if fc, ok := c.(*ast.ForClause); ok {
				iter *= b.size(fc.Source)
				b.sources[fc.Source] = true
			}
		}
		b.iterations *= iter
		if b.iterations > maxIterations {
			b.fail(n, "comprehension over %s values%s; a catalog may iterate at most %d times", count(iter), around(b.iterations, iter), maxIterations)
			b.iterations /= iter
			return false
		}
	case *ast.CallExpr:
		b.suspect("a call", 1)
		if b.sources[n] {
			break // counted with its comprehension
		}
		if msg := b.call(n); msg != "" {
			b.fail(n, "%s", msg)
			return false
		}
		if pkg, name := b.builtin(n); (pkg == "strings" && name == "Repeat" || pkg == "list" && name == "Concat") && !b.checkEstimate(n) {
			return false
		}
	case *ast.StructLit:
		b.sameLabels(n.Elts)
	case *ast.Interpolation:
		if !b.checkEstimate(n) {
			return false
		}
	case *ast.BinaryExpr:
		if n.Op == token.ADD || n.Op == token.MUL {
			if !b.checkEstimate(n) {
				return false
			}
		}
		if (n.Op == token.OR || n.Op == token.AND) && !b.counted[n] {
			b.suspect("a disjunction", 2)
			if alts := b.alternatives(n, true, 0); alts > maxAlternatives {
				b.fail(n, "%s alternatives: the disjunctions unified in this expression multiply; a catalog may combine at most %d", count(alts), maxAlternatives)
				return false
			}
		}
	}
	return true
}

// sameLabels checks the fields of one struct that share a label: CUE
// unifies their values, so their alternatives multiply too.
func (b *cueBounds) sameLabels(decls []ast.Decl) {
	type label struct {
		alts  float64
		decls int
	}
	labels := map[string]*label{}
	for _, d := range decls {
		f, ok := d.(*ast.Field)
		if !ok {
			continue
		}
		name, isIdent, err := ast.LabelName(f.Label)
		if err != nil || !isIdent && name == "" {
			continue
		}
		lb := labels[name]
		if lb == nil {
			lb = &label{alts: 1}
			labels[name] = lb
		}
		own := b.alternatives(f.Value, false, 0)
		before := lb.alts
		lb.alts *= own
		lb.decls++
		if lb.decls > 1 && own <= maxAlternatives && before <= maxAlternatives && lb.alts > maxAlternatives {
			b.fail(f, "%s alternatives: the disjunctions of the %d declarations of %s up to here multiply; a catalog may combine at most %d", count(lb.alts), lb.decls, name, maxAlternatives)
		}
	}
}

func (b *cueBounds) after(n ast.Node) {
	if c, ok := n.(*ast.Comprehension); ok {
		iter := 1.0
		for _, cl := range c.Clauses {
			if fc, ok := cl.(*ast.ForClause); ok {
				iter *= b.size(fc.Source)
			}
		}
		b.iterations /= iter
	}
}

// around says how many values the comprehensions around a node make of
// its own, if they repeat it.
func around(total, own float64) string {
	if total <= own {
		return ""
	}
	return fmt.Sprintf(", %s with the comprehensions around it", count(total))
}

// count formats a number of iterations or alternatives.
func count(f float64) string {
	if f >= 1e15 {
		return fmt.Sprintf("%.3g", f)
	}
	return strconv.FormatFloat(f, 'f', 0, 64)
}

// builtin returns the package path and name of a call to a builtin
// function, such as "list" and "Range".
func (b *cueBounds) builtin(c *ast.CallExpr) (string, string) {
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok {
		return "", ""
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok {
		return "", ""
	}
	spec, ok := pkg.Node.(*ast.ImportSpec) // as the parser resolved it
	if !ok {
		return "", ""
	}
	path, err := strconv.Unquote(spec.Path.Value)
	name, _, err2 := ast.LabelName(sel.Sel)
	if err != nil || err2 != nil {
		return "", ""
	}
	return ast.ParseImportPath(path).Path, name
}

// call checks a call to a builtin that makes a value as large as its
// arguments say.
func (b *cueBounds) call(c *ast.CallExpr) string {
	pkg, name := b.builtin(c)
	switch {
	case pkg == "list" && (name == "Range" || name == "Repeat"):
		if n := b.size(c); n*b.iterations > maxIterations {
			return fmt.Sprintf("list.%s makes a list of %s values%s; a catalog may make at most %d", name, count(n), around(n*b.iterations, n), maxIterations)
		}
	}
	return ""
}

// size returns the number of values a comprehension source or a builtin
// call makes, where its arguments say; 1 where they do not.
func (b *cueBounds) size(e ast.Expr) float64 {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return b.size(e.X)
	case *ast.ListLit:
		return float64(max(len(e.Elts), 1))
	case *ast.CallExpr:
		pkg, name := b.builtin(e)
		if pkg != "list" {
			return 1
		}
		switch {
		case name == "Range" && len(e.Args) == 3:
			from, ok1 := b.number(e.Args[0])
			to, ok2 := b.number(e.Args[1])
			step, ok3 := b.number(e.Args[2])
			if ok1 && ok2 && ok3 && step != 0 {
				return max(math.Ceil((to-from)/step), 1)
			}
		case name == "Repeat" && len(e.Args) == 2:
			if n, ok := b.number(e.Args[1]); ok {
				return max(n*b.size(e.Args[0]), 1)
			}
		}
	}
	return 1
}

// number returns the value of a number the source computes, if it does.
func (b *cueBounds) number(e ast.Expr) (float64, bool) {
	est := b.estimate(e, 0)
	return est.value, est.kind == 'n' && !math.IsNaN(est.value) && !math.IsInf(est.value, 0)
}

// literalNumber returns the value of a number literal.
func literalNumber(lit *ast.BasicLit) (float64, bool) {
	var info literal.NumInfo
	if err := literal.ParseNum(lit.Value, &info); err != nil {
		return 0, false
	}
	f, err := strconv.ParseFloat(info.String(), 64)
	return f, err == nil
}

// alternatives counts the alternatives of an expression: the terms of its
// disjunctions, those unified multiplied. It follows references, such as
// to definitions, where reused disjunctions are usually written. With
// mark, the operands are not counted again as expressions of their own.
func (b *cueBounds) alternatives(e ast.Expr, mark bool, depth int) float64 {
	if depth > maxDepth {
		return 1
	}
	switch x := e.(type) {
	case *ast.ParenExpr:
		b.counted[x] = b.counted[x] || mark
		return b.alternatives(x.X, mark, depth+1)
	case *ast.UnaryExpr:
		if x.Op == token.MUL { // a default
			return b.alternatives(x.X, mark, depth+1)
		}
	case *ast.BinaryExpr:
		switch x.Op {
		case token.OR:
			b.counted[x] = b.counted[x] || mark
			return b.alternatives(x.X, mark, depth+1) + b.alternatives(x.Y, mark, depth+1)
		case token.AND:
			b.counted[x] = b.counted[x] || mark
			return b.alternatives(x.X, mark, depth+1) * b.alternatives(x.Y, mark, depth+1)
		}
	case *ast.Ident:
		// The parser resolves a reference to the value it names.
		ref, ok := x.Node.(ast.Expr)
		if !ok || b.inRefs[ref] {
			return 1
		}
		if n, ok := b.refAlts[ref]; ok {
			return n
		}
		b.inRefs[ref] = true
		n := b.alternatives(ref, false, depth+1)
		delete(b.inRefs, ref)
		b.refAlts[ref] = n
		return n
	}
	return 1
}

// maxValues bounds the values of an evaluated catalog written in CUE, its
// fields and list elements: 20 times the 93,000 of a catalog of 1,000
// tools. A YAML or JSON catalog is bounded by its files.
const maxValues = 2_000_000

// checkSize counts the values of the evaluated catalog v up to limit and
// reports where the count goes beyond it, at the top-level field or tool
// being counted.
func (l *loader) checkSize(v cue.Value, limit int) bool {
	left := limit
	var walk func(v cue.Value, path []string, at cue.Value) bool
	walk = func(v cue.Value, path []string, at cue.Value) bool {
		left--
		if left < 0 {
			var p Pos
			if len(path) > 0 {
				p = l.cuePos(path...)
			}
			if !p.IsValid() {
				p = l.pos(at.Pos())
			}
			if !p.IsValid() {
				p = l.start
			}
			where := ""
			if len(path) > 0 {
				where = strings.Join(path, ".") + ": "
			}
			l.errs.add(p, "%sthe evaluated catalog holds more than %d values by here; a catalog may hold at most that many", where, limit)
			return false
		}
		if d, ok := v.Default(); ok {
			v = d
		}
		switch v.Kind() {
		case cue.StructKind:
			it, err := v.Fields(cue.Optional(false))
			if err != nil {
				return true
			}
			for it.Next() {
				p, a := path, at
				if len(path) < 2 && (len(path) == 0 || path[0] == "tools") {
					p, a = append(slices.Clip(path), it.Selector().Unquoted()), it.Value()
				}
				if !walk(it.Value(), p, a) {
					return false
				}
			}
		case cue.ListKind:
			it, err := v.List()
			if err != nil {
				return true
			}
			for it.Next() {
				if !walk(it.Value(), path, at) {
					return false
				}
			}
		}
		return true
	}
	return walk(v, nil, v)
}

// An estimate is the size of the value an expression makes, where the
// source says: the bytes of a string, the elements of a list, the digits
// of a number (and its value, when known).
type estimate struct {
	kind  byte // 's', 'l', 'n', or 0 when unknown
	size  float64
	value float64 // of a number; NaN when unknown
}

var unknown = estimate{value: math.NaN()}

// checkEstimate reports an expression that makes a string beyond
// maxString, or a list beyond maxIterations by list.Concat. Once reported,
// the expression counts as unknown, so that the expressions built on it do
// not report it again.
func (b *cueBounds) checkEstimate(e ast.Expr) bool {
	est := b.estimate(e, 0)
	msg := ""
	switch {
	case est.kind == 's' && est.size > maxString:
		msg = fmt.Sprintf("this string is %s bytes long; a catalog may make strings of at most %d", count(est.size), maxString)
	case est.kind == 'l' && est.size > maxIterations:
		msg = fmt.Sprintf("this list has %s values; a catalog may make lists of at most %d", count(est.size), maxIterations)
	}
	if msg == "" {
		return true
	}
	b.fail(e, "%s", msg)
	b.estimates[e] = unknown
	return false
}

func (b *cueBounds) estimate(e ast.Expr, depth int) estimate {
	if depth > maxDepth {
		return unknown
	}
	if est, ok := b.estimates[e]; ok {
		return est
	}
	b.estimates[e] = unknown // against cycles
	est := b.estimateOf(e, depth)
	b.estimates[e] = est
	return est
}

func (b *cueBounds) estimateOf(e ast.Expr, depth int) estimate {
	switch x := e.(type) {
	case *ast.BasicLit:
		switch x.Kind {
		case token.STRING:
			if v, err := literal.Unquote(x.Value); err == nil {
				return estimate{kind: 's', size: float64(len(v))}
			}
			return estimate{kind: 's', size: float64(len(x.Value))}
		case token.INT, token.FLOAT:
			v, ok := literalNumber(x)
			if !ok {
				v = math.NaN()
			}
			return estimate{kind: 'n', size: float64(len(x.Value)), value: v}
		}
	case *ast.ListLit:
		return estimate{kind: 'l', size: float64(len(x.Elts))}
	case *ast.ParenExpr:
		return b.estimate(x.X, depth+1)
	case *ast.UnaryExpr:
		if x.Op == token.SUB || x.Op == token.ADD {
			est := b.estimate(x.X, depth+1)
			if est.kind == 'n' && x.Op == token.SUB {
				est.value = -est.value
			}
			return est
		}
	case *ast.Ident:
		if ref, ok := x.Node.(ast.Expr); ok {
			return b.estimate(ref, depth+1)
		}
	case *ast.Interpolation:
		size := 0.0
		for _, part := range x.Elts {
			if _, text := part.(*ast.BasicLit); text {
				continue // the text around the expressions, in the file
			}
			if est := b.estimate(part, depth+1); est.kind == 's' || est.kind == 'n' {
				size += est.size
			}
		}
		return estimate{kind: 's', size: size}
	case *ast.CallExpr:
		switch pkg, name := b.builtin(x); {
		case pkg == "strings" && name == "Repeat" && len(x.Args) == 2:
			s, n := b.estimate(x.Args[0], depth+1), b.estimate(x.Args[1], depth+1)
			if s.kind == 's' && n.kind == 'n' && !math.IsNaN(n.value) {
				return estimate{kind: 's', size: s.size * max(n.value, 0)}
			}
		case pkg == "list" && name == "Concat" && len(x.Args) == 1:
			lists, ok := x.Args[0].(*ast.ListLit)
			if !ok {
				break
			}
			size := 0.0
			for _, l := range lists.Elts {
				if est := b.estimate(l, depth+1); est.kind == 'l' {
					size += est.size
				}
			}
			return estimate{kind: 'l', size: size}
		case pkg == "list" && (name == "Range" || name == "Repeat"):
			return estimate{kind: 'l', size: b.size(x)}
		}
	case *ast.BinaryExpr:
		l, r := b.estimate(x.X, depth+1), b.estimate(x.Y, depth+1)
		if r.kind == 's' {
			l, r = r, l // the string first, its count second
		}
		switch {
		case x.Op == token.MUL && l.kind == 's' && r.kind == 'n' && !math.IsNaN(r.value):
			return estimate{kind: 's', size: l.size * max(r.value, 0)}
		case x.Op == token.ADD && l.kind == 's' && r.kind == 's':
			return estimate{kind: 's', size: l.size + r.size}
		case l.kind == 'n' && r.kind == 'n' && (x.Op == token.ADD || x.Op == token.SUB):
			return estimate{kind: 'n', size: max(l.size, r.size) + 1, value: l.value + r.value*sign(x.Op)}
		case l.kind == 'n' && r.kind == 'n' && x.Op == token.MUL:
			return estimate{kind: 'n', size: l.size + r.size, value: l.value * r.value}
		}
	}
	return unknown
}

func sign(op token.Token) float64 {
	if op == token.SUB {
		return -1
	}
	return 1
}
