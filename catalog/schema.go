package catalog

import (
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/toolcat/toolcat/internal/jsonptr"
)

var printer = message.NewPrinter(language.English)

// metaschema is the JSON Schema 2020-12 metaschema, with formats (such as
// "regex" for patterns) asserted.
var metaschema = sync.OnceValue(func() *jsonschema.Schema {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	s, err := c.Compile("https://json-schema.org/draft/2020-12/schema")
	if err != nil {
		panic("catalog: the built-in 2020-12 metaschema does not compile: " + err.Error())
	}
	return s
})

// checkSchemas checks every args and result schema against the JSON
// Schema 2020-12 metaschema, and that its references resolve inside it,
// reporting each problem at its position inside the schema. That is what
// compiling a schema checks, at less than half the cost; the tools are
// shared among one worker per CPU.
func (l *loader) checkSchemas(c *Catalog) {
	workers := min(runtime.GOMAXPROCS(0), len(c.Tools)/50+1)
	errs := make([]ErrorList, len(c.Tools))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(c.Tools); i += workers {
				t := c.Tools[i]
				if t.Args != nil {
					checkSchema(&errs[i], t.Name, "args", t.Args)
				}
				if t.Result != nil {
					checkSchema(&errs[i], t.Name, "result", t.Result)
				}
			}
		}()
	}
	wg.Wait()
	for _, e := range errs {
		l.errs = append(l.errs, e...)
	}
}

func checkSchema(errs *ErrorList, tool, field string, n *Node) {
	where := "tools." + tool + "." + field
	if n.Kind != Object && n.Kind != Bool {
		errs.add(n.Pos, "%s: a JSON Schema is an object; found %s", where, describe(n))
		return
	}
	if quickSchemaOK(n) {
		checkRefs(errs, where, n)
		return
	}
	err := metaschema().Validate(n.Interface())
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		all := leaves(ve)
		seen := map[string]bool{}
		for _, leaf := range all {
			ptr := Pointer(leaf.InstanceLocation...)
			if seen[ptr] || hasDeeper(all, ptr) {
				// Alternatives of one keyword: the first says enough; and
				// an error inside a value says more than one about it.
				continue
			}
			seen[ptr] = true
			at := n.Lookup(ptr)
			if at == nil {
				at = n
			}
			msg := leaf.ErrorKind.LocalizedString(printer)
			if found := shortJSON(at); len(leaf.InstanceLocation) > 0 && !strings.Contains(msg, found) &&
				(at.Kind != String || !strings.Contains(msg, "'"+at.Str+"'")) {
				msg = "found " + found + ": " + msg // what was written, quoted
			}
			if fix := schemaFix(n, leaf.InstanceLocation, at); fix != "" {
				msg += "; " + fix
			}
			errs.add(at.Pos, "%s: not a valid JSON Schema: %s", dotted(where, leaf.InstanceLocation), msg)
		}
		return
	} else if err != nil {
		errs.add(n.Pos, "%s: %v", where, err)
		return
	}
	checkRefs(errs, where, n)
}

// checkRefs reports the $refs that do not resolve inside the schema:
// toolcat never fetches a schema.
func checkRefs(errs *ErrorList, where string, root *Node) {
	anchors, ids := map[string]bool{}, map[string]bool{}
	root.Walk(func(_ string, x *Node) bool {
		if a, ok := x.Get("$anchor").StringValue(); ok {
			anchors[a] = true
		}
		if id, ok := x.Get("$id").StringValue(); ok {
			ids[strings.TrimSuffix(id, "#")] = true
		}
		return true
	})
	root.Walk(func(ptr string, x *Node) bool {
		ref, ok := x.Get("$ref").StringValue()
		if !ok {
			return true
		}
		at := x.Get("$ref").Pos
		base, frag, hasFrag := strings.Cut(ref, "#")
		switch {
		case base != "" && !ids[base]:
			errs.add(at, "%s: $ref %s cannot be resolved; toolcat resolves only references inside the schema (#/$defs/...)", dottedPointer(where, ptr), ref)
		case base != "":
			// A reference to an embedded resource by its $id: trusted.
		case !hasFrag || frag == "":
		case strings.HasPrefix(frag, "/"):
			p, err := url.PathUnescape(frag)
			if err != nil || root.Lookup(p) == nil {
				msg := fmt.Sprintf("%s: $ref %s points at nothing in the schema", dottedPointer(where, ptr), ref)
				if rest, ok := strings.CutPrefix(p, "/$defs/"); ok && root.Lookup("/definitions/"+rest) != nil {
					msg += "; it is under definitions, the draft-07 name: rename definitions to $defs"
				}
				errs.add(at, "%s", msg)
			}
		case !anchors[frag]:
			errs.add(at, "%s: $ref %s names no $anchor of the schema", dottedPointer(where, ptr), ref)
		}
		return true
	})
}

