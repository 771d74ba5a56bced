package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	goruntime "runtime"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// maxDepth bounds the nesting of objects and arrays in a catalog file. Real
// catalogs nest a few levels; the bound keeps hostile input from exhausting
// the stack.
const maxDepth = 200

// minAliasNodes is the number of nodes YAML aliases may add to a file
// whatever its size; a larger file may add as many nodes as it holds, so
// that aliases at most double a file's tree. The bound stops "billion
// laughs" documents, whose aliases expand a kilobyte to gigabytes, at a few
// megabytes.
const minAliasNodes = 100_000

// lineIndex turns byte offsets into positions.
type lineIndex struct {
	name  string
	data  []byte
	start []int  // byte offset of each line
	ascii []bool // whether each line is ASCII, where a column is a byte
}

func newLineIndex(name string, data []byte) *lineIndex {
	li := &lineIndex{name: name, data: data, start: []int{0}}
	ascii := true
	for i, c := range data {
		if c >= 0x80 {
			ascii = false
		}
		if c == '\n' {
			li.start = append(li.start, i+1)
			li.ascii = append(li.ascii, ascii)
			ascii = true
		}
	}
	li.ascii = append(li.ascii, ascii)
	return li
}

// pos returns the position of byte offset off; columns count characters.
func (li *lineIndex) pos(off int) Pos {
	if off < 0 {
		off = 0
	}
	if off > len(li.data) {
		off = len(li.data)
	}
	lo, hi := 0, len(li.start)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if li.start[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	col := off - li.start[lo] + 1
	if !li.ascii[lo] {
		col = utf8.RuneCount(li.data[li.start[lo]:off]) + 1
	}
	return Pos{File: li.name, Line: lo + 1, Col: col}
}

// offset returns the byte offset of a 1-based line and character column.
func (li *lineIndex) offset(line, col int) int {
	if line < 1 {
		return 0
	}
	if line > len(li.start) {
		return len(li.data)
	}
	off := li.start[line-1]
	if li.ascii[line-1] {
		end := len(li.data)
		if line < len(li.start) {
			end = li.start[line] - 1
		}
		return min(off+max(col-1, 0), end)
	}
	for c := 1; c < col && off < len(li.data) && li.data[off] != '\n'; c++ {
		_, size := utf8.DecodeRune(li.data[off:])
		off += size
	}
	return off
}

// parseYAML reads one YAML document into a Node tree. It reports multiple
// documents, non-string keys and over-deep nesting as positioned errors; a
// key written twice is kept twice, for the loader to report and check. A
// large catalog's tools are parsed in parallel where the file's layout
// makes that exact (see splitYAML); the tree is the same either way.
func parseYAML(name string, data []byte) (*Node, ErrorList) {
	if len(data) >= minSplitBytes {
		if n, ok := splitYAML(name, data, goruntime.GOMAXPROCS(0), minSplitTools); ok {
			return n, nil
		}
	}
	return parseYAMLWhole(name, data)
}

// parseYAMLWhole is parseYAML in one pass over the whole file.
func parseYAMLWhole(name string, data []byte) (*Node, ErrorList) {
	var errs ErrorList
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return &Node{Kind: Object, Pos: Pos{File: name, Line: 1, Col: 1}}, nil
		}
		errs = append(errs, yamlSyntaxError(name, data, err))
		return nil, errs
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		errs.add(Pos{File: name, Line: extra.Line, Col: extra.Column},
			"a catalog file holds one YAML document; split the documents into files or merge them")
		return nil, errs
	} else if !errors.Is(err, io.EOF) {
		errs = append(errs, yamlSyntaxError(name, data, err))
		return nil, errs
	}
	limit := max(minAliasNodes, countYAMLNodes(&doc))
	c := yamlConv{name: name, aliasBudget: limit, aliasLimit: limit}
	n := c.node(&doc, 0)
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	if n.Kind == Null {
		n = &Node{Kind: Object, Pos: n.Pos}
	}
	return n, nil
}

// yamlSyntaxError positions a go-yaml error. go-yaml gives a line only,
// often the start of the mapping around the problem: when a line at or
// after it breaks the indentation of its block, that line is the error.
func yamlSyntaxError(name string, data []byte, err error) *Error {
	e := yamlError(name, err)
	if ie := indentError(newLineIndex(name, data), e.Pos.Line); ie != nil {
		return ie
	}
	return e
}

// yamlError positions a go-yaml error; its messages read
// "yaml: line 3: did not find expected key". go-yaml counts the lines of
// parser errors from 0 (and leaves out line 0), those of scanner errors
// from 1; parser errors are the ones that did not find what they expected
// and the document-level ones.
func yamlError(name string, err error) *Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if i := strings.Index(rest, ":"); i > 0 {
			if n, err := strconv.Atoi(rest[:i]); err == nil {
				line, msg = n, strings.TrimSpace(rest[i+1:])
			}
		}
	}
	if isParserError(msg) {
		line++
	}
	return &Error{Pos: Pos{File: name, Line: max(line, 1), Col: 1}, Msg: "invalid YAML: " + msg}
}

