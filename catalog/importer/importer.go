// Package importer turns tool definitions written for other systems into a
// toolcat catalog: MCP tools/list answers and tool snapshots, OpenAI Chat
// and Responses function tools, Anthropic tools, Gemini function
// declarations and plain JSON Schemas, one tool per file or many.
//
// [Parse] reads one file into [Tool] values; [Build] resolves names,
// normalises the schemas to JSON Schema 2020-12, maps the metadata each
// format carries and writes deterministic catalog YAML, with a
// "# TODO(toolcat import): decide" comment wherever a human must decide and
// a [Note] for everything converted, renamed or kept as a comment. Nothing
// of the input is dropped without a note.
package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Decide is the comment that marks a value a human must confirm.
const Decide = "TODO(toolcat import): decide"

// Format names the dialect a tool was written in.
type Format string

// The formats Parse recognises.
const (
	FormatMCP             Format = "mcp"
	FormatOpenAIChat      Format = "openai-chat"
	FormatOpenAIResponses Format = "openai-responses"
	FormatOpenAIFunction  Format = "openai-function" // {name, description, parameters}
	FormatAnthropic       Format = "anthropic"
	FormatGemini          Format = "gemini"
	FormatSchema          Format = "json-schema"
)

// Tool is one tool as read from its source, before it becomes a catalog
// entry.
type Tool struct {
	Name        string
	Description string
	Format      Format
	// Source is the file (and index) the tool was read from, for notes.
	Source string
	// Input and Output are the argument and result schemas, in the order
	// written; nil when absent.
	Input, Output *yaml.Node
	// Annotations are MCP's tool annotations; nil when absent.
	Annotations *Annotations
	// Examples are example argument objects (Anthropic's input_examples).
	Examples []*yaml.Node
	// Extra holds the fields of the source the catalog has no place for,
	// by name, as compact JSON: they are kept as comments.
	Extra map[string]string
}

// Annotations are MCP's behaviour hints; nil means not stated.
type Annotations struct {
	ReadOnly, Destructive, Idempotent, OpenWorld *bool
}

// maxInput caps one input file; tool lists are kilobytes to a few MB.
const maxInput = 64 << 20

// Parse reads the tools of one JSON file: an MCP tools/list result (or the
// JSON-RPC response holding one), a single MCP tool, an array or "tools"
// list of OpenAI, Anthropic or MCP tools, Gemini's functionDeclarations,
// or one plain JSON Schema (the tool is named after its title or the
// file). name is the file's name, used in notes and for a schema's tool
// name.
func Parse(name string, r io.Reader) ([]Tool, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > maxInput {
		return nil, fmt.Errorf("%s: larger than %d MiB", name, maxInput>>20)
	}
	root, err := decodeJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	p := parser{file: name}
	if err := p.doc(root); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(p.tools) == 0 {
		return nil, fmt.Errorf("%s: no tool definitions found (want an MCP tools/list result, OpenAI, Anthropic or Gemini tools, or a JSON Schema)", name)
	}
	return p.tools, nil
}

type parser struct {
	file  string
	tools []Tool
}

func (p *parser) doc(n *yaml.Node) error {
	switch n.Kind {
	case yaml.SequenceNode:
		return p.list(n, "")
	case yaml.MappingNode:
	default:
		return fmt.Errorf("want a JSON object or array of tools")
	}
	if res := get(n, "result"); res != nil && res.Kind == yaml.MappingNode && get(n, "jsonrpc") != nil {
		return p.doc(res)
	}
	for _, key := range []string{"tools", "functionDeclarations", "function_declarations", "functions"} {
		if l := get(n, key); l != nil {
			if l.Kind != yaml.SequenceNode {
				return fmt.Errorf("%s is not an array", key)
			}
			f := Format("")
			if key != "tools" && key != "functions" {
				f = FormatGemini
			}
			return p.list(l, f)
		}
	}
	return p.tool(n, "", p.file)
}

