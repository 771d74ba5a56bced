package gen_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/gen"
)

// The property that generated code always compiles, whatever the names of
// the tools, properties, enum values and $defs, and however the schemas
// nest. Catalogs are drawn from pieces chosen to collide: names spelt like
// what gen writes for another tool, like Go's predeclared identifiers and
// the imported packages, names that differ only in case or punctuation,
// and member names that json tags cannot express. Each generated package,
// scaffolds and test files included, is type-checked in process.

// A draw reads its choices from a fuzzer's bytes; when they run out, every
// choice is the first.
type draw struct {
	data []byte
}

func (d *draw) n(max int) int {
	if max <= 1 || len(d.data) == 0 {
		return 0
	}
	b := int(d.data[0])
	d.data = d.data[1:]
	return b % max
}

func (d *draw) bool() bool { return d.n(2) == 1 }

func pick[T any](d *draw, vs []T) T { return vs[d.n(len(vs))] }

// toolWords are the pieces of tool names: what gen names its helpers
// after, Go's names, and words with initialisms.
var toolWords = []string{
	"search", "web", "tool", "tools", "meta", "metas", "validator", "args", "result", "schema",
	"object", "scan", "new", "registry", "test", "conformance", "fmt", "strings", "regexp",
	"time", "jsonscan", "testing", "context", "json", "runtime", "math", "utf8", "int64",
	"string", "any", "init", "type", "func", "x", "a", "b", "not", "found", "item", "value",
	"allowed", "bounds", "pattern", "format", "list", "default", "kind", "2", "id", "ids",
	"url", "ID", "Get", "specs", "internal", "rate", "limited", "marshal", "unmarshal", "valid",
	"toolcat", "t", "impls", "opts",
}

var toolSeps = []string{"_", "-", ".", "", "__"}

