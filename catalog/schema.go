package catalog

import (
	"errors"
	"net/url"
	"runtime"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
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
		seen := map[string]bool{}
		for _, leaf := range leaves(ve) {
			ptr := Pointer(leaf.InstanceLocation...)
			if seen[ptr] {
				continue // alternatives of one keyword: the first says enough
			}
			seen[ptr] = true
			at := n.Lookup(ptr)
			if at == nil {
				at = n
			}
			errs.add(at.Pos, "%s: not a valid JSON Schema: %s", dotted(where, leaf.InstanceLocation), leaf.ErrorKind.LocalizedString(printer))
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
			errs.add(at, "%s: $ref %s cannot be resolved; toolcat resolves only references inside the schema (#/$defs/...)", dotted(where, splitPointer(ptr)), ref)
		case base != "":
			// A reference to an embedded resource by its $id: trusted.
		case !hasFrag || frag == "":
		case strings.HasPrefix(frag, "/"):
			p, err := url.PathUnescape(frag)
			if err != nil || root.Lookup(p) == nil {
				errs.add(at, "%s: $ref %s points at nothing in the schema", dotted(where, splitPointer(ptr)), ref)
			}
		case !anchors[frag]:
			errs.add(at, "%s: $ref %s names no $anchor of the schema", dotted(where, splitPointer(ptr)), ref)
		}
		return true
	})
}

func splitPointer(ptr string) []string {
	if ptr == "" {
		return nil
	}
	parts := strings.Split(ptr[1:], "/")
	for i, p := range parts {
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
	}
	return parts
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

// Pointer writes the JSON pointer (RFC 6901) of a location given as
// tokens: ["properties", "a/b"] → "/properties/a~1b".
func Pointer(tokens ...string) string {
	var b strings.Builder
	for _, s := range tokens {
		b.WriteByte('/')
		b.WriteString(escapePointer(s))
	}
	return b.String()
}
