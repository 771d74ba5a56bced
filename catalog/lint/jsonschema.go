package lint

import (
	"errors"
	"fmt"

	"net/url"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/toolcat/toolcat/catalog"
)

// printer renders jsonschema messages; the library's LocalizedString
// needs one.
var printer = message.NewPrinter(language.English)

// compiledSchema is one tool schema compiled as the runtime compiles it:
// JSON Schema 2020-12 unless the schema names another draft in $schema.
type compiledSchema struct {
	c    *jsonschema.Compiler
	url  string
	root *catalog.Node
	sch  *jsonschema.Schema
}

// compileSchema compiles a tool's args or result schema.
//
// c is shared by the schemas of one lint run: a compiler compiles the
// JSON Schema metaschema once, which costs more than most tool schemas.
func compileSchema(c *jsonschema.Compiler, t *catalog.Tool, rootName string, root *catalog.Node) (*compiledSchema, error) {
	u := "toolcat:///" + url.PathEscape(t.Name) + "/" + rootName + ".json"
	if err := c.AddResource(u, root.Interface()); err != nil {
		return nil, err
	}
	sch, err := c.Compile(u)
	if err != nil {
		return nil, err
	}
	return &compiledSchema{c: c, url: u, root: root, sch: sch}, nil
}

// newCompiler returns a compiler for compileSchema.
func newCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	return c
}

// noLoader refuses to fetch schemas: only references inside a schema
// resolve, as in the loader and the runtime.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s is outside the schema", url)
}

// sub compiles the subschema at a JSON pointer of the same document.
func (cs *compiledSchema) sub(ptr string) (*jsonschema.Schema, error) {
	if ptr == "" {
		return cs.sch, nil
	}
	return cs.c.Compile(cs.url + "#" + (&url.URL{Fragment: ptr}).EscapedFragment())
}

// schemaProblem is one reason a value fails a schema.
type schemaProblem struct {
	// Ptr is the JSON pointer of the failing part inside the value.
	Ptr string
	Msg string
}

// validationProblems flattens a validation error into its leaf reasons,
// descending through the wrappers ($ref, allOf, the schema itself) but
// stopping at anyOf and oneOf, whose branches would only confuse.
func validationProblems(err error) []schemaProblem {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []schemaProblem{{Msg: cleanSchemaError(err.Error())}}
	}
	var out []schemaProblem
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		switch e.ErrorKind.(type) {
		case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
			if len(e.Causes) > 0 {
				for _, c := range e.Causes {
					walk(c)
				}
				return
			}
		}
		out = append(out, schemaProblem{Ptr: catalog.Pointer(e.InstanceLocation...), Msg: cleanSchemaError(e.ErrorKind.LocalizedString(printer))})
	}
	walk(ve)
	return out
}

// cleanSchemaError drops the internal schema URLs from library messages.
func cleanSchemaError(s string) string {
	for {
		i := strings.Index(s, "toolcat:///")
		if i < 0 {
			return s
		}
		j := i + len("toolcat:///")
		for j < len(s) && s[j] != '\'' && s[j] != '"' && s[j] != ' ' {
			j++
		}
		u := s[i+len("toolcat:///") : j]
		if k := strings.Index(u, "/"); k >= 0 {
			u = u[k+1:]
		}
		u = strings.Replace(u, ".json#", "", 1)
		u = strings.TrimSuffix(u, ".json")
		s = s[:i] + u + s[j:]
	}
}

// describeValue renders a value for a message, shortened.
func describeValue(n *catalog.Node) string {
	s := string(n.JSON())
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}

// posIn returns the position of the part of n at ptr, or of n.
func posIn(n *catalog.Node, ptr string) catalog.Pos {
	if x := n.Lookup(ptr); x != nil && x.Pos.IsValid() {
		return x.Pos
	}
	return n.Pos
}
