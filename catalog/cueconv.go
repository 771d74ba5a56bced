package catalog

import (
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/token"
)

// toCUE turns a Node tree read from a YAML or JSON file into CUE syntax,
// every node carrying its source position, so that CUE's errors and values
// point into the user's file.
func toCUE(n *Node, li *lineIndex, tf *token.File) ast.Expr {
	pos := func(p Pos) token.Pos { return tf.Pos(li.offset(p.Line, p.Col), token.NoRelPos) }
	var conv func(n *Node) ast.Expr
	conv = func(n *Node) ast.Expr {
		var e ast.Expr
		switch n.Kind {
		case Null:
			e = ast.NewNull()
		case Bool:
			e = ast.NewBool(n.Bool)
		case Number:
			kind := token.INT
			for i := 0; i < len(n.Num); i++ {
				if c := n.Num[i]; c == '.' || c == 'e' || c == 'E' {
					kind = token.FLOAT
					break
				}
			}
			e = &ast.BasicLit{Kind: kind, Value: n.Num}
		case String:
			e = ast.NewString(n.Str)
		case Object:
			s := &ast.StructLit{Elts: make([]ast.Decl, 0, len(n.Fields))}
			for _, f := range n.Fields {
				label := ast.NewString(f.Key)
				ast.SetPos(label, pos(f.KeyPos))
				fd := &ast.Field{Label: label, Value: conv(f.Value)}
				ast.SetPos(fd, pos(f.KeyPos))
				s.Elts = append(s.Elts, fd)
			}
			e = s
		case Array:
			l := &ast.ListLit{Elts: make([]ast.Expr, 0, len(n.Items))}
			for _, it := range n.Items {
				l.Elts = append(l.Elts, conv(it))
			}
			e = l
		}
		ast.SetPos(e, pos(n.Pos))
		return e
	}
	return conv(n)
}