func (p *parser) list(l *yaml.Node, f Format) error {
	for i, it := range l.Content {
		src := fmt.Sprintf("%s[%d]", p.file, i)
		if it.Kind != yaml.MappingNode {
			return fmt.Errorf("tool %d is not an object", i)
		}
		// Gemini wraps declarations: [{"functionDeclarations": [...]}].
		if d := get(it, "functionDeclarations"); d != nil && d.Kind == yaml.SequenceNode {
			if err := p.list(d, FormatGemini); err != nil {
				return err
			}
			continue
		}
		if err := p.tool(it, f, src); err != nil {
			return fmt.Errorf("tool %d: %w", i, err)
		}
	}
	return nil
}

// tool reads one tool object, recognising its format by its fields.
func (p *parser) tool(n *yaml.Node, f Format, src string) error {
	t := Tool{Source: src, Extra: map[string]string{}}
	used := map[string]bool{}
	take := func(obj *yaml.Node, key string) *yaml.Node {
		used[key] = true
		return get(obj, key)
	}
	obj := n
	switch {
	case str(get(n, "type")) == "function" && get(n, "function") != nil:
		t.Format = FormatOpenAIChat
		take(n, "type")
		fn := take(n, "function")
		if fn.Kind != yaml.MappingNode {
			return fmt.Errorf("function is not an object")
		}
		keepExtra(&t, n, used, "")
		obj, used = fn, map[string]bool{}
	case str(get(n, "type")) == "function":
		t.Format = FormatOpenAIResponses
		take(n, "type")
	case get(n, "inputSchema") != nil:
		t.Format = FormatMCP
	case get(n, "input_schema") != nil:
		t.Format = FormatAnthropic
	case get(n, "name") != nil && (get(n, "parameters") != nil || get(n, "parametersJsonSchema") != nil):
		t.Format = FormatOpenAIFunction
		if f == FormatGemini {
			t.Format = FormatGemini
		}
	case get(n, "name") != nil && get(n, "description") != nil && get(n, "properties") == nil:
		t.Format = FormatMCP // a tool that takes no arguments
	default:
		return p.schema(n, src)
	}
	if f == FormatGemini {
		t.Format = FormatGemini
	}
	nameNode := take(obj, "name")
	t.Name = str(nameNode)
	if nameNode == nil || nameNode.Kind != yaml.ScalarNode || t.Name == "" {
		return fmt.Errorf("a tool has no name")
	}
	if d := take(obj, "description"); d != nil {
		if d.Kind != yaml.ScalarNode {
			return fmt.Errorf("tool %s: description is not a string", t.Name)
		}
		t.Description = d.Value
	}
	for _, k := range []string{"inputSchema", "input_schema", "parameters", "parametersJsonSchema"} {
		if s := take(obj, k); s != nil && t.Input == nil {
			t.Input = s
		}
	}
	for _, k := range []string{"outputSchema", "output_schema", "response", "responseJsonSchema"} {
		if s := take(obj, k); s != nil && t.Output == nil {
			t.Output = s
		}
	}
	if a := take(obj, "annotations"); a != nil && a.Kind == yaml.MappingNode {
		t.Annotations = &Annotations{}
		hints := map[string]**bool{"readOnlyHint": &t.Annotations.ReadOnly, "destructiveHint": &t.Annotations.Destructive,
			"idempotentHint": &t.Annotations.Idempotent, "openWorldHint": &t.Annotations.OpenWorld}
		ause := map[string]bool{}
		for k, dst := range hints {
			if v := get(a, k); v != nil && v.Kind == yaml.ScalarNode && (v.Value == "true" || v.Value == "false") {
				b := v.Value == "true"
				*dst = &b
				ause[k] = true
			}
		}
		keepExtra(&t, a, ause, "annotations.")
	}
	if ex := take(obj, "input_examples"); ex != nil && ex.Kind == yaml.SequenceNode {
		for _, e := range ex.Content {
			if e.Kind == yaml.MappingNode {
				t.Examples = append(t.Examples, e)
			} else {
				t.Extra["input_examples"] = compact(ex)
			}
		}
	}
	keepExtra(&t, obj, used, "")
	p.tools = append(p.tools, t)
	return nil
}

