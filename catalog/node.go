package catalog

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/toolcat/toolcat/internal/jsonptr"
)

// Kind is the JSON type of a [Node].
type Kind uint8

// The JSON kinds.
const (
	Null Kind = iota
	Bool
	Number
	String
	Object
	Array
)

var kindNames = [...]string{"null", "boolean", "number", "string", "object", "array"}

func (k Kind) String() string { return kindNames[k] }

// Node is a JSON value with the source position of every part: how a
// catalog keeps JSON Schemas and examples, so that lint can point inside
// them. Object members keep their source order.
type Node struct {
	Kind   Kind
	Pos    Pos
	Bool   bool
	Num    string // the number as written, for Kind Number
	Str    string
	Fields []*Field // Kind Object
	Items  []*Node  // Kind Array
}

// Field is an object member.
type Field struct {
	Key    string
	KeyPos Pos
	Value  *Node
}

// Get returns the member key of an object node, or nil.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != Object {
		return nil
	}
	for _, f := range n.Fields {
		if f.Key == key {
			return f.Value
		}
	}
	return nil
}

// Field returns the member key of an object node, or nil.
func (n *Node) Field(key string) *Field {
	if n == nil || n.Kind != Object {
		return nil
	}
	for _, f := range n.Fields {
		if f.Key == key {
			return f
		}
	}
	return nil
}

// KeyPos returns the position of member key, or of n itself when the member
// is absent.
func (n *Node) KeyPos(key string) Pos {
	if f := n.Field(key); f != nil {
		return f.KeyPos
	}
	if n == nil {
		return Pos{}
	}
	return n.Pos
}

// StringValue returns the string of a string node and whether it was one.
func (n *Node) StringValue() (string, bool) {
	if n == nil || n.Kind != String {
		return "", false
	}
	return n.Str, true
}

// Float returns the value of a number node and whether it was one.
func (n *Node) Float() (float64, bool) {
	if n == nil || n.Kind != Number {
		return 0, false
	}
	f, err := strconv.ParseFloat(n.Num, 64)
	return f, err == nil
}

// Lookup follows a JSON pointer ("/properties/query") from n; it returns
// nil when a step is missing.
func (n *Node) Lookup(pointer string) *Node {
	found, _ := jsonptr.Lookup(n, pointer, (*Node).child)
	return found
}

// child is the member or item of n that an unescaped pointer token names.
func (n *Node) child(tok string) (*Node, bool) {
	switch {
	case n == nil:
		return nil, false
	case n.Kind == Object:
		c := n.Get(tok)
		return c, c != nil
	case n.Kind == Array:
		i, ok := jsonptr.Index(tok, len(n.Items))
		if !ok {
			return nil, false
		}
		return n.Items[i], true
	}
	return nil, false
}

// Interface returns n as the value encoding/json would decode: nil, bool,
// json.Number, string, map[string]any or []any.
func (n *Node) Interface() any {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case Bool:
		return n.Bool
	case Number:
		return json.Number(n.Num)
	case String:
		return n.Str
	case Object:
		m := make(map[string]any, len(n.Fields))
		for _, f := range n.Fields {
			m[f.Key] = f.Value.Interface()
		}
		return m
	case Array:
		a := make([]any, len(n.Items))
		for i, it := range n.Items {
			a[i] = it.Interface()
		}
		return a
	}
	return nil
}

// JSON encodes n compactly, members in source order.
func (n *Node) JSON() []byte {
	var b bytes.Buffer
	n.writeJSON(&b)
	return b.Bytes()
}

func (n *Node) writeJSON(b *bytes.Buffer) {
	if n == nil {
		b.WriteString("null")
		return
	}
	switch n.Kind {
	case Null:
		b.WriteString("null")
	case Bool:
		b.WriteString(strconv.FormatBool(n.Bool))
	case Number:
		b.WriteString(n.Num)
	case String:
		writeJSONString(b, n.Str)
	case Object:
		b.WriteByte('{')
		for i, f := range n.Fields {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, f.Key)
			b.WriteByte(':')
			f.Value.writeJSON(b)
		}
		b.WriteByte('}')
	case Array:
		b.WriteByte('[')
		for i, it := range n.Items {
			if i > 0 {
				b.WriteByte(',')
			}
			it.writeJSON(b)
		}
		b.WriteByte(']')
	}
}

func writeJSONString(b *bytes.Buffer, s string) {
	enc, _ := json.Marshal(s) // a string always encodes
	b.Write(enc)
}

// Walk calls fn for n and every node below it, depth first, with the JSON
// pointer of each; fn returns false to skip a node's children.
func (n *Node) Walk(fn func(pointer string, n *Node) bool) {
	n.walk("", fn)
}

func (n *Node) walk(ptr string, fn func(string, *Node) bool) {
	if n == nil || !fn(ptr, n) {
		return
	}
	switch n.Kind {
	case Object:
		for _, f := range n.Fields {
			f.Value.walk(jsonptr.Append(ptr, f.Key), fn)
		}
	case Array:
		for i, it := range n.Items {
			it.walk(ptr+"/"+strconv.Itoa(i), fn)
		}
	}
}

// SchemaTypes returns the names a JSON Schema's "type" keyword lists (a
// string or an array of strings), or nil when it has none.
func (n *Node) SchemaTypes() []string {
	t := n.Get("type")
	switch {
	case t == nil:
		return nil
	case t.Kind == String:
		return []string{t.Str}
	case t.Kind == Array:
		var out []string
		for _, it := range t.Items {
			if it.Kind == String {
				out = append(out, it.Str)
			}
		}
		return out
	}
	return nil
}