func isParserError(msg string) bool {
	for _, p := range []string{"did not find expected", "found undefined tag handle", "found duplicate %", "found incompatible YAML document"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

type yamlConv struct {
	name string
	// lineOff is added to go-yaml's lines: the line of the file before
	// the part of it being converted.
	lineOff int
	// sawAlias is set when an alias was converted.
	sawAlias bool
	errs     ErrorList
	// inAlias is the depth of alias expansions being converted; every node
	// converted inside one spends one of aliasBudget.
	inAlias     int
	aliasBudget int
	aliasLimit  int
	aliasPos    Pos // the outermost alias being expanded
	// stop is set once the budget is spent: conversion ends there, with
	// one error.
	stop bool
}

// countYAMLNodes counts the nodes of a YAML tree as written, without
// following aliases.
func countYAMLNodes(n *yaml.Node) int {
	count := 1
	for _, c := range n.Content {
		count += countYAMLNodes(c)
	}
	return count
}

func (c *yamlConv) pos(n *yaml.Node) Pos {
	return Pos{File: c.name, Line: n.Line + c.lineOff, Col: n.Column}
}

func (c *yamlConv) node(n *yaml.Node, depth int) *Node {
	if c.stop {
		return &Node{Kind: Null, Pos: c.pos(n)}
	}
	if c.inAlias > 0 {
		c.aliasBudget--
		if c.aliasBudget < 0 {
			c.stop = true
			c.errs.add(c.aliasPos, "YAML aliases expand the file by more than %d nodes; repeat less through aliases, or write the catalog in CUE", c.aliasLimit)
			return &Node{Kind: Null, Pos: c.pos(n)}
		}
	}
	if depth > maxDepth {
		c.errs.add(c.pos(n), "nesting deeper than %d levels", maxDepth)
		return &Node{Kind: Null, Pos: c.pos(n)}
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return &Node{Kind: Null, Pos: c.pos(n)}
		}
		return c.node(n.Content[0], depth)
	case yaml.AliasNode:
		c.sawAlias = true
		if c.inAlias == 0 {
			c.aliasPos = c.pos(n)
		}
		c.inAlias++
		out := c.node(n.Alias, depth+1)
		c.inAlias--
		return out
	case yaml.MappingNode:
		out := &Node{Kind: Object, Pos: c.pos(n)}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
				c.merge(out, v, depth)
				continue
			}
			if k.Kind != yaml.ScalarNode || (k.Tag != "!!str" && k.Tag != "!!int" && k.Tag != "!!bool" && k.Tag != "!!float" && k.Tag != "!!null") {
				c.errs.add(c.pos(k), "a key must be a plain string")
				continue
			}
			// A key written twice is kept twice: the loader reports it
			// and checks both values (see splitDuplicates).
			out.Fields = append(out.Fields, &Field{Key: k.Value, KeyPos: c.pos(k), Value: c.node(v, depth+1)})
		}
		return out
	case yaml.SequenceNode:
		out := &Node{Kind: Array, Pos: c.pos(n), Items: make([]*Node, 0, len(n.Content))}
		for _, it := range n.Content {
			out.Items = append(out.Items, c.node(it, depth+1))
		}
		return out
	case yaml.ScalarNode:
		return c.scalar(n)
	}
	c.errs.add(c.pos(n), "unsupported YAML node")
	return &Node{Kind: Null, Pos: c.pos(n)}
}

// merge applies a "<<" merge key: the keys out already has win.
func (c *yamlConv) merge(out *Node, v *yaml.Node, depth int) {
	seen := make(map[string]bool, len(out.Fields))
	for _, f := range out.Fields {
		seen[f.Key] = true
	}
	src := c.node(v, depth+1)
	var maps []*Node
	switch src.Kind {
	case Object:
		maps = []*Node{src}
	case Array:
		maps = src.Items
	}
	for _, m := range maps {
		if m.Kind != Object {
			c.errs.add(m.Pos, "a merge key (<<) takes a mapping or a list of mappings")
			continue
		}
		for _, f := range m.Fields {
			if _, ok := seen[f.Key]; ok {
				continue
			}
			seen[f.Key] = true
			out.Fields = append(out.Fields, f)
		}
	}
}

func (c *yamlConv) scalar(n *yaml.Node) *Node {
	p := c.pos(n)
	switch n.Tag {
	case "!!null":
		return &Node{Kind: Null, Pos: p}
	case "!!bool":
		switch n.Value {
		case "true":
			return &Node{Kind: Bool, Pos: p, Bool: true}
		case "false":
			return &Node{Kind: Bool, Pos: p}
		}
		var b bool
		if err := n.Decode(&b); err != nil {
			c.errs.add(p, "invalid boolean %q", n.Value)
		}
		return &Node{Kind: Bool, Pos: p, Bool: b}
	case "!!int":
		if plainDecimal(n.Value) {
			return &Node{Kind: Number, Pos: p, Num: n.Value}
		}
		var i int64
		if err := n.Decode(&i); err != nil {
			var u uint64
			if err2 := n.Decode(&u); err2 != nil {
				c.errs.add(p, "integer %s is out of range", n.Value)
				return &Node{Kind: Null, Pos: p}
			}
			return &Node{Kind: Number, Pos: p, Num: strconv.FormatUint(u, 10)}
		}
		return &Node{Kind: Number, Pos: p, Num: strconv.FormatInt(i, 10)}
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			c.errs.add(p, "number %s cannot be written in JSON", n.Value)
			return &Node{Kind: Null, Pos: p}
		}
		return &Node{Kind: Number, Pos: p, Num: strconv.FormatFloat(f, 'g', -1, 64)}
	case "!!str", "":
		return &Node{Kind: String, Pos: p, Str: n.Value}
	case "!!binary", "!!timestamp":
		return &Node{Kind: String, Pos: p, Str: n.Value}
	}
	c.errs.add(p, "unsupported YAML tag %s", n.Tag)
	return &Node{Kind: Null, Pos: p}
}

