package catalog

import (
	"cmp"
	"slices"
)

// A key written twice in one YAML or JSON object — a tool declared twice
// in a list of tools, a tool or any other key repeated in a map — is an
// error, and each value written under it is checked against the format as
// well: the catalog is evaluated once more with the later value in place of
// the first (a "shadow" of the file), and the errors of both evaluations
// are reported together, repeats dropped.

// maxShadows bounds the extra evaluations of one load: beyond it, a key
// written again is reported but its later value is not checked.
const maxShadows = 4

// maxShadowDups bounds the duplicates shared among the shadows, so that a
// file of many duplicates costs time in proportion to its size.
const maxShadowDups = 64

// duplicate is a key written again in an object of a parsed file.
type duplicate struct {
	obj   *Node
	first int    // index in obj.Fields of the value kept
	field *Field // the value written again
	depth int    // of obj in the file
}

// splitDuplicates removes the keys written again from the objects of root,
// reporting each one, and returns the file's shadows: the copies of root to
// check with later values in place of the first ones, so that together
// they hold every value written. Objects in quiet have their duplicates reported
// already.
func (l *loader) splitDuplicates(root *Node, quiet map[*Node]bool) []shadow {
	var dups []duplicate
	var walk func(n *Node, depth int)
	walk = func(n *Node, depth int) {
		if n == nil || depth > maxDepth {
			return
		}
		switch n.Kind {
		case Array:
			for _, it := range n.Items {
				walk(it, depth+1)
			}
		case Object:
			var index map[string]int // for large objects; small ones are scanned
			if len(n.Fields) > 8 {
				index = make(map[string]int, len(n.Fields))
			}
			var kept []*Field // nil until a key is written twice
			for j, f := range n.Fields {
				walk(f.Value, depth+1)
				cur := n.Fields[:j]
				if kept != nil {
					cur = kept
				}
				i, dup := -1, false
				if index != nil {
					i, dup = index[f.Key]
				} else {
					for k, g := range cur {
						if g.Key == f.Key {
							i, dup = k, true
							break
						}
					}
				}
				if !dup {
					if index != nil {
						index[f.Key] = len(cur)
					}
					if kept != nil {
						kept = append(kept, f)
					}
					continue
				}
				if kept == nil {
					kept = slices.Clone(cur)
				}
				first := kept[i]
				if !quiet[n] {
					l.errs.add(f.KeyPos, "duplicate key %q (first at %d:%d)", f.Key, first.KeyPos.Line, first.KeyPos.Col)
				}
				dups = append(dups, duplicate{obj: n, first: i, field: f, depth: depth})
			}
			if kept != nil {
				n.Fields = kept
			}
		}
	}
	walk(root, 0)
	if len(dups) == 0 {
		return nil
	}
	// parent links every node to the node holding it, dropped keys included.
	parent := map[*Node]*Node{}
	var link func(n *Node, depth int)
	link = func(n *Node, depth int) {
		if depth > maxDepth {
			return
		}
		for _, f := range n.Fields {
			parent[f.Value] = n
			link(f.Value, depth+1)
		}
		for _, it := range n.Items {
			parent[it] = n
			link(it, depth+1)
		}
	}
	link(root, 0)
	for _, d := range dups {
		parent[d.field.Value] = d.obj
		link(d.field.Value, 0)
	}
	within := func(n, anc *Node) bool {
		for ; n != nil; n = parent[n] {
			if n == anc {
				return true
			}
		}
		return false
	}
	// Each shadow takes the duplicates that fit together: one value per
	// key, none inside a value another replaces, and each inside a later
	// value only with that value.
	// Outer duplicates first, so that the ones written inside their
	// values find them placed.
	slices.SortStableFunc(dups, func(a, b duplicate) int { return cmp.Compare(a.depth, b.depth) })
	var sets [][]duplicate
	cand := dups[:min(len(dups), maxShadowDups)]
	for _, d := range cand {
		placed := false
		for i, set := range sets {
			ok, needs := true, 0
			for _, o := range set {
				if o.obj == d.obj && o.first == d.first ||
					within(d.obj, o.obj.Fields[o.first].Value) || within(o.obj, d.obj.Fields[d.first].Value) {
					ok = false
					break
				}
				if within(d.obj, o.field.Value) {
					needs++
				}
			}
			if ok && needs == insideDups(d, cand, within) {
				sets[i] = append(set, d)
				placed = true
				break
			}
		}
		if !placed && len(sets) < maxShadows && insideDups(d, cand, within) == 0 {
			sets = append(sets, []duplicate{d})
		}
	}
	shadows := make([]shadow, len(sets))
	for i, set := range sets {
		shadows[i] = shadow{root: root, set: set}
	}
	return shadows
}

// tree returns the shadow's copy of its file: the later values of its
// duplicates in place of the first ones. It is made only when checked,
// so that one copy of a large file at a time is in memory.
func (s shadow) tree() *Node {
	saved := make([]*Field, len(s.set))
	for i, d := range s.set {
		saved[i] = d.obj.Fields[d.first]
		d.obj.Fields[d.first] = d.field
	}
	c := s.root.clone()
	for i := len(s.set) - 1; i >= 0; i-- {
		s.set[i].obj.Fields[s.set[i].first] = saved[i]
	}
	return c
}

// insideDups counts the later values that d is written inside of.
func insideDups(d duplicate, dups []duplicate, within func(n, anc *Node) bool) int {
	n := 0
	for _, o := range dups {
		if o.field != d.field && within(d.obj, o.field.Value) {
			n++
		}
	}
	return n
}

// clone returns a deep copy of n.
func (n *Node) clone() *Node {
	if n == nil {
		return nil
	}
	c := *n
	if n.Fields != nil {
		c.Fields = make([]*Field, len(n.Fields))
		for i, f := range n.Fields {
			c.Fields[i] = &Field{Key: f.Key, KeyPos: f.KeyPos, Value: f.Value.clone()}
		}
	}
	if n.Items != nil {
		c.Items = make([]*Node, len(n.Items))
		for i, it := range n.Items {
			c.Items[i] = it.clone()
		}
	}
	return &c
}

// checkShadows loads the catalog again once per shadow, each with one
// file's tree replaced by its shadow, and keeps the errors found.
func (l *loader) checkShadows(files []File) {
	for _, s := range l.shadows {
		sub := newLoader()
		sub.parts = l.parts
		sub.shadowOf = map[string]*Node{s.file: s.tree()}
		sub.load(files)
		l.errs = append(l.errs, sub.errs...)
	}
}

// shadow is a parsed file to check again with some of its duplicates'
// later values in place of the first ones.
type shadow struct {
	file string
	root *Node
	set  []duplicate
}
