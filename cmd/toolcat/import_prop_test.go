package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

var importSeed = flag.Uint64("importprop.seed", 1, "first seed of TestImportedSetsBuild's drawn tool sets")

// TestImportedSetsBuild is the property that what toolcat import writes
// always loads, generates and compiles: tool sets drawn at random in the
// dialects import reads, with the quirks real sets have (type names of
// other languages or none, defaults that are null, strings standing for
// booleans and numbers, outside their enum or below their minimum, enum
// members of the wrong type, draft-04 and OpenAPI keywords), each taken
// through import, lint, gen and one go vet of every generated package
// together. -importprop.seed draws other sets.
func TestImportedSetsBuild(t *testing.T) {
	t.Parallel() // child processes build Go packages: such tests run side by side
	if testing.Short() {
		t.Skip("builds the generated packages")
	}
	const sets, toolsPerSet = 16, 6
	dir := t.TempDir()
	var all []importSet
	for i := range sets {
		seed := *importSeed + uint64(i)
		d := drawer{r: rand.New(rand.NewPCG(seed, 0x746f6f6c636174))}
		data, err := json.MarshalIndent(d.toolList(toolsPerSet), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, fmt.Sprintf("seed%d.json", seed))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		all = append(all, importSet{name: fmt.Sprintf("seed %d (%s)", seed, path), args: []string{path}})
	}
	c := importAndBuild(t, all)
	if c.sets != sets {
		t.Errorf("%d of %d drawn sets imported, loaded, generated and built", c.sets, sets)
	}
}

// drawer draws tool definitions.
type drawer struct{ r *rand.Rand }

func (d drawer) pick(n int) int        { return d.r.IntN(n) }
func (d drawer) chance(p float64) bool { return d.r.Float64() < p }

func oneOf[T any](d drawer, xs ...T) T { return xs[d.pick(len(xs))] }

// toolList draws n tools, each in one of the dialects import reads.
func (d drawer) toolList(n int) any {
	verbs := []string{"get", "list", "create", "delete", "search", "update"}
	nouns := []string{"user", "issue", "file", "Message", "repo-item", "calendarEvent"}
	var tools []any
	for i := range n {
		name := fmt.Sprintf("%s_%s%d", oneOf(d, verbs...), oneOf(d, nouns...), i)
		if d.chance(0.3) {
			name = fmt.Sprintf("%s%s%d", oneOf(d, verbs...), "Thing", i) // camelCase
		}
		desc := oneOf(d, "Does one thing with the object it names.", "", "Line one.\nLine two: when to use it.")
		schema := d.object(0)
		var tool map[string]any
		switch d.pick(4) {
		case 0, 1:
			tool = map[string]any{"name": name, "description": desc, "inputSchema": schema}
			if d.chance(0.6) {
				ann := map[string]any{}
				for _, h := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
					if d.chance(0.5) {
						ann[h] = d.chance(0.5)
					}
				}
				tool["annotations"] = ann
			}
		case 2:
			tool = map[string]any{"type": "function", "function": map[string]any{"name": name, "description": desc, "parameters": schema}}
		default:
			tool = map[string]any{"name": name, "description": desc, "input_schema": schema}
		}
		tools = append(tools, tool)
	}
	return map[string]any{"tools": tools}
}

// object draws an object schema with a few properties.
func (d drawer) object(depth int) map[string]any {
	props := map[string]any{}
	var required []string
	for i := range 1 + d.pick(5) {
		name := oneOf(d, "query", "limit", "mode", "when", "flag", "ratio", "tags", "owner", "page-size", "filter")
		name = fmt.Sprintf("%s%d", name, i)
		props[name] = d.schema(depth + 1)
		if d.chance(0.3) {
			required = append(required, name)
		}
	}
	s := map[string]any{"type": oneOf(d, "object", "object", "dict", "Object"), "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	if d.chance(0.4) {
		s["additionalProperties"] = false
	}
	if depth == 0 && d.chance(0.2) {
		s["$schema"] = "http://json-schema.org/draft-07/schema#"
	}
	return s
}

// schema draws a property's schema.
func (d drawer) schema(depth int) map[string]any {
	if depth < 3 && d.chance(0.15) {
		return d.object(depth)
	}
	if depth < 3 && d.chance(0.1) {
		return map[string]any{"type": oneOf(d, "array", "list"), "items": d.schema(depth + 1), "default": oneOf[any](d, nil, []any{}, "[]")}
	}
	if depth < 3 && d.chance(0.1) {
		return map[string]any{"anyOf": []any{d.schema(depth + 1), map[string]any{"type": "null"}}, "default": nil}
	}
	s := map[string]any{}
	types := []any{"string", "integer", "number", "boolean", "str", "int", "float", "bool", "", "foo", "String", "any",
		[]any{"string", "null"}, []any{"integer", "none"}, []any{""}, 7}
	if d.chance(0.9) {
		s["type"] = oneOf(d, types...)
	}
	if d.chance(0.2) {
		s["format"] = oneOf(d, "date-time", "int32", "float", "email", "uri")
	}
	if d.chance(0.3) {
		s["enum"] = d.enum()
	}
	if d.chance(0.1) {
		s["const"] = oneOf[any](d, "x", 1, true, nil)
	}
	if d.chance(0.2) {
		s["minimum"] = oneOf(d, 0, 5, 100)
		if d.chance(0.3) {
			s["exclusiveMinimum"] = true
		}
	}
	if d.chance(0.1) {
		s["maximum"] = oneOf(d, 3, 10)
	}
	if d.chance(0.1) {
		s["minLength"] = oneOf(d, 1, 3)
	}
	if d.chance(0.05) {
		s["pattern"] = "^[a-z]+$"
	}
	if d.chance(0.1) {
		s["nullable"] = true
	}
	if d.chance(0.7) {
		s["default"] = oneOf[any](d, nil, "false", "true", "None", "N/A", "10", "1.5", "-3", "x", "dontcare", "",
			3, 2.5, 1e30, json.Number("99999999999999999999"), true, false, "2024-01-01T00:00:00Z", "yesterday", "a")
	}
	if d.chance(0.5) {
		s["description"] = "What it holds."
	}
	return s
}

func (d drawer) enum() []any {
	pool := []any{"a", "b", "fast", "slow", 1, 2, 2.5, true, nil, "dontcare"}
	var out []any
	for range 1 + d.pick(4) {
		out = append(out, oneOf(d, pool...))
	}
	return out
}