// schema reads a plain JSON Schema as the arguments of one tool, named by
// its title or else by the file.
func (p *parser) schema(n *yaml.Node, src string) error {
	if get(n, "properties") == nil && get(n, "type") == nil && get(n, "$schema") == nil {
		return fmt.Errorf("not a tool definition nor a JSON Schema (no name, inputSchema, parameters, properties or type)")
	}
	t := Tool{Format: FormatSchema, Source: src, Extra: map[string]string{}, Input: n}
	t.Name = str(get(n, "title"))
	if t.Name == "" {
		base := filepath.Base(p.file)
		for ext := filepath.Ext(base); ext != ""; ext = filepath.Ext(base) {
			base = strings.TrimSuffix(base, ext)
		}
		t.Name = base
	}
	// The schema's own title and description become the tool's.
	del(n, "title")
	if d := get(n, "description"); d != nil && d.Kind == yaml.ScalarNode {
		t.Description = d.Value
		del(n, "description")
	}
	p.tools = append(p.tools, t)
	return nil
}

// keepExtra records the fields of obj not in used.
func keepExtra(t *Tool, obj *yaml.Node, used map[string]bool, prefix string) {
	for i := 0; i+1 < len(obj.Content); i += 2 {
		k := obj.Content[i].Value
		if !used[k] {
			t.Extra[prefix+k] = compact(obj.Content[i+1])
		}
	}
}

// decodeJSON decodes JSON into a yaml.Node tree that keeps the order of
// object keys and the text of numbers.
func decodeJSON(data []byte) (*yaml.Node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := decodeValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("invalid JSON: more than one value")
	}
	return n, nil
}

const maxDepth = 200

func decodeValue(dec *json.Decoder, depth int) (*yaml.Node, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("invalid JSON: nested more than %d deep", maxDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '{':
			n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, fmt.Errorf("invalid JSON: %w", err)
				}
				k, _ := kt.(string)
				val, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				if seen[k] {
					return nil, fmt.Errorf("invalid JSON: key %q twice in one object", k)
				}
				seen[k] = true
				n.Content = append(n.Content, strNode(k), val)
			}
			_, err := dec.Token()
			return n, err
		case '[':
			n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
			for dec.More() {
				val, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, val)
			}
			_, err := dec.Token()
			return n, err
		}
	case string:
		return strNode(v), nil
	case json.Number:
		// An integer beyond 64 bits is a float to YAML (and to every
		// JSON decoder that reads numbers as float64).
		tag := "!!int"
		if _, err := strconv.ParseInt(string(v), 10, 64); err != nil || strings.ContainsAny(string(v), ".eE") {
			if _, err := strconv.ParseUint(string(v), 10, 64); err != nil {
				tag = "!!float"
			}
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: string(v)}, nil
	case bool:
		return boolNode(v), nil
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	}
	return nil, fmt.Errorf("invalid JSON: unexpected %v", tok)
}

func strNode(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

func boolNode(b bool) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(b)}
}

// get returns the value of key in the mapping n, or nil.
func get(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// set sets key in the mapping n, in place or at the end.
func set(n *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			n.Content[i+1] = v
			return
		}
	}
	n.Content = append(n.Content, strNode(key), v)
}

// rename renames key in the mapping n, keeping its place.
func rename(n *yaml.Node, from, to string) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == from {
			n.Content[i] = strNode(to)
		}
	}
}

// del removes key from the mapping n.
func del(n *yaml.Node, key string) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			n.Content = append(n.Content[:i], n.Content[i+2:]...)
			return
		}
	}
}

// str is the string value of a scalar node, or "".
func str(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		return ""
	}
	return n.Value
}

// compact renders n as one line of JSON.
func compact(n *yaml.Node) string {
	var b strings.Builder
	writeJSON(&b, n)
	return b.String()
}

func writeJSON(b *strings.Builder, n *yaml.Node) {
	switch n.Kind {
	case yaml.MappingNode:
		b.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(n.Content[i].Value)
			b.Write(k)
			b.WriteByte(':')
			writeJSON(b, n.Content[i+1])
		}
		b.WriteByte('}')
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, c)
		}
		b.WriteByte(']')
	case yaml.ScalarNode:
		if n.Tag == "!!str" {
			s, _ := json.Marshal(n.Value)
			b.Write(s)
		} else {
			b.WriteString(n.Value)
		}
	default:
		b.WriteString("null")
	}
}
