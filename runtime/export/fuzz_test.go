package export

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/toolcat/toolcat/runtime"
)

// FuzzSchemas checks that any JSON document, taken as a schema, neither
// panics GeminiSchema nor StrictProblem, and that GeminiSchema returns JSON.
func FuzzSchemas(f *testing.F) {
	for _, m := range testMetas() {
		if len(m.ArgsSchema) > 0 {
			f.Add([]byte(m.ArgsSchema))
		}
	}
	f.Add([]byte(`{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/a"}]}},"$ref":"#/$defs/a"}`))
	f.Add([]byte(`{"type":["null"],"enum":[null,1,"a"],"items":[true,{}],"properties":{"a":true}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		StrictProblem(data)
		out, err := GeminiSchema(data)
		if err == nil && !json.Valid(out) {
			t.Fatalf("GeminiSchema(%s) = %s, not JSON", data, out)
		}
	})
}

func TestDiamondRefs(t *testing.T) {
	// Each level refers to the next twice: 2^20 expansions without a limit.
	defs := `"l20":{"type":"string"}`
	for i := 19; i >= 0; i-- {
		defs += `,"l` + itoa(i) + `":{"type":"object","properties":{"a":{"$ref":"#/$defs/l` + itoa(i+1) + `"},"b":{"$ref":"#/$defs/l` + itoa(i+1) + `"}}}`
	}
	schema := `{"type":"object","properties":{"x":{"$ref":"#/$defs/l0"}},"$defs":{` + defs + `}}`
	out, err := GeminiSchema([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	if len(out) > 4<<20 {
		t.Errorf("the rewritten schema has %d bytes", len(out))
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// FuzzDeferHidden checks, for any args schema, category and exposure, that
// the exporters taking DeferHidden return JSON or an error, never panic,
// and defer exactly the hidden tools.
func FuzzDeferHidden(f *testing.F) {
	for _, m := range deferMetas() {
		f.Add([]byte(m.ArgsSchema), m.Category, m.Exposure == runtime.ExposureHidden, m.Name)
	}
	f.Add([]byte(`{"type":"object","properties":{"defer_loading":{"type":"boolean"}}}`), "billing", true, "tool_search")
	f.Add([]byte(`null`), "", true, "tool_search_tool_bm25")
	f.Fuzz(func(t *testing.T, schema []byte, category string, hidden bool, name string) {
		fuzzed := runtime.Meta{Name: name, Category: category, ArgsSchema: schema, Exposure: runtime.ExposureCore}
		if hidden {
			fuzzed.Exposure = runtime.ExposureHidden
		}
		metas := append(deferMetas(), fuzzed)
		spaces := map[string]string{"billing": "Billing.", category: "Fuzzed."}
		for _, e := range []struct {
			fn   Exporter
			opts []Option
		}{
			{Anthropic, []Option{DeferHidden()}},
			{Anthropic, []Option{DeferHiddenWith(ToolSearchRegex)}},
			{OpenAIResponses, []Option{DeferHidden()}},
			{OpenAIResponses, []Option{DeferHidden(), NamespacesByCategory(spaces)}},
		} {
			out, err := e.fn(metas, e.opts...)
			if err != nil {
				continue
			}
			tools, _, _ := definitions(t, out)
			var deferred []string
			for n, d := range tools {
				if d["defer_loading"] == true {
					deferred = append(deferred, n)
				}
			}
			slices.Sort(deferred)
			if want := hiddenNames(metas); !slices.Equal(deferred, want) {
				t.Fatalf("deferred %v, want %v\n%s", deferred, want, out)
			}
		}
	})
}
