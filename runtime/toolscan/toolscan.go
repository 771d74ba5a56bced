// Package toolscan finds text in tool definitions that is aimed at the
// model rather than at the person choosing the tool: the "tool poisoning"
// of MCP servers. A poisoned description (or argument description, enum
// value, default) tells the model to read files or secrets, to keep what it
// does from the user, to call or shun other tools, to ignore its
// instructions; or it hides such text in invisible Unicode or an encoded
// blob, or names the tool like another one to shadow it.
//
// The same check serves toolcat lint (the security rules, over a catalog),
// toolcat import (over the imported server's text) and runtime/mcpclient
// (over a mounted server's tools, which it keeps disabled until an operator
// enables them). It uses what the caller knows of the tool's surroundings
// ([Context]): a description may send the model to its declared
// dependencies, its fallback tool and the other tools of its own catalog or
// server, but not to a tool it does not know.
//
// Findings name the span of text they are about (byte offsets into the
// field), so that a report can point at it. The check is a set of patterns
// over a folded copy of the text (lower case, compatibility forms and
// look-alike letters mapped to ASCII, invisible characters dropped), so
// that "IGNORE", "ｉｇｎｏｒｅ", "іgnore" with a Cyrillic і, and "ig\u200bnore"
// read alike. It has no model and makes no network call.
package toolscan

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Class is the kind of a finding.
type Class string

// The classes of findings.
const (
	// HiddenText: invisible, bidirectional-override or tag characters, or
	// a word that mixes scripts, which a person reading the text does not
	// see and the model does.
	HiddenText Class = "hidden_text"
	// Directive: text that addresses the model over the user's head:
	// tags such as <IMPORTANT>, orders to ignore earlier instructions, to
	// act regardless of the user, to keep something from the user.
	Directive Class = "directive"
	// SecretAccess: an instruction to read files or secrets a tool has
	// no business with (~/.ssh, .env, credentials, the conversation).
	SecretAccess Class = "secret_access"
	// Exfiltration: text that sends data out: collector URLs, URLs whose
	// parameters are to be filled with data, orders to send or copy to
	// an address, to pass content along in an argument.
	Exfiltration Class = "exfiltration"
	// ToolSteering: an order to call or avoid a tool the definition does
	// not declare (a dependency, the fallback, a tool of the same catalog
	// or server), or to change how other tools behave.
	ToolSteering Class = "tool_steering"
	// EncodedBlob: a long base64, hex or escape-encoded run, above all one
	// that decodes to text.
	EncodedBlob Class = "encoded_blob"
	// NameShadow: a tool name that looks like another tool's name
	// (homoglyphs, digits for letters) or holds letters outside ASCII.
	NameShadow Class = "name_shadow"
)

// Classes lists every class, in the order reports use.
var Classes = []Class{HiddenText, Directive, SecretAccess, Exfiltration, ToolSteering, EncodedBlob, NameShadow}

// Finding is one piece of text aimed at the model.
type Finding struct {
	Class Class `json:"class"`
	// Field is where the text is: "description", "name", or a path into
	// a schema such as "inputSchema/properties/path/description".
	Field string `json:"field"`
	// Start and End are the byte offsets of the span in the field's text.
	Start int `json:"start"`
	End   int `json:"end"`
	// Excerpt is the span as a quoted Go string, invisible characters
	// escaped, at most about 80 characters.
	Excerpt string `json:"excerpt"`
	// Message says what the span does, in a phrase.
	Message string `json:"message"`
}

func (f Finding) String() string {
	return fmt.Sprintf("%s[%d:%d]: %s: %s %s", f.Field, f.Start, f.End, f.Class, f.Message, f.Excerpt)
}

