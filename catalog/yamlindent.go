package catalog

import (
	"fmt"
	"strings"
)

// go-yaml places most indentation mistakes at the start of the mapping
// that encloses them, or calls them "mapping values are not allowed". When
// it rejects a file, indentError reads the file's lines as blocks of equal
// indentation and finds the line that breaks its block's pattern.

// indentLevel is an open block collection: the column, from 0, where its
// keys or "- " items start.
type indentLevel struct {
	indent int
	seq    bool
}

// indentScan is the state of the scan between lines.
type indentScan struct {
	levels []indentLevel
	// opened is set when the last line ended a key or "- " without a value:
	// the next line may start a deeper block.
	opened bool
	// A block scalar (| or >) is open above parent; its text is indented
	// text columns (0 until its first line is read).
	scalar       bool
	scalarParent int
	scalarText   int
	// Across lines: the depth of flow collections and the open quote.
	flow  int
	quote byte
}

// indentError returns the first line whose indentation breaks the pattern
// of the lines around it, within the block that starts at line from (the
// lines after it indented as much or more), or nil when the indentation
// there looks right.
func indentError(li *lineIndex, from int) *Error {
	var s indentScan
	fromIndent := -1
	for ln := 1; ln <= len(li.start); ln++ {
		text := lineText(li, ln)
		body := strings.TrimLeft(text, " ")
		content := body != "" && body[0] != '#' && body[0] != '\t'
		if ln == from {
			fromIndent = len(text) - len(body)
		} else if ln > from && content && s.flow == 0 && s.quote == 0 && len(text)-len(body) < fromIndent {
			if e := s.line(text); e != nil {
				return &Error{Pos: li.pos(li.start[ln-1] + e.col), Msg: e.msg}
			}
			return nil // the block ends here
		}
		if e := s.line(text); e != nil && ln >= from {
			return &Error{Pos: li.pos(li.start[ln-1] + e.col), Msg: e.msg}
		}
	}
	return nil
}

func lineText(li *lineIndex, ln int) string {
	end := len(li.data)
	if ln < len(li.start) {
		end = li.start[ln] - 1
	}
	return strings.TrimSuffix(string(li.data[li.start[ln-1]:end]), "\r")
}

// indentProblem is what is wrong with a line, and the byte column, from 0,
// where it is.
type indentProblem struct {
	col int
	msg string
}

func spaces(n int) string {
	if n == 1 {
		return "1 space"
	}
	return fmt.Sprintf("%d spaces", n)
}

// line reads one line; it returns the line's problem, if any, and carries
// on as if the line were right.
func (s *indentScan) line(text string) *indentProblem {
	ind := len(text) - len(strings.TrimLeft(text, " "))
	rest := text[ind:]
	blank := strings.TrimSpace(rest) == ""
	if s.scalar {
		switch {
		case blank:
			return nil
		case s.scalarText == 0 && ind > s.scalarParent:
			s.scalarText = ind
			return nil
		case s.scalarText > 0 && ind >= s.scalarText:
			return nil
		}
		s.scalar = false
		if ind > s.scalarParent && !strings.HasPrefix(rest, "\t") {
			return &indentProblem{ind, fmt.Sprintf("line is indented %s, less than the %d of the block text above it", spaces(ind), s.scalarText)}
		}
	}
	if s.flow > 0 || s.quote != 0 {
		s.scanValue(rest)
		return nil
	}
	trimmed := strings.TrimLeft(rest, " \t")
	if trimmed == "" || trimmed[0] == '#' {
		return nil
	}
	if ind == 0 && (strings.HasPrefix(rest, "---") || strings.HasPrefix(rest, "...") || rest[0] == '%') {
		*s = indentScan{}
		return nil
	}
	if strings.HasPrefix(rest, "\t") {
		tab := ind
		s.opened = false
		if key, ok := yamlKey(trimmed); ok {
			return &indentProblem{tab, fmt.Sprintf("key %q is indented with a tab; YAML indents with spaces only", key)}
		}
		return &indentProblem{tab, "line is indented with a tab; YAML indents with spaces only"}
	}
	key, isKey := yamlKey(rest)
	p := s.place(ind, key, isKey, isDash(rest))
	s.item(ind, rest)
	return p
}