// propWords are the pieces of property names, enum values and $defs.
var propWords = []string{
	"a", "b", "x", "id", "ID", "Id", "name", "Name", "NAME", "kind", "type", "item", "value",
	"object", "schema", "allowed", "args", "result", "marshal_json", "MarshalJSON",
	"UnmarshalJSON", "valid", "Valid", "as", "string", "-", "", ",", "a,b", "x,omitempty",
	`q"`, `\`, " ", "näme", "€", "2", "default", "pattern", "list", "url",
}

var propSeps = []string{"_", "-", "", " ", ","}

var errorCodes = []string{"not_found", "rate_limited", "internal", "timeout", "invalid_args", "unsupported"}

func (d *draw) word(words, seps []string, max int) string {
	parts := make([]string, 1+d.n(max))
	for i := range parts {
		parts[i] = pick(d, words)
	}
	return strings.Join(parts, pick(d, seps))
}

// schema draws a JSON Schema of depth at most depth; defs are the $defs
// names a $ref may point to.
func (d *draw) schema(depth int, defs []string) map[string]any {
	kinds := 9
	if depth <= 0 {
		kinds = 5
	}
	switch d.n(kinds) {
	case 0:
		s := map[string]any{"type": "string"}
		switch d.n(7) {
		case 1:
			s["enum"] = d.enum()
			if d.bool() {
				s["default"] = s["enum"].([]any)[0]
			}
		case 2:
			s["format"] = "date-time"
		case 3:
			s["pattern"] = "^[a-z]*$"
		case 4:
			s["const"] = d.word(propWords, propSeps, 2)
		case 5:
			s["minLength"] = 1
			s["default"] = "x"
		case 6:
			s["type"] = []any{"string", "null"}
		}
		return s
	case 1:
		s := map[string]any{"type": "integer"}
		switch d.n(5) {
		case 1:
			s["minimum"] = 0
			s["maximum"] = 10
		case 2:
			s["enum"] = []any{1, 2 + d.n(2), 2}
		case 3:
			s["const"] = 3
		case 4:
			s["multipleOf"] = 2
		}
		if d.bool() {
			s["format"] = "int32"
		}
		if d.bool() {
			// A default its own schema accepts: gen refuses the others.
			s["default"] = 2
			if c, ok := s["const"]; ok {
				s["default"] = c
			}
		}
		return s
	case 2:
		return map[string]any{"type": "number"}
	case 3:
		return map[string]any{"type": "boolean"}
	case 4:
		if len(defs) > 0 {
			return map[string]any{"$ref": "#/$defs/" + pick(d, defs)}
		}
		return map[string]any{}
	case 5:
		return d.object(depth-1, defs)
	case 6:
		s := map[string]any{"type": "array", "items": d.schema(depth-1, defs)}
		if d.bool() {
			s["uniqueItems"] = true
		}
		if d.bool() {
			s["minItems"] = 1
		}
		return s
	case 7:
		return map[string]any{"type": "object", "additionalProperties": d.schema(depth-1, defs)}
	default:
		if d.bool() {
			return map[string]any{"anyOf": []any{d.schema(depth-1, defs), map[string]any{"type": "null"}}}
		}
		alts := []any{d.schema(depth-1, defs), d.schema(depth-1, defs)}
		if d.bool() {
			// Variants named by title: the accessors As<Title>.
			for _, a := range alts {
				a.(map[string]any)["title"] = d.word(propWords, propSeps, 2)
			}
		}
		return map[string]any{pick(d, []string{"anyOf", "oneOf"}): alts}
	}
}

func (d *draw) enum() []any {
	vals := make([]any, 1+d.n(4))
	for i := range vals {
		vals[i] = d.word(propWords, propSeps, 2)
	}
	return vals
}

func (d *draw) object(depth int, defs []string) map[string]any {
	props := map[string]any{}
	var required []any
	for range d.n(6) {
		name := d.word(propWords, propSeps, 3)
		props[name] = d.schema(depth, defs)
		if d.bool() {
			required = append(required, name)
		}
	}
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	if d.bool() {
		s["additionalProperties"] = false
	}
	if len(props) > 0 && len(required) == 0 && s["additionalProperties"] == nil && d.n(4) == 0 {
		// A default object its schema accepts, with members named like
		// the properties in another case, which must not fill them.
		def := map[string]any{}
		for name := range props {
			if upper := strings.ToUpper(name); props[upper] == nil && d.bool() {
				def[upper] = 1
			}
		}
		s["default"] = def
	}
	return s
}

// catalogJSON draws a catalog.
func (d *draw) catalogJSON() []byte {
	tools := map[string]any{}
	for range 1 + d.n(6) {
		name := d.word(toolWords, toolSeps, 3)
		if name == "" || strings.ContainsAny(name, " \t\n") {
			continue
		}
		var defs []string
		defSchemas := map[string]any{}
		for range d.n(3) {
			n := d.word(propWords, propSeps, 2)
			defs = append(defs, n)
		}
		for _, n := range defs {
			// A $def may refer to the others, and to itself.
			defSchemas[n] = d.schema(1, defs)
		}
		args := d.object(2, defs)
		if len(defSchemas) > 0 {
			args["$defs"] = defSchemas
		}
		t := map[string]any{
			"description": "Does " + name + ". Use when asked. Does not do anything else.",
			"args":        args,
		}
		switch d.n(3) {
		case 1:
			t["result"] = d.schema(2, nil)
		case 2:
			t["result"] = d.object(2, nil)
		}
		if d.bool() {
			errs := map[string]any{}
			for range 1 + d.n(2) {
				errs[pick(d, errorCodes)] = map[string]any{"suggestion": "Try again."}
			}
			t["errors"] = errs
		}
		if d.bool() {
			t["additional_args"] = pick(d, []string{"reject", "strip", "allow"})
		}
		if d.bool() {
			t["has_side_effects"] = true
			t["idempotent"] = false
			t["supports_dry_run"] = d.bool()
			t["revertible"] = d.bool()
		}
		tools[name] = t
	}
	pkg := pick(d, []string{"tools", "fmt", "runtime", "json", "time", "conformance", "x"})
	b, err := json.Marshal(map[string]any{"package": pkg, "tools": tools})
	if err != nil {
		panic(err)
	}
	return b
}

// exportImporter imports the packages generated code uses from their
// export data, which the go command builds once.
var exportImporter = sync.OnceValues(func() (types.ImporterFrom, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return nil, err
	}
	pkgs := []string{
		"github.com/toolcat/toolcat/runtime", "github.com/toolcat/toolcat/runtime/jsonscan",
		"github.com/toolcat/toolcat/conformance", "context", "encoding/json", "fmt", "math",
		"regexp", "strings", "time", "unicode/utf8", "testing",
	}
	cmd := exec.Command(goBin, append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}}={{.Export}}"}, pkgs...)...)
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export: %v", err)
	}
	exports := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if path, file, ok := strings.Cut(line, "="); ok && file != "" {
			exports[path] = file
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	return imp.(types.ImporterFrom), nil
})

// checkCompiles generates the package of the catalog in data (with the
// options opts) and type-checks it. It reports whether the catalog loaded and generated:
// a catalog the loader rejects, or two tools sharing a file, is an error
// for the user, not a failure.
func checkCompiles(t *testing.T, data []byte, opts ...gen.Option) bool {
	t.Helper()
	cat, err := catalog.LoadFiles(catalog.File{Name: "catalog.json", Data: data})
	if err != nil {
		return false
	}
	files, err := gen.Generate(cat, opts...)
	if err != nil {
		if strings.Contains(err.Error(), "would share the file") {
			return false
		}
		t.Fatalf("generate: %v\ncatalog: %s", err, data)
	}
	scaffolds, err := gen.Scaffolds(cat)
	if err != nil {
		t.Fatalf("scaffolds: %v\ncatalog: %s", err, data)
	}
	for _, s := range scaffolds {
		if _, dup := files[s.File]; dup {
			t.Fatalf("scaffold %s has the name of a generated file\ncatalog: %s", s.File, data)
		}
		files[s.File] = s.Data
	}
	imp, err := exportImporter()
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var parsed []*ast.File
	for _, name := range slices.Sorted(maps.Keys(files)) {
		f, err := parser.ParseFile(fset, name, files[name], parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%v\ncatalog: %s", err, data)
		}
		parsed = append(parsed, f)
	}
	var errs []string
	conf := types.Config{Importer: imp, Error: func(err error) { errs = append(errs, err.Error()) }}
	conf.Check(cat.Package, fset, parsed, nil)
	if len(errs) > 0 {
		if len(errs) > 10 {
			errs = errs[:10]
		}
		t.Fatalf("the generated package does not compile:\n%s\ncatalog: %s", strings.Join(errs, "\n"), data)
	}
	return true
}

// seedCatalogs are the draws of the deterministic part, from fixed seeds.
func seedCatalogs(n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		r := rand.New(rand.NewPCG(uint64(i), 0x70_01ca7))
		b := make([]byte, 512)
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		out[i] = b
	}
	return out
}

var compileSeeds = flag.Int("compile.seeds", 60, "catalogs TestGeneratedCodeCompiles draws")

// TestGeneratedCodeCompiles type-checks the packages of catalogs drawn
// from fixed seeds: the deterministic part of FuzzGeneratedCodeCompiles.
func TestGeneratedCodeCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks generated packages; skipped with -short")
	}
	seeds := seedCatalogs(*compileSeeds)
	generated := 0
	for _, seed := range seeds {
		if checkCompiles(t, (&draw{data: seed}).catalogJSON()) {
			generated++
		}
	}
	// The draws must mostly be catalogs, or the test checks little.
	if generated < len(seeds)*3/4 {
		t.Fatalf("only %d of %d drawn catalogs loaded and generated", generated, len(seeds))
	}
}

// FuzzGeneratedCodeCompiles draws catalogs from the fuzzer's bytes and
// type-checks the package generated for each.
func FuzzGeneratedCodeCompiles(f *testing.F) {
	for _, seed := range seedCatalogs(8) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkCompiles(t, (&draw{data: data}).catalogJSON())
	})
}

// TestGeneratedCodeCompilesFound type-checks the packages of catalogs the
// fuzz target found failing, reduced.
func TestGeneratedCodeCompilesFound(t *testing.T) {
	tool := func(args string) string {
		return `{"package":"x","tools":{"t":{"description":"Does t. Use when asked. Does not do anything else.","args":` + args + `}}}`
	}
	for _, c := range []struct{ desc, catalog string }{
		{"a nullable value of any type is stored through its pointer",
			tool(`{"type":"object","$defs":{"a":{}},"properties":{"e":{"anyOf":[{"$ref":"#/$defs/a"},{"type":"null"}]}}}`)},
		{"an enum that lists a value twice has one constant for it",
			tool(`{"type":"object","properties":{"e":{"type":"string","enum":["a","b","a"]}}}`)},
		{"an integer enum that lists a value twice has one case for it",
			tool(`{"type":"object","properties":{"e":{"type":"array","uniqueItems":true,"items":{"type":"integer","enum":[1,2,1]}}}}`)},
		{"a $def that is a list of itself",
			tool(`{"type":"object","$defs":{"a":{"type":"array","items":{"$ref":"#/$defs/a"}}},"properties":{"e":{"$ref":"#/$defs/a"}}}`)},
		{"two $defs that are maps of each other",
			tool(`{"type":"object","$defs":{"a":{"type":"object","additionalProperties":{"$ref":"#/$defs/b"}},"b":{"type":"object","additionalProperties":{"$ref":"#/$defs/a"}}},"properties":{"e":{"$ref":"#/$defs/a"}}}`)},
		{"a recursive $def reached through another $def",
			tool(`{"type":"object","$defs":{"a":{"type":"object","properties":{"k":{"$ref":"#/$defs/a"}},"required":["k"]},"b":{"$ref":"#/$defs/a"}},"properties":{"p":{"$ref":"#/$defs/b"}}}`)},
	} {
		t.Run(c.desc, func(t *testing.T) {
			if !checkCompiles(t, []byte(c.catalog)) {
				t.Fatalf("the catalog does not load: %s", c.catalog)
			}
		})
	}
}