// Context is what the caller knows of a tool's surroundings.
type Context struct {
	// Self is the tool's own name (and OriginalName, its wire name, if
	// it differs).
	Self         string
	OriginalName string
	// Siblings are the other tools of the same catalog or server: a
	// description may route the model to them ("use list_orders
	// instead").
	Siblings []string
	// Allowed are the tools the definition declares it uses: its
	// dependencies and fallback tool.
	Allowed []string
	// Arguments are the names of the tool's arguments, which its texts
	// may mention as they mention tools ("do not use `force` unless");
	// ScanTool adds those of the input schema.
	Arguments []string
	// Others are the tools of other servers and catalogs the host offers
	// beside this one: an order to use this tool in their place ("instead
	// of send_email") is shadowing.
	Others []string

	// index holds what Prepare computes: shared by the copies made after.
	index *contextIndex
}

type contextIndex struct {
	skeletons map[string][]string // skeleton → siblings that have it
	known     map[string]bool     // looseName of the siblings
}

// Prepare computes once what the checks of many tools of one catalog or
// server share (the siblings' skeletons and loose names), so that checking
// n tools costs no n² work. Copies of c made after it share the result;
// change Siblings in none of them.
func (c *Context) Prepare() {
	ix := &contextIndex{skeletons: map[string][]string{}, known: map[string]bool{}}
	for _, s := range c.Siblings {
		sk := Skeleton(s)
		ix.skeletons[sk] = append(ix.skeletons[sk], s)
		ix.known[looseName(s)] = true
	}
	c.index = ix
}

// other reports whether name is one of c.Others.
func (c *Context) other(name string) bool {
	return c != nil && slices.ContainsFunc(c.Others, func(o string) bool { return sameName(o, name) })
}

// known reports whether name is a tool the text may send the model to.
func (c *Context) known(name string) bool {
	if c == nil {
		return false
	}
	eq := func(s string) bool { return s != "" && sameName(s, name) }
	if eq(c.Self) || eq(c.OriginalName) || slices.ContainsFunc(c.Allowed, eq) {
		return true
	}
	if c.index != nil {
		return c.index.known[looseName(name)]
	}
	return slices.ContainsFunc(c.Siblings, eq)
}

// sameName compares tool names loosely: case, and - . _ as one separator,
// so that a description's getUser or get-user names tool get_user.
func sameName(a, b string) bool {
	return looseName(a) == looseName(b)
}

