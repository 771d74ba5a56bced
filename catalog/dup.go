package catalog

// A key written twice in one YAML or JSON object — a tool declared twice
// in a list of tools, a tool or any other key repeated in a map — is an
// error, and each value written under it is checked against the format as
// well: the catalog is evaluated once more with the later value in place of
// the first (a "shadow" of the file), and the errors of both evaluations
// are reported together, repeats dropped.

// maxShadows bounds the extra evaluations of one load: a file with a key
// written more than maxShadows+1 times has its later values reported as
// duplicates but not checked.
const maxShadows = 4

// duplicate is a key written again in an object of a parsed file.
type duplicate struct {
	obj   *Node
	first int    // index in obj.Fields of the value kept
	field *Field // the value written again
	rank  int    // 1 for the second time the key is written, 2 for the third
}

// splitDuplicates removes the keys written again from the objects of root,
// reporting each one, and returns the file's shadows: copies of root with
// the later values in place of the first ones. Objects in quiet have their
// duplicates reported already.
func (l *loader) splitDuplicates(root *Node, quiet map[*Node]bool) []*Node {
	var dups []duplicate
	maxRank := 0
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
			var index map[string]int
			kept := n.Fields[:0:0]
			for _, f := range n.Fields {
				walk(f.Value, depth+1)
				if index == nil {
					index = make(map[string]int, len(n.Fields))
				}
				i, dup := index[f.Key]
				if !dup {
					index[f.Key] = len(kept)
					kept = append(kept, f)
					continue
				}
				first := kept[i]
				if !quiet[n] {
					l.errs.add(f.KeyPos, "duplicate key %q (first at %d:%d)", f.Key, first.KeyPos.Line, first.KeyPos.Col)
				}
				rank := 1
				for _, d := range dups {
					if d.obj == n && d.first == i {
						rank++
					}
				}
				maxRank = max(maxRank, rank)
				dups = append(dups, duplicate{obj: n, first: i, field: f, rank: rank})
			}
			if len(kept) < len(n.Fields) {
				n.Fields = kept
			}
		}
	}
	walk(root, 0)
	var shadows []*Node
	for rank := 1; rank <= min(maxRank, maxShadows); rank++ {
		var swapped []duplicate
		for _, d := range dups {
			if d.rank == rank {
				swapped = append(swapped, duplicate{obj: d.obj, first: d.first, field: d.obj.Fields[d.first]})
				d.obj.Fields[d.first] = d.field
			}
		}
		shadows = append(shadows, root.clone())
		for _, d := range swapped {
			d.obj.Fields[d.first] = d.field
		}
	}
	return shadows
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
		sub.shadowOf = map[string]*Node{s.file: s.root}
		sub.load(files)
		l.errs = append(l.errs, sub.errs...)
	}
}

// shadow is a parsed file with a duplicate key's later value in place of
// the first.
type shadow struct {
	file string
	root *Node
}
