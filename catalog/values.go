package catalog

import (
	"cmp"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// The values a schema gives (default, const, enum members, examples)
// checked against the (sub)schema that gives them: lint reports the
// invalid ones, and gen refuses to compile an args schema whose default,
// const or enum value its own schema rejects, since a generated validator
// would then refuse calls the schema accepts.

// ValueKeywords are the keywords whose values [ValueChecker.SchemaValues]
// checks by default.
var ValueKeywords = []string{"default", "const", "enum", "examples"}

// ValueProblem is a value of a schema that its own (sub)schema rejects.
type ValueProblem struct {
	// Keyword gives the value: default, const, enum or examples.
	Keyword string
	// Value is the value; for enum and examples, the member.
	Value *Node
	// Schema is the JSON pointer of the (sub)schema that gives the value,
	// inside its root schema; "" for the root.
	Schema string
	// Pos is where the problem is: the failing part of Value.
	Pos Pos
	// Msg says what is wrong, as the general validator words it.
	Msg string
}

// ValueChecker validates values against a tool's schemas, compiled as the
// runtime compiles them: JSON Schema 2020-12 unless the schema names
// another draft in $schema, and references only inside the schema. One
// checker compiles the metaschema once, which costs more than most tool
// schemas; it is not safe for concurrent use.
type ValueChecker struct {
	c *jsonschema.Compiler
	// compiled holds the schemas compiled so far by root name and JSON
	// text: tools of one catalog often share a schema, and a schema
	// validates, and words its messages, the same for every tool.
	compiled map[string]*CompiledSchema
}

// NewValueChecker returns a checker.
func NewValueChecker() *ValueChecker {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	return &ValueChecker{c: c, compiled: map[string]*CompiledSchema{}}
}

// noLoader refuses to fetch schemas: only references inside a schema
// resolve, as in the loader and the runtime.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s is outside the schema", url)
}

// CompiledSchema is one of a tool's schemas, compiled by a ValueChecker.
type CompiledSchema struct {
	c   *jsonschema.Compiler
	url string
	sch *jsonschema.Schema
}

// Compile compiles the schema rootName ("args" or "result") of the tool
// named tool. A schema compiles once per checker: another tool's schema of
// the same root name and the same JSON text is the one compiled before.
func (vc *ValueChecker) Compile(tool, rootName string, root *Node) (*CompiledSchema, error) {
	key := rootName + "\x00" + string(root.JSON())
	if cs, ok := vc.compiled[key]; ok {
		return cs, nil
	}
	u := "toolcat:///" + url.PathEscape(tool) + "/" + rootName + ".json"
	if err := vc.c.AddResource(u, root.Interface()); err != nil {
		return nil, err
	}
	sch, err := vc.c.Compile(u)
	if err != nil {
		return nil, err
	}
	cs := &CompiledSchema{c: vc.c, url: u, sch: sch}
	vc.compiled[key] = cs
	return cs, nil
}

// sub compiles the subschema at a JSON pointer of the same document.
func (cs *CompiledSchema) sub(ptr string) (*jsonschema.Schema, error) {
	if ptr == "" {
		return cs.sch, nil
	}
	return cs.c.Compile(cs.url + "#" + (&url.URL{Fragment: ptr}).EscapedFragment())
}

// ValueError is one reason a value fails a schema.
type ValueError struct {
	// Ptr is the JSON pointer of the failing part inside the value.
	Ptr string
	// Pos is the position of that part, or of the value.
	Pos Pos
	Msg string
}

// Validate validates v against the whole schema and returns the reasons
// it fails, none when it is valid.
func (cs *CompiledSchema) Validate(v *Node) []ValueError {
	return validationErrors(cs.sch, v)
}

func validationErrors(sch *jsonschema.Schema, v *Node) []ValueError {
	err := sch.Validate(v.Interface())
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []ValueError{{Pos: v.Pos, Msg: cleanSchemaError(err.Error())}}
	}
	var out []ValueError
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		// Descend through the wrappers ($ref, allOf, the schema itself),
		// not into anyOf and oneOf, whose branches would only confuse.
		switch e.ErrorKind.(type) {
		case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
			if len(e.Causes) > 0 {
				for _, c := range e.Causes {
					walk(c)
				}
				return
			}
		}
		ptr := Pointer(e.InstanceLocation...)
		out = append(out, ValueError{Ptr: ptr, Pos: posIn(v, ptr), Msg: cleanSchemaError(e.ErrorKind.LocalizedString(printer))})
	}
	walk(ve)
	// The library gathers the errors of an object's keywords in no fixed
	// order: report them in the value's order, so that lint's output is
	// the same on every run.
	slices.SortStableFunc(out, func(a, b ValueError) int {
		if c := cmp.Compare(a.Pos.File, b.Pos.File); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Pos.Line, b.Pos.Line); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Pos.Col, b.Pos.Col); c != 0 {
			return c
		}
		return cmp.Or(strings.Compare(a.Ptr, b.Ptr), strings.Compare(a.Msg, b.Msg))
	})
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