// leaves returns the innermost causes of a validation error, which name
// the precise problems.
func leaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var out []*jsonschema.ValidationError
	for _, c := range e.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

// dotted appends a location inside a schema to a catalog path:
// tools.x.args.properties.query.
func dotted(where string, loc []string) string {
	return pathString(append([]string{where}, loc...))
}

// dottedPointer is [dotted] for a location given as a JSON pointer.
func dottedPointer(where, ptr string) string {
	loc, _ := jsonptr.Split(ptr) // Walk's pointers are all valid
	return dotted(where, loc)
}

// Pointer writes the JSON pointer (RFC 6901) of a location given as
// tokens: ["properties", "a/b"] → "/properties/a~1b".
func Pointer(tokens ...string) string { return jsonptr.Join(tokens...) }

// hasDeeper reports whether an error of all lies inside the value at ptr.
func hasDeeper(all []*jsonschema.ValidationError, ptr string) bool {
	for _, e := range all {
		if p := Pointer(e.InstanceLocation...); len(p) > len(ptr) && strings.HasPrefix(p, ptr+"/") {
			return true
		}
	}
	return false
}

// shortJSON is a value as found in a schema, cut to a readable length.
func shortJSON(n *Node) string {
	s := string(n.JSON())
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// typeFixes are the type names of other languages and schema dialects, and
// what JSON Schema writes instead.
var typeFixes = map[string]string{
	"any":     "omit type to accept any value",
	"dict":    `JSON Schema calls it "object"`,
	"map":     `JSON Schema calls it "object"`,
	"float":   `JSON Schema calls it "number"`,
	"double":  `JSON Schema calls it "number"`,
	"decimal": `JSON Schema calls it "number"`,
	"int":     `JSON Schema calls it "integer"`,
	"long":    `JSON Schema calls it "integer"`,
	"str":     `JSON Schema calls it "string"`,
	"text":    `JSON Schema calls it "string"`,
	"bool":    `JSON Schema calls it "boolean"`,
	"list":    `JSON Schema calls it "array"`,
	"tuple":   `JSON Schema calls it "array"; list the element schemas in prefixItems`,
	"none":    `JSON Schema calls it "null"`,
	"nil":     `JSON Schema calls it "null"`,
}

var schemaTypes = []string{"array", "boolean", "integer", "null", "number", "object", "string"}

// schemaFix says how to mend a value the metaschema refuses, where the
// mistake is a known one: a type name of another language, the draft-07
// tuple form of items, the draft-04 boolean exclusiveMinimum. loc is the
// value's location in the schema root.
func schemaFix(root *Node, loc []string, at *Node) string {
	if len(loc) == 0 {
		return ""
	}
	key := loc[len(loc)-1]
	parentLoc := loc[:len(loc)-1]
	if len(loc) >= 2 && loc[len(loc)-2] == "type" {
		key, parentLoc = "type", loc[:len(loc)-2] // one name of a type list
	}
	if len(parentLoc) > 0 {
		switch parentLoc[len(parentLoc)-1] {
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas":
			return "" // a property or definition named like a keyword
		}
	}
	parent := root.Lookup(Pointer(parentLoc...))
	if parent == nil || parent.Kind != Object || parent.Get(key) == nil {
		return ""
	}
	switch key {
	case "type":
		name, ok := at.StringValue()
		if !ok {
			return ""
		}
		if fix, ok := typeFixes[strings.ToLower(name)]; ok {
			return fix
		}
		if s := Closest(name, schemaTypes); s != "" {
			return fmt.Sprintf("did you mean %q?", s)
		}
	case "items":
		if at.Kind == Array {
			return "a list of schemas is the draft-07 tuple form: in 2020-12 write it as prefixItems, and items: false to allow no more elements"
		}
	case "exclusiveMinimum", "exclusiveMaximum":
		if at.Kind != Bool {
			return ""
		}
		bound := map[string]string{"exclusiveMinimum": "minimum", "exclusiveMaximum": "maximum"}[key]
		if !at.Bool {
			return fmt.Sprintf("%s: false is the draft-04 default: remove it", key)
		}
		if b := parent.Get(bound); b != nil && b.Kind == Number {
			return fmt.Sprintf("in 2020-12 %s is the bound itself: write %s: %s in place of %s: %s and %s: true", key, key, b.Num, bound, b.Num, key)
		}
		return fmt.Sprintf("in 2020-12 %s is the bound itself, a number", key)
	case "definitions":
		return "write the definitions under $defs, the 2020-12 name"
	}
	return ""
}
