package catalog

import (
	"fmt"
	"sort"
	"strings"
)

// Pos is a position in a catalog file. Line and Col count from 1; a zero
// Line means the position is unknown within File.
type Pos struct {
	File string
	Line int
	Col  int
}

// String formats p as file:line:col, the form editors and CI understand.
func (p Pos) String() string {
	switch {
	case p.File == "" && p.Line == 0:
		return "-"
	case p.Line == 0:
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// IsValid reports whether p names a file.
func (p Pos) IsValid() bool { return p.File != "" }

// Before orders positions by file, line and column.
func (p Pos) Before(q Pos) bool {
	if p.File != q.File {
		return p.File < q.File
	}
	if p.Line != q.Line {
		return p.Line < q.Line
	}
	return p.Col < q.Col
}

// Error is a problem in a catalog, at a position.
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string {
	if !e.Pos.IsValid() {
		return e.Msg
	}
	return e.Pos.String() + ": " + e.Msg
}

// ErrorList is every problem found while loading a catalog, sorted by
// position. Its Error method lists them all, one per line.
type ErrorList []*Error

func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

func (l *ErrorList) add(p Pos, format string, args ...any) {
	*l = append(*l, &Error{Pos: p, Msg: fmt.Sprintf(format, args...)})
}

// sortUnique sorts the list by position, keeping the order of the errors
// at one position, and drops exact repeats.
func (l ErrorList) sortUnique() ErrorList {
	sort.SliceStable(l, func(i, j int) bool { return l[i].Pos.Before(l[j].Pos) })
	out := l[:0]
	seen := map[Error]bool{}
	for _, e := range l {
		if !seen[*e] {
			seen[*e] = true
			out = append(out, e)
		}
	}
	return out
}
