package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/toolcat/toolcat/internal/jsonptr"
)

// node is a JSON value that keeps the order of object keys, so that a
// schema is exported with its properties in the order the catalog wrote
// them and the same input always gives the same bytes.
type node struct {
	kind  byte // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null
	keys  []string
	vals  []*node // object values, in the order of keys
	items []*node // array elements
	str   string  // string value, or a number's literal text
	b     bool
}

func object() *node           { return &node{kind: 'o'} }
func array(xs ...*node) *node { return &node{kind: 'a', items: xs} }
func str(s string) *node      { return &node{kind: 's', str: s} }
func boolean(b bool) *node    { return &node{kind: 'b', b: b} }
func number(lit string) *node { return &node{kind: 'n', str: lit} }
func strs(ss []string) *node {
	n := array()
	for _, s := range ss {
		n.items = append(n.items, str(s))
	}
	return n
}

// parse decodes one JSON document.
func parse(data []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := parseValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the JSON value")
	}
	return n, nil
}

func parseValue(dec *json.Decoder) (*node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := object()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				n.set(k, v)
			}
			_, err := dec.Token()
			return n, err
		case '[':
			n := array()
			for dec.More() {
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, v)
			}
			_, err := dec.Token()
			return n, err
		}
	case string:
		return str(t), nil
	case json.Number:
		return number(t.String()), nil
	case bool:
		return boolean(t), nil
	case nil:
		return &node{kind: 'z'}, nil
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

// get returns the value of key k of an object, or nil.
func (n *node) get(k string) *node {
	if n == nil || n.kind != 'o' {
		return nil
	}
	for i, key := range n.keys {
		if key == k {
			return n.vals[i]
		}
	}
	return nil
}

// child is the member or item of n that an unescaped JSON pointer token
// names.
func (n *node) child(tok string) (*node, bool) {
	switch {
	case n == nil:
		return nil, false
	case n.kind == 'o':
		c := n.get(tok)
		return c, c != nil
	case n.kind == 'a':
		i, ok := jsonptr.Index(tok, len(n.items))
		if !ok {
			return nil, false
		}
		return n.items[i], true
	}
	return nil, false
}

// set replaces the value of key k, or appends it.
func (n *node) set(k string, v *node) *node {
	for i, key := range n.keys {
		if key == k {
			n.vals[i] = v
			return n
		}
	}
	n.keys = append(n.keys, k)
	n.vals = append(n.vals, v)
	return n
}

// del removes key k.
func (n *node) del(k string) {
	for i, key := range n.keys {
		if key == k {
			n.keys = append(n.keys[:i:i], n.keys[i+1:]...)
			n.vals = append(n.vals[:i:i], n.vals[i+1:]...)
			return
		}
	}
}

// clone copies n deeply.
func (n *node) clone() *node {
	if n == nil {
		return nil
	}
	c := *n
	c.keys = append([]string(nil), n.keys...)
	c.vals = make([]*node, len(n.vals))
	for i, v := range n.vals {
		c.vals[i] = v.clone()
	}
	c.items = make([]*node, len(n.items))
	for i, v := range n.items {
		c.items[i] = v.clone()
	}
	return &c
}

// text returns a string value, or "" for any other kind.
func (n *node) text() string {
	if n == nil || n.kind != 's' {
		return ""
	}
	return n.str
}

// isTrue and isFalse report a boolean value.
func (n *node) isTrue() bool  { return n != nil && n.kind == 'b' && n.b }
func (n *node) isFalse() bool { return n != nil && n.kind == 'b' && !n.b }

// compact writes n as compact JSON without HTML escaping.
func (n *node) compact(buf *bytes.Buffer) {
	switch n.kind {
	case 'o':
		buf.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeString(buf, k)
			buf.WriteByte(':')
			n.vals[i].compact(buf)
		}
		buf.WriteByte('}')
	case 'a':
		buf.WriteByte('[')
		for i, v := range n.items {
			if i > 0 {
				buf.WriteByte(',')
			}
			v.compact(buf)
		}
		buf.WriteByte(']')
	case 's':
		writeString(buf, n.str)
	case 'n':
		buf.WriteString(n.str)
	case 'b':
		buf.WriteString(strconv.FormatBool(n.b))
	default:
		buf.WriteString("null")
	}
}

// String returns n as compact JSON.
func (n *node) String() string {
	var buf bytes.Buffer
	n.compact(&buf)
	return buf.String()
}

func writeString(buf *bytes.Buffer, s string) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a Go string always encodes
	buf.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// render returns n as JSON indented by two spaces, with a final newline.
func render(n *node) []byte {
	var compact, out bytes.Buffer
	n.compact(&compact)
	if err := json.Indent(&out, compact.Bytes(), "", "  "); err != nil {
		panic(fmt.Sprintf("export: invalid JSON produced: %v", err)) // a bug in this package
	}
	out.WriteByte('\n')
	return out.Bytes()
}