// place finds the block a line at indentation ind belongs to.
func (s *indentScan) place(ind int, key string, isKey, dash bool) *indentProblem {
	n := len(s.levels)
	switch {
	case n == 0, s.opened && ind > s.levels[n-1].indent:
		s.levels = append(s.levels, indentLevel{indent: ind, seq: dash})
		return nil
	case s.opened && dash && ind == s.levels[n-1].indent && !s.levels[n-1].seq:
		// A list at the indentation of its key.
		s.levels = append(s.levels, indentLevel{indent: ind, seq: true})
		return nil
	}
	for i := n - 1; i >= 0; i-- {
		if s.levels[i].indent == ind {
			if i > 0 && s.levels[i].seq && !dash && s.levels[i-1].indent == ind {
				i-- // the key after a list at the indentation of its key
			}
			s.levels = s.levels[:i+1]
			return nil
		}
	}
	what := "line"
	switch {
	case isKey:
		what = fmt.Sprintf("key %q", key)
	case dash:
		what = `list item "-"`
	}
	top := s.levels[n-1].indent
	if ind > top {
		if !isKey {
			return nil // the continuation of a value
		}
		s.levels = append(s.levels, indentLevel{indent: ind, seq: dash})
		return &indentProblem{ind, fmt.Sprintf("%s is indented %s; its siblings are indented %d", what, spaces(ind), top)}
	}
	// Between two levels: its siblings are at the nearer one, the deeper
	// on a tie.
	near := top
	for i := n - 1; i >= 0; i-- {
		d := s.levels[i].indent
		if abs(d-ind) < abs(near-ind) {
			near = d
		}
		if d < ind {
			s.levels = append(s.levels[:i+1], indentLevel{indent: ind, seq: dash})
			break
		}
	}
	if s.levels[len(s.levels)-1].indent != ind {
		s.levels = []indentLevel{{indent: ind, seq: dash}}
	}
	return &indentProblem{ind, fmt.Sprintf("%s is indented %s; its siblings are indented %d", what, spaces(ind), near)}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// item reads the line's "- " items and key, opening the blocks they start,
// and its value.
func (s *indentScan) item(ind int, rest string) {
	col, parent := ind, ind
	for isDash(rest) {
		if rest == "-" {
			s.opened = true
			return
		}
		parent = col
		n := len(rest) - len(strings.TrimLeft(rest[1:], " ")) // the dash and its spaces
		col += n
		rest = rest[n:]
		s.levels = append(s.levels, indentLevel{indent: col, seq: isDash(rest)})
	}
	if end := keyEnd(rest); end > 0 {
		parent = col
		rest = rest[end:]
	}
	s.value(parent, strings.TrimLeft(rest, " "))
}

func isDash(s string) bool { return s == "-" || strings.HasPrefix(s, "- ") }

// value reads what follows a key or "- " on a line; parent is the column
// of the key.
func (s *indentScan) value(parent int, v string) {
	// Anchors and tags come before the value they name.
	for strings.HasPrefix(v, "&") || strings.HasPrefix(v, "!") {
		i := strings.IndexByte(v, ' ')
		if i < 0 {
			v = ""
			break
		}
		v = strings.TrimLeft(v[i:], " ")
	}
	s.opened = v == "" || v[0] == '#'
	if v != "" && (v[0] == '|' || v[0] == '>') {
		s.scalar, s.scalarParent, s.scalarText = true, parent, 0
		return
	}
	s.scanValue(v)
}

// scanValue follows flow collections and quoted strings that may continue
// on the next lines.
func (s *indentScan) scanValue(v string) {
	prev := byte(' ')
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case s.quote == '"':
			if c == '\\' {
				i++
			} else if c == '"' {
				s.quote = 0
			}
		case s.quote == '\'':
			if c == '\'' {
				if i+1 < len(v) && v[i+1] == '\'' {
					i++
				} else {
					s.quote = 0
				}
			}
		case c == '#' && (prev == ' ' || prev == '\t'):
			return
		case (c == '"' || c == '\'') && strings.IndexByte(" \t[{,:", prev) >= 0:
			s.quote = c
		case c == '{' || c == '[':
			s.flow++
		case (c == '}' || c == ']') && s.flow > 0:
			s.flow--
		}
		prev = c
	}
}

// yamlKey returns the key a line starts with, if it starts with one: a
// plain or quoted scalar followed by ":" and a space or the line's end.
func yamlKey(line string) (string, bool) {
	end := keyEnd(line)
	if end < 0 {
		return "", false
	}
	key := strings.TrimSpace(line[:end-1])
	if len(key) >= 2 && (key[0] == '"' || key[0] == '\'') {
		key = key[1 : len(key)-1]
	}
	return key, true
}

// keyEnd returns the offset just past the ":" that ends the key a line
// starts with, or -1.
func keyEnd(line string) int {
	if line == "" || isDash(line) || line == "?" || strings.HasPrefix(line, "? ") ||
		strings.IndexByte("#{[]},&*!|>%@`", line[0]) >= 0 {
		return -1
	}
	i := 0
	if q := line[0]; q == '"' || q == '\'' {
		for i = 1; i < len(line) && line[i] != q; i++ {
			if line[i] == '\\' && q == '"' {
				i++
			}
		}
		i++
	}
	for ; i < len(line); i++ {
		switch line[i] {
		case ':':
			if i+1 == len(line) || line[i+1] == ' ' || line[i+1] == '\t' {
				return i + 1
			}
		case '#':
			if line[i-1] == ' ' || line[i-1] == '\t' {
				return -1
			}
		}
	}
	return -1
}