func looseName(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		case c == '-' || c == '.' || c == '_' || c == ' ':
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Tool is a tool definition as an MCP server lists it.
type Tool struct {
	Name        string
	Title       string
	Description string
	// InputSchema and OutputSchema are JSON Schemas; nil: none.
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
}

// MaxText is the most bytes of one field's text that is scanned; the rest
// is left out (a finding says so). It bounds the work on hostile input.
const MaxText = 256 << 10

// ScanTool checks every text of t: its name (against the siblings'), title,
// description, and the descriptions, titles, enum values, defaults,
// constants and examples of its schemas.
func ScanTool(t Tool, c *Context) []Finding {
	cc := Context{}
	if c != nil {
		cc = *c
	}
	for _, x := range SchemaTexts("", t.InputSchema) {
		if strings.HasSuffix(x.Field, "#name") {
			cc.Arguments = append(cc.Arguments, x.Text)
		}
	}
	c = &cc
	var out []Finding
	if t.Name != "" {
		out = append(out, ScanName("name", t.Name, c)...)
	}
	out = append(out, ScanText("title", t.Title, c)...)
	out = append(out, ScanText("description", t.Description, c)...)
	out = append(out, ScanSchema("inputSchema", t.InputSchema, c)...)
	out = append(out, ScanSchema("outputSchema", t.OutputSchema, c)...)
	return out
}

// ScanSchema checks the texts of a JSON Schema (see [SchemaTexts]). A
// schema that is not JSON yields no finding: validating it is not this
// package's job.
func ScanSchema(field string, schema json.RawMessage, c *Context) []Finding {
	var out []Finding
	for _, t := range SchemaTexts(field, schema) {
		out = append(out, ScanText(t.Field, t.Text, c)...)
	}
	return out
}

// Text is one string of a schema, and where it is.
type Text struct {
	Field string
	Text  string
}

// schemaTextKeys are the keywords whose strings a model reads.
var schemaTextKeys = map[string]bool{
	"description": true, "title": true, "enum": true, "default": true,
	"const": true, "examples": true, "example": true, "$comment": true,
	"x-description": true, "markdownDescription": true,
}

// SchemaTexts lists the strings of a JSON Schema the model reads: the
// descriptions, titles, enum values, defaults, constants and examples at
// any depth, each with its path under field ("inputSchema/properties/mode/
// enum/2"). Property names are listed too: a model reads them as well.
func SchemaTexts(field string, schema json.RawMessage) []Text {
	if len(schema) == 0 {
		return nil
	}
	var v any
	if err := json.Unmarshal(schema, &v); err != nil {
		return nil
	}
	var out []Text
	var walk func(path string, v any, texts bool, depth int)
	walk = func(path string, v any, texts bool, depth int) {
		if depth > 64 {
			return
		}
		switch x := v.(type) {
		case string:
			if texts {
				out = append(out, Text{path, x})
			}
		case []any:
			for i, e := range x {
				walk(path+"/"+strconv.Itoa(i), e, texts, depth+1)
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				p := path + "/" + escapePath(k)
				if k == "properties" {
					if props, ok := x[k].(map[string]any); ok {
						names := make([]string, 0, len(props))
						for n := range props {
							names = append(names, n)
						}
						slices.Sort(names)
						for _, n := range names {
							out = append(out, Text{p + "/" + escapePath(n) + "#name", n})
						}
					}
				}
				walk(p, x[k], texts || schemaTextKeys[k], depth+1)
			}
		}
	}
	walk(field, v, false, 0)
	return out
}

func escapePath(k string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
}

// ScanText checks one field's text.
func ScanText(field, text string, c *Context) []Finding {
	if text == "" {
		return nil
	}
	clipped := false
	if len(text) > MaxText {
		text = text[:MaxText]
		for !utf8.ValidString(text) && len(text) > 0 {
			text = text[:len(text)-1]
		}
		clipped = true
	}
	s := &scan{field: field, orig: text, ctx: c}
	s.run(0)
	if clipped {
		s.add(EncodedBlob, MaxText, MaxText, fmt.Sprintf("text longer than %d bytes; the rest was not checked", MaxText))
	}
	return s.sorted()
}

// ScanName checks a tool's name: letters outside ASCII, and a skeleton
// (see [Skeleton]) equal to another tool's.
func ScanName(field, name string, c *Context) []Finding {
	s := &scan{field: field, orig: name, ctx: c}
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			_, n := utf8.DecodeRuneInString(name[i:])
			s.add(NameShadow, i, i+n, "tool name holds a character outside ASCII, as a look-alike of another name would")
			break
		}
	}
	if c != nil {
		sk := Skeleton(name)
		same := func(o string) bool { return o != name && o != c.OriginalName && o != c.Self && Skeleton(o) == sk }
		others := c.Siblings
		if c.index != nil {
			others = c.index.skeletons[sk]
		}
		if i := slices.IndexFunc(others, same); i >= 0 {
			s.add(NameShadow, 0, len(name), fmt.Sprintf("tool name looks like tool %q's (same skeleton %q); a model cannot tell them apart", others[i], sk))
		}
	}
	return s.sorted()
}

// Summary is a one-line account of fs for logs and reasons: the classes
// found and the first span.
func Summary(fs []Finding) string {
	if len(fs) == 0 {
		return ""
	}
	var classes []string
	for _, f := range fs {
		if !slices.Contains(classes, string(f.Class)) {
			classes = append(classes, string(f.Class))
		}
	}
	more := ""
	if len(fs) > 1 {
		more = fmt.Sprintf(" (and %d more)", len(fs)-1)
	}
	return fmt.Sprintf("%s: %s at %s[%d:%d] %s%s", strings.Join(classes, ", "), fs[0].Message, fs[0].Field, fs[0].Start, fs[0].End, fs[0].Excerpt, more)
}
