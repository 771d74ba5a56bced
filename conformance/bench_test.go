package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/runtime"
)

// largeArgsSchema returns an args schema of n properties, required of them
// required (spread evenly): strings
// with enums, patterns and length bounds, integers and numbers with
// bounds, booleans, formats, and, beside them, a nested object and an
// array, so that n+2 properties in all.
func largeArgsSchema(n, required int) json.RawMessage {
	props := map[string]any{}
	var req []any
	for i := range n {
		name := fmt.Sprintf("p%05d", i)
		var s map[string]any
		switch i % 6 {
		case 0:
			s = map[string]any{"type": "number", "exclusiveMinimum": 0, "maximum": 1e6}
		case 1:
			s = map[string]any{"type": "string", "pattern": "^[a-z]+[0-9]*$", "minLength": 2, "maxLength": 16}
		case 2:
			s = map[string]any{"type": "integer", "minimum": 0, "maximum": 1000}
		case 3:
			s = map[string]any{"type": "boolean"}
		case 4:
			s = map[string]any{"type": "string", "enum": []any{"red", "green", "blue"}}
		case 5:
			s = map[string]any{"type": "string", "format": "date"}
		}
		s["description"] = "Property " + name
		props[name] = s
		if required > 0 && i%(n/required) == 0 && len(req) < required {
			req = append(req, name)
		}
	}
	props["nested"] = map[string]any{
		"type": "object", "additionalProperties": false, "required": []any{"id"},
		"properties": map[string]any{
			"id":    map[string]any{"type": "integer", "minimum": 1},
			"label": map[string]any{"type": "string", "maxLength": 20},
			"mode":  map[string]any{"enum": []any{"fast", "safe"}},
		},
	}
	props["tags"] = map[string]any{"type": "array", "minItems": 1, "maxItems": 5,
		"items": map[string]any{"type": "string", "minLength": 1}}
	req = append(req, "nested")
	b, err := json.Marshal(map[string]any{"type": "object", "additionalProperties": false,
		"required": req, "properties": props})
	if err != nil {
		panic(err)
	}
	return b
}

// largeTool is a read-only tool whose args schema is largeArgsSchema, with
// the runtime's schema validator, as a generated package would register it
// when it has no one-pass validator of its own.
func largeTool(tb testing.TB, n, required int) runtime.Tool {
	tb.Helper()
	meta := runtime.Meta{Name: "configure_widget", ArgsSchema: largeArgsSchema(n, required)}
	v, err := runtime.NewSchemaValidator(&meta)
	if err != nil {
		tb.Fatal(err)
	}
	return runtime.Tool{
		Meta:      meta,
		Validator: v,
		Execute: func(ctx context.Context, args any) (any, error) {
			return map[string]any{"ok": true}, nil
		},
	}
}

// BenchmarkRunLargeSchema runs the whole harness over one tool whose args
// schema has N properties, 20 of them required.
func BenchmarkRunLargeSchema(b *testing.B) {
	for _, n := range []int{500, 1000, 5000} {
		b.Run(fmt.Sprintf("props=%d", n), func(b *testing.B) {
			benchRun(b, n, 20)
		})
	}
}

// BenchmarkRunLargeSchemaRequired is BenchmarkRunLargeSchema with one
// property in 50 required: every invalid set carries every other required
// argument, so its cost grows with the number of required ones as well.
func BenchmarkRunLargeSchemaRequired(b *testing.B) {
	for _, n := range []int{500, 1000, 5000} {
		b.Run(fmt.Sprintf("props=%d", n), func(b *testing.B) {
			benchRun(b, n, n/50)
		})
	}
}

func benchRun(b *testing.B, n, required int) {
	tool := largeTool(b, n, required)
	reg := runtime.New()
	if err := reg.Register(tool); err != nil {
		b.Fatal(err)
	}
	specs := map[string]Spec{tool.Meta.Name: {Pos: "catalog.yaml:1:3"}}
	opts := Options{Deterministic: []string{tool.Meta.Name}}
	b.ReportAllocs()
	cpu0 := cpuTime()
	invalid := 0
	for b.Loop() {
		rec := newRecorder()
		run(rec, reg, specs, opts)
		if errs := rec.errors(); len(errs) > 0 {
			b.Fatalf("the conformant tool failed:\n%s", strings.Join(errs, "\n"))
		}
		invalid = invalidCount(b, rec)
	}
	// CPU time, beside the wall time, for a shared machine.
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(invalid), "invalid-sets")
}

// invalidCount reads the number of invalid sets sent from the log.
func invalidCount(tb testing.TB, rec *recorder) int {
	tb.Helper()
	rec.log.mu.Lock()
	defer rec.log.mu.Unlock()
	for _, l := range rec.log.logs {
		var n int
		if i := strings.Index(l, "invalid_args: "); i >= 0 {
			if _, err := fmt.Sscanf(l[i:], "invalid_args: %d set", &n); err == nil && strings.Contains(l, " of invalid arguments w") {
				return n
			}
		}
	}
	tb.Fatal("no count of invalid arguments in the log")
	return 0
}
