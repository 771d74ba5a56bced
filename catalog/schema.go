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
)

var printer = message.NewPrinter(language.English)

// schemaURL is the base under which a catalog's schemas are compiled; no
// schema is ever fetched from it.
const schemaURL = "toolcat:///"

// checkSchemas compiles every args and result schema against the JSON
// Schema 2020-12 metaschema and reports each problem at its position
// inside the schema.
//
// Compiling is most of the cost of loading a large catalog, so the tools
// are shared among one worker per CPU, each with its own compiler (a
// compiler is not safe for concurrent use).
func (l *loader) checkSchemas(c *Catalog) {
	workers := min(runtime.GOMAXPROCS(0), len(c.Tools)/50+1)
	errs := make([]ErrorList, len(c.Tools))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			comp := jsonschema.NewCompiler()
			comp.DefaultDraft(jsonschema.Draft2020)
			comp.UseLoader(noLoader{})
			for i := w; i < len(c.Tools); i += workers {
				t := c.Tools[i]
				if t.Args != nil {
					checkSchema(&errs[i], comp, t.Name, "args", t.Args)
				}
				if t.Result != nil {
					checkSchema(&errs[i], comp, t.Name, "result", t.Result)
				}
			}
		}()
	}
	wg.Wait()
	for _, e := range errs {
		l.errs = append(l.errs, e...)
	}
}

func checkSchema(errs *ErrorList, comp *jsonschema.Compiler, tool, field string, n *Node) {
	loc := schemaURL + url.PathEscape(tool) + "/" + field + ".json"
	where := "tools." + tool + "." + field
	if n.Kind != Object && n.Kind != Bool {
		errs.add(n.Pos, "%s: a JSON Schema is an object; found %s", where, describe(n))
		return
	}
	if err := comp.AddResource(loc, n.Interface()); err != nil {
		errs.add(n.Pos, "%s: %v", where, err)
		return
	}
	_, err := comp.Compile(loc)
	if err == nil {
		return
	}
	var sve *jsonschema.SchemaValidationError
	var rxe *jsonschema.InvalidRegexError
	var lue *jsonschema.LoadURLError
	switch {
	case errors.As(err, &sve):
		var ve *jsonschema.ValidationError
		if errors.As(sve.Err, &ve) {
			seen := map[string]bool{}
			for _, leaf := range leaves(ve) {
				ptr := pointer(leaf.InstanceLocation)
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
		}
	case errors.As(err, &rxe):
		ptr := fragment(rxe.URL)
		at := n.Lookup(ptr)
		if at == nil {
			at = n
		}
		errs.add(at.Pos, "%s: invalid regular expression %q: %v", dotted(where, strings.Split(ptr, "/")[1:]), rxe.Regex, rxe.Err)
		return
	case errors.As(err, &lue):
		ref := strings.TrimPrefix(lue.URL, schemaURL)
		at := n.Pos
		n.Walk(func(_ string, x *Node) bool {
			if s, ok := x.Get("$ref").StringValue(); ok && strings.HasPrefix(s, ref) {
				at = x.KeyPos("$ref")
				return false
			}
			return true
		})
		errs.add(at, "%s: $ref %s cannot be resolved; toolcat resolves only references inside the schema (#/$defs/...)", where, ref)
		return
	}
	errs.add(n.Pos, "%s: %s", where, strings.ReplaceAll(err.Error(), schemaURL, ""))
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

func pointer(loc []string) string {
	var b strings.Builder
	for _, s := range loc {
		b.WriteByte('/')
		b.WriteString(escapePointer(s))
	}
	return b.String()
}

func fragment(u string) string {
	if i := strings.IndexByte(u, '#'); i >= 0 {
		f, err := url.PathUnescape(u[i+1:])
		if err != nil {
			return u[i+1:]
		}
		return f
	}
	return ""
}

// noLoader refuses every URL: catalogs are self-contained, and lint never
// reaches the network.
type noLoader struct{}

func (noLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("not loaded: %s", u)
}
