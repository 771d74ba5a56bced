package gen

import (
	"bytes"
	"go/scanner"
	"go/token"
	"strings"

	"github.com/dave/jennifer/jen"
)

// The descriptors of data-mode validators are the largest part of a large
// catalog's generated code and the slowest for gofmt to print: go/printer
// measures each element of a list that spans lines by printing it, so
// the elements of a descriptor's fields are printed several times over.
// gen writes them in gofmt's layout itself instead, token by token, from
// jennifer's unformatted rendering: the same tokens, spaced and indented
// as gofmt spaces and indents the shapes descriptors have (composite
// literals whose only line breaks are between the elements of one list).
// A declaration of any other shape goes through gofmt with the rest of
// the file.

// preformatDescs turns the layout above on; tests turn it off to compare
// it with gofmt's.
var preformatDescs = true

// descDecls returns the declarations of descs, with their doc comments,
// as gofmt formats them, to follow the rest of the file; or false when one
// is of a shape gofmt must format.
func descDecls(descs []namedDesc, doc func(namedDesc) string) ([]byte, bool) {
	if !preformatDescs {
		return nil, false
	}
	f := jen.NewFile("descs")
	f.NoFormat = true
	f.ImportName(runtimePkg, "runtime")
	f.ImportName("encoding/json", "json")
	for _, d := range descs {
		f.Var().Id(d.name).Op("=").Qual(runtimePkg, "StructDesc").Add(d.lit)
	}
	var raw bytes.Buffer
	if err := f.Render(&raw); err != nil {
		return nil, false
	}
	src := raw.Bytes()
	i := bytes.Index(src, []byte("\n\nvar "))
	if i < 0 {
		return nil, false
	}
	// Only the packages every tool file imports, under these names.
	for rest := src[:i]; ; {
		_, after, ok := bytes.Cut(rest, []byte(`"`))
		if !ok {
			break
		}
		path, after, _ := bytes.Cut(after, []byte(`"`))
		if p := string(path); p != runtimePkg && p != "encoding/json" {
			return nil, false
		}
		rest = after
	}
	// One declaration a line of jennifer's output, and the lines within
	// a declaration start with a blank (its list's elements): no string
	// literal holds a line break, which layoutDecl refuses.
	decls := bytes.Split(src[i+2:], []byte("\nvar "))
	if len(decls) != len(descs) {
		return nil, false
	}
	out := bytes.NewBuffer(make([]byte, 0, len(src)+len(src)/8))
	for j, d := range descs {
		decl := decls[j]
		if j > 0 {
			decl = append([]byte("var "), decl...)
		}
		laid, ok := layoutDecl(decl)
		if !ok {
			return nil, false
		}
		out.WriteByte('\n')
		for _, line := range strings.Split(doc(d), "\n") {
			out.WriteString("// " + line + "\n")
		}
		out.Write(laid)
		out.WriteByte('\n')
	}
	return out.Bytes(), true
}

// layoutDecl lays out the unformatted declaration src (var name = literal)
// as gofmt would, or returns false when its shape is not one it knows:
// any token but identifiers, literals, the punctuation of composite
// literals and calls, unary & and -, and one << between two operands; a
// line break other than after the opening brace or a comma of one list,
// before an element in braces.
func layoutDecl(src []byte) ([]byte, bool) {
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	bad := false
	s.Init(file, src, func(token.Position, string) { bad = true }, scanner.ScanComments)
	out := make([]byte, 0, len(src))
	var (
		prev      = token.ILLEGAL
		prevEnd   = -1 // the offset after the previous token
		depth     = 0  // open braces, brackets and parentheses
		breakAt   = -1 // the depth of the list broken into lines
		binary    = 0  // binary operators in the current element
		afterVar  = false
		assignSet = false
	)
	for {
		pos, tok, lit := s.Scan()
		if bad {
			return nil, false
		}
		if tok == token.EOF {
			break
		}
		if tok == token.SEMICOLON {
			// Inserted at the end: nothing may follow.
			if lit != "\n" || depth != 0 {
				return nil, false
			}
			if _, next, _ := s.Scan(); next != token.EOF || bad {
				return nil, false
			}
			break
		}
		off := file.Offset(pos)
		breaks := 0
		if prevEnd >= 0 {
			breaks = bytes.Count(src[prevEnd:off], []byte("\n"))
		}
		if breaks > 0 {
			// A line break: only between the elements of one list.
			if breaks != 1 || (prev != token.COMMA && prev != token.LBRACE) || tok != token.LBRACE {
				return nil, false // gofmt aligns the values of keys on lines of their own
			}
			if breakAt < 0 {
				breakAt = depth
			} else if breakAt != depth {
				return nil, false
			}
			out = append(out, '\n', '\t')
		} else if space(prev, tok) {
			out = append(out, ' ')
		}
		if lit != "" {
			prevEnd = off + len(lit)
		} else {
			prevEnd = off + len(tok.String())
		}
		switch tok {
		case token.VAR:
			if prev != token.ILLEGAL {
				return nil, false
			}
			afterVar = true
		case token.IDENT:
			if operand(prev) && !(afterVar && prev == token.VAR) {
				return nil, false
			}
		case token.INT, token.FLOAT, token.IMAG, token.CHAR, token.STRING:
			if operand(prev) || strings.ContainsAny(lit, "\n\r") {
				return nil, false
			}
			if tok != token.STRING && tok != token.CHAR && strings.ToLower(lit) != lit {
				return nil, false // gofmt writes 0X1P4 as 0x1p4
			}
		case token.ASSIGN:
			if assignSet || prev != token.IDENT || depth != 0 {
				return nil, false
			}
			assignSet = true
		case token.LBRACE, token.LPAREN:
			depth++
			binary = 0
		case token.LBRACK:
			depth++
		case token.RBRACK:
			if prev != token.LBRACK {
				return nil, false // only the [] of slice types
			}
			depth--
		case token.RBRACE, token.RPAREN:
			depth--
			if depth < 0 || prev == token.COMMA { // gofmt drops a comma before a brace on its line
				return nil, false
			}
		case token.COMMA, token.COLON:
			binary = 0
		case token.PERIOD:
			if prev != token.IDENT {
				return nil, false
			}
		case token.AND, token.SUB:
			if operand(prev) {
				return nil, false // binary
			}
		case token.SHL:
			if !operand(prev) || binary > 0 {
				return nil, false
			}
			binary++
		default:
			return nil, false
		}
		switch tok {
		case token.IDENT, token.INT, token.FLOAT, token.IMAG, token.CHAR, token.STRING:
			out = append(out, lit...)
		default:
			out = append(out, tok.String()...)
		}
		prev = tok
	}
	if depth != 0 || !assignSet {
		return nil, false
	}
	return out, true
}

// operand reports whether tok ends an operand.
func operand(tok token.Token) bool {
	switch tok {
	case token.IDENT, token.INT, token.FLOAT, token.IMAG, token.CHAR, token.STRING, token.RBRACE, token.RPAREN:
		return true
	}
	return false
}

// space reports whether gofmt puts a blank between prev and tok on one
// line, in the shapes layoutDecl accepts.
func space(prev, tok token.Token) bool {
	switch {
	case prev == token.VAR, prev == token.COMMA, prev == token.COLON, prev == token.ASSIGN, prev == token.SHL:
		return true
	case tok == token.ASSIGN, tok == token.SHL:
		return true
	}
	return false
}