// posIn returns the position of the part of n at ptr, or of n.
func posIn(n *Node, ptr string) Pos {
	if x := n.Lookup(ptr); x != nil && x.Pos.IsValid() {
		return x.Pos
	}
	return n.Pos
}

// DescribeValue renders a value for a message, shortened.
func DescribeValue(n *Node) string {
	s := string(n.JSON())
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}

// SchemaValues checks the values that the keywords (ValueKeywords when
// none are given) give in the tool's schema rootName and every subschema
// below it, each against the subschema giving it. Scalars against a plain
// schema are checked without compiling; cs, when not nil, is the schema
// already compiled, and the schema is compiled on the first value that
// needs it otherwise. It returns the compiled schema (nil when no value
// needed it), and an error when the schema does not compile, with the
// problems found until then.
func (vc *ValueChecker) SchemaValues(tool, rootName string, root *Node, cs *CompiledSchema, keywords ...string) ([]ValueProblem, *CompiledSchema, error) {
	if len(keywords) == 0 {
		keywords = ValueKeywords
	}
	var problems []ValueProblem
	var failed error
	WalkSchema(root, func(ptr string, s *Node) bool {
		for _, kw := range keywords {
			v := s.Get(kw)
			if v == nil || failed != nil {
				continue
			}
			values := []*Node{v}
			if kw == "enum" || kw == "examples" {
				if v.Kind != Array {
					continue
				}
				values = v.Items
			}
			simple := true
			for _, x := range values {
				problem, handled := checkSimple(s, x)
				if !handled {
					simple = false
					break
				}
				if problem != "" {
					problems = append(problems, ValueProblem{Keyword: kw, Value: x, Schema: ptr, Pos: x.Pos, Msg: problem})
				}
			}
			if simple {
				continue
			}
			if cs == nil {
				var err error
				if cs, err = vc.Compile(tool, rootName, root); err != nil {
					failed = err
					continue
				}
			}
			sch, err := cs.sub(ptr)
			if err != nil {
				continue
			}
			for _, x := range values {
				if errs := validationErrors(sch, x); len(errs) > 0 {
					problems = append(problems, ValueProblem{Keyword: kw, Value: x, Schema: ptr, Pos: errs[0].Pos, Msg: errs[0].Msg})
				}
			}
		}
		return true
	})
	return problems, cs, failed
}

// Keywords of JSON Schema holding subschemas, by shape.
var (
	// SchemaKeywords hold one subschema.
	SchemaKeywords = []string{
		"additionalProperties", "unevaluatedProperties", "propertyNames",
		"items", "additionalItems", "unevaluatedItems", "contains",
		"not", "if", "then", "else",
	}
	// SchemaMapKeywords hold a map of subschemas.
	SchemaMapKeywords = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
	// SchemaListKeywords hold a list of subschemas.
	SchemaListKeywords = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
)

// WalkSchema calls fn for the schema root and every subschema below it,
// depth first in source order, with the JSON pointer of each inside root.
// Boolean schemas are skipped; fn returns false to skip a schema's
// children.
func WalkSchema(root *Node, fn func(ptr string, s *Node) bool) {
	if root == nil || root.Kind != Object {
		return
	}
	walkSchema("", root, fn)
}

func walkSchema(ptr string, s *Node, fn func(string, *Node) bool) {
	if !fn(ptr, s) {
		return
	}
	for _, f := range s.Fields {
		at := ptr + Pointer(f.Key)
		v := f.Value
		switch {
		case isKeyword(f.Key, SchemaMapKeywords):
			if v.Kind == Object {
				for _, m := range v.Fields {
					if m.Value.Kind == Object {
						walkSchema(at+Pointer(m.Key), m.Value, fn)
					}
				}
			}
		case isKeyword(f.Key, SchemaListKeywords) || f.Key == "items" && v.Kind == Array:
			if v.Kind == Array {
				for i, it := range v.Items {
					if it.Kind == Object {
						walkSchema(at+"/"+strconv.Itoa(i), it, fn)
					}
				}
			}
		case isKeyword(f.Key, SchemaKeywords):
			if v.Kind == Object {
				walkSchema(at, v, fn)
			}
		}
	}
}

func isKeyword(s string, list []string) bool {
	for _, x := range list {
		if s == x {
			return true
		}
	}
	return false
}