// plainDecimal reports whether s is an integer written in decimal
// without a sign other than "-", leading zeros or underscores, and small
// enough for an int64: go-yaml reads it as strconv does, and writes it
// back the same.
func plainDecimal(s string) bool {
	d := strings.TrimPrefix(s, "-")
	if len(d) == 0 || len(d) > 18 || d[0] == '0' && len(d) > 1 || d == "0" && len(s) > 1 {
		return false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
	}
	return true
}

// parseJSON reads a JSON document into a Node tree, reporting syntax errors
// at their positions; a key written twice is kept twice, as in parseYAML.
func parseJSON(name string, data []byte) (*Node, ErrorList) {
	li := newLineIndex(name, data)
	p := jsonParser{li: li, dec: json.NewDecoder(bytes.NewReader(data))}
	p.dec.UseNumber()
	n := p.value(0)
	if len(p.errs) == 0 {
		if _, err := p.dec.Token(); !errors.Is(err, io.EOF) {
			p.errs.add(li.pos(int(p.dec.InputOffset())), "invalid JSON: data after the top-level value")
		}
	}
	if len(p.errs) > 0 {
		return nil, p.errs[:1]
	}
	return n, nil
}

type jsonParser struct {
	li   *lineIndex
	dec  *json.Decoder
	errs ErrorList
}

// start returns the position of the token that begins at the decoder's
// offset, skipping white space and separators.
func (p *jsonParser) start() Pos {
	off := int(p.dec.InputOffset())
	for off < len(p.li.data) {
		switch p.li.data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
			continue
		}
		break
	}
	return p.li.pos(off)
}

func (p *jsonParser) fail(err error) {
	var se *json.SyntaxError
	off := int(p.dec.InputOffset())
	if errors.As(err, &se) {
		off = int(se.Offset)
	}
	msg := err.Error()
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		msg = "unexpected end of input"
	}
	p.errs.add(p.li.pos(off), "invalid JSON: %s", msg)
}

func (p *jsonParser) value(depth int) *Node {
	pos := p.start()
	tok, err := p.dec.Token()
	if err != nil {
		p.fail(err)
		return nil
	}
	return p.fromToken(tok, pos, depth)
}

func (p *jsonParser) fromToken(tok json.Token, pos Pos, depth int) *Node {
	if depth > maxDepth {
		p.errs.add(pos, "nesting deeper than %d levels", maxDepth)
		return nil
	}
	switch t := tok.(type) {
	case nil:
		return &Node{Kind: Null, Pos: pos}
	case bool:
		return &Node{Kind: Bool, Pos: pos, Bool: t}
	case json.Number:
		return &Node{Kind: Number, Pos: pos, Num: t.String()}
	case string:
		return &Node{Kind: String, Pos: pos, Str: t}
	case json.Delim:
		switch t {
		case '{':
			n := &Node{Kind: Object, Pos: pos}
			for p.dec.More() {
				kpos := p.start()
				kt, err := p.dec.Token()
				if err != nil {
					p.fail(err)
					return nil
				}
				key, _ := kt.(string)
				v := p.value(depth + 1)
				if len(p.errs) > 0 {
					return nil
				}
				n.Fields = append(n.Fields, &Field{Key: key, KeyPos: kpos, Value: v})
			}
			if _, err := p.dec.Token(); err != nil {
				p.fail(err)
				return nil
			}
			return n
		case '[':
			n := &Node{Kind: Array, Pos: pos}
			for p.dec.More() {
				v := p.value(depth + 1)
				if len(p.errs) > 0 {
					return nil
				}
				n.Items = append(n.Items, v)
			}
			if _, err := p.dec.Token(); err != nil {
				p.fail(err)
				return nil
			}
			return n
		}
	}
	p.errs.add(pos, "invalid JSON: unexpected %v", tok)
	return nil
}

// describe names a node's kind and value briefly, for messages.
func describe(n *Node) string {
	switch n.Kind {
	case String:
		s := n.Str
		if len(s) > 40 {
			s = s[:37] + "..."
		}
		return fmt.Sprintf("string %q", s)
	case Number:
		return "number " + n.Num
	case Bool:
		return "boolean " + strconv.FormatBool(n.Bool)
	case Null:
		return "null"
	case Object:
		return "object"
	}
	return "array"
}
