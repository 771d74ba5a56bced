package export

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/runtime"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the export; run go test -update and review the diff.\ngot:\n%s", path, got)
	}
}

var exporters = []struct {
	desc string
	fn   func([]runtime.Meta, ...Option) ([]byte, error)
}{
	{"openai_chat", OpenAIChat},
	{"openai_responses", OpenAIResponses},
	{"anthropic", Anthropic},
	{"gemini", Gemini},
	{"mcp", MCP},
}

func TestGolden(t *testing.T) {
	for _, e := range exporters {
		t.Run(e.desc, func(t *testing.T) {
			got, err := e.fn(testMetas())
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(got) {
				t.Fatalf("not JSON:\n%s", got)
			}
			golden(t, e.desc+".json", got)
			again, _ := e.fn(testMetas())
			if !bytes.Equal(got, again) {
				t.Error("two exports of the same metas differ")
			}
		})
	}
}

func TestHidden(t *testing.T) {
	for _, e := range exporters {
		t.Run(e.desc, func(t *testing.T) {
			def, err := e.fn(testMetas())
			if err != nil {
				t.Fatal(err)
			}
			all, err := e.fn(testMetas(), IncludeHidden())
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(def, []byte("describe_tool_usage")) {
				t.Error("hidden tool exported by default")
			}
			if !bytes.Contains(all, []byte(`"describe_tool_usage"`)) {
				t.Error("hidden tool missing with IncludeHidden")
			}
		})
	}
}

func TestStrictProblem(t *testing.T) {
	for _, tc := range []struct {
		desc, schema, want string
	}{
		{"closed and required", `{"type":"object","additionalProperties":false,"required":["a"],"properties":{"a":{"type":["string","null"]}}}`, ""},
		{"recursive defs", `{"type":"object","additionalProperties":false,"required":["n"],"properties":{"n":{"$ref":"#/$defs/n"}},"$defs":{"n":{"type":"object","additionalProperties":false,"required":["c"],"properties":{"c":{"type":"array","items":{"$ref":"#/$defs/n"}}}}}}`, ""},
		{"no properties", `{"type":"object","additionalProperties":false,"properties":{}}`, ""},
		{"open object", `{"type":"object","properties":{}}`, `object at the top lacks "additionalProperties": false`},
		{"optional property", `{"type":"object","additionalProperties":false,"properties":{"a":{"type":"string"}}}`, `property "a" at the top is not in required`},
		{"default", `{"type":"object","additionalProperties":false,"required":["a"],"properties":{"a":{"type":"integer","default":1}}}`, `"default" at /properties/a is not supported`},
		{"minLength", `{"type":"object","additionalProperties":false,"required":["a"],"properties":{"a":{"type":"string","minLength":1}}}`, `"minLength" at /properties/a is not supported`},
		{"oneOf", `{"type":"object","additionalProperties":false,"required":["a"],"properties":{"a":{"oneOf":[{"type":"string"}]}}}`, `"oneOf" at /properties/a is not supported`},
		{"format uri", `{"type":"object","additionalProperties":false,"required":["a"],"properties":{"a":{"type":"string","format":"uri"}}}`, `format "uri" at /properties/a is not supported`},
		{"type union", `{"type":"object","additionalProperties":false,"required":["a"],"properties":{"a":{"type":["string","number"]}}}`, `type ["string","number"] at /properties/a names more than one type besides null`},
		{"ref with description", `{"type":"object","additionalProperties":false,"required":["a"],"properties":{"a":{"$ref":"#/$defs/a","description":"x"}},"$defs":{"a":{"type":"string"}}}`, `$ref at /properties/a has other keywords beside it`},
		{"array without items", `{"type":"object","additionalProperties":false,"required":["a"],"properties":{"a":{"type":"array"}}}`, `array at /properties/a has no items`},
		{"untyped", `{"type":"object","additionalProperties":false,"required":["a"],"properties":{"a":{"description":"x"}}}`, `schema at /properties/a has no type`},
		{"top anyOf", `{"type":"object","anyOf":[]}`, `anyOf at the top of the schema`},
		{"nested open object", `{"type":"object","additionalProperties":false,"required":["a"],"properties":{"a":{"type":"array","items":{"type":"object"}}}}`, `object at /properties/a/items lacks "additionalProperties": false`},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			if got := StrictProblem([]byte(tc.schema)); got != tc.want {
				t.Errorf("StrictProblem = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestGeminiSchema(t *testing.T) {
	for _, tc := range []struct {
		desc, schema, want string
	}{
		{"nullable", `{"type":["integer","null"],"minimum":0}`, `{"type":"INTEGER","nullable":true,"minimum":0}`},
		{"const string", `{"const":"x"}`, `{"type":"STRING","enum":["x"]}`},
		{"const number", `{"type":"integer","const":3,"description":"Three"}`, `{"type":"INTEGER","description":"Three. Always 3."}`},
		{"oneOf", `{"oneOf":[{"type":"string"},{"type":"integer"}]}`, `{"anyOf":[{"type":"STRING"},{"type":"INTEGER"}]}`},
		{"anyOf with null", `{"anyOf":[{"type":"string","maxLength":3},{"type":"null"}]}`, `{"type":"STRING","nullable":true,"maxLength":3}`},
		{"type union", `{"type":["string","number"]}`, `{"anyOf":[{"type":"STRING"},{"type":"NUMBER"}]}`},
		{"format folded", `{"type":"string","format":"uri","description":"A link"}`, `{"type":"STRING","description":"A link. Format: uri."}`},
		{"format kept", `{"type":"string","format":"date-time"}`, `{"type":"STRING","format":"date-time"}`},
		{"exclusive bounds", `{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1}`, `{"type":"NUMBER","description":"Greater than 0. Less than 1."}`},
		{"allOf merged", `{"allOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":{"type":"boolean"}}}]}`, `{"type":"OBJECT","properties":{"a":{"type":"STRING"},"b":{"type":"BOOLEAN"}},"required":["a"]}`},
		{"root recursion", `{"type":"object","properties":{"child":{"$ref":"#"}}}`, `{"type":"OBJECT","properties":{"child":{"type":"OBJECT","description":"Same shape as the enclosing schema (recursive, not expanded here)."}}}`},
		{"remote ref", `{"$ref":"https://example.com/s.json","description":"X."}`, `{"description":"X. Follows the schema https://example.com/s.json."}`},
		{"dropped", `{"type":"object","additionalProperties":false,"$comment":"c","examples":[{}],"properties":{"a":{"type":"string","examples":["x"]}}}`, `{"type":"OBJECT","properties":{"a":{"type":"STRING"}}}`},
		{"required not declared", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a","b"]}`, `{"type":"OBJECT","properties":{"a":{"type":"STRING"}},"required":["a"]}`},
		{"dependent required", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"dependentRequired":{"a":["b"]}}`, `{"type":"OBJECT","description":"With a, also give b.","properties":{"a":{"type":"STRING"},"b":{"type":"STRING"}}}`},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			got, err := GeminiSchema([]byte(tc.schema))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("GeminiSchema =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestAnnotationsOf(t *testing.T) {
	for _, tc := range []struct {
		desc string
		meta runtime.Meta
		want MCPAnnotations
	}{
		{"read-only", runtime.Meta{Idempotent: true}, MCPAnnotations{ReadOnlyHint: true, IdempotentHint: true}},
		{"read-only outside content", runtime.Meta{ReturnsUntrusted: true}, MCPAnnotations{ReadOnlyHint: true, OpenWorldHint: true}},
		{"revertible side effect", runtime.Meta{HasSideEffects: true, Revertible: true, Risk: runtime.RiskMedium}, MCPAnnotations{}},
		{"irreversible side effect", runtime.Meta{HasSideEffects: true, Risk: runtime.RiskLow, Idempotent: true}, MCPAnnotations{DestructiveHint: true, IdempotentHint: true}},
		{"high risk though revertible", runtime.Meta{HasSideEffects: true, Revertible: true, Risk: runtime.RiskHigh}, MCPAnnotations{DestructiveHint: true}},
		{"additive, high risk, no revert", runtime.Meta{HasSideEffects: true, SideEffect: runtime.SideEffectAdditive, Risk: runtime.RiskHigh}, MCPAnnotations{}},
		{"overwrites, revertible", runtime.Meta{HasSideEffects: true, SideEffect: runtime.SideEffectOverwrites, Revertible: true}, MCPAnnotations{DestructiveHint: true}},
		{"destructive, revertible", runtime.Meta{HasSideEffects: true, SideEffect: runtime.SideEffectDestructive, Revertible: true, Idempotent: true}, MCPAnnotations{DestructiveHint: true, IdempotentHint: true}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			if got := AnnotationsOf(&tc.meta); got != tc.want {
				t.Errorf("AnnotationsOf = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		desc  string
		metas []runtime.Meta
	}{
		{"duplicate", []runtime.Meta{{Name: "a_b"}, {Name: "a_b"}}},
		{"no name", []runtime.Meta{{}}},
		{"array args", []runtime.Meta{{Name: "a_b", ArgsSchema: json.RawMessage(`{"type":"array"}`)}}},
		{"bad JSON", []runtime.Meta{{Name: "a_b", ArgsSchema: json.RawMessage(`{`)}}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			for _, e := range exporters {
				if _, err := e.fn(tc.metas); err == nil {
					t.Errorf("%s: no error", e.desc)
				}
			}
		})
	}
}

func TestNames(t *testing.T) {
	for _, tc := range []struct {
		desc, name string
		accepted   []string // the exporters that take the name
	}{
		{"plain", "read_file", []string{"openai_chat", "openai_responses", "anthropic", "gemini", "mcp"}},
		{"dot", "fs.read", []string{"gemini", "mcp"}},
		{"leading digit", "3d_print", []string{"openai_chat", "openai_responses", "anthropic", "mcp"}},
		{"capitals", "getComment", []string{"openai_chat", "openai_responses", "anthropic", "gemini", "mcp"}},
		{"longest", strings.Repeat("a", 64), []string{"openai_chat", "openai_responses", "anthropic", "gemini", "mcp"}},
		{"long", strings.Repeat("a", 65), nil},
		{"colon", "fs:read", nil},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			for _, e := range exporters {
				_, err := e.fn([]runtime.Meta{{Name: tc.name}})
				if want := slices.Contains(tc.accepted, e.desc); (err == nil) != want {
					t.Errorf("%s: error %v, want accepted %v", e.desc, err, want)
				}
				// CheckName, which lint calls, says what the exporter does.
				provider := strings.TrimSuffix(strings.TrimSuffix(e.desc, "_chat"), "_responses")
				if cerr := CheckName(provider, tc.name); (cerr == nil) != (err == nil) {
					t.Errorf("CheckName(%s, %q) = %v; the exporter says %v", provider, tc.name, cerr, err)
				}
			}
		})
	}
}

func TestOpenAIParameters(t *testing.T) {
	in := `{"$schema":"x","type":"object","$comment":"c","properties":{"$comment":{"type":"string","$comment":"d"},"e":{"enum":[{"$comment":"kept"}]}},"items":[{"$comment":"t"}]}`
	want := `{"type":"object","properties":{"$comment":{"type":"string"},"e":{"enum":[{"$comment":"kept"}]}},"items":[{}]}`
	n, err := parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := openAIParameters(tool{meta: &runtime.Meta{}, args: n}); got.String() != want {
		t.Errorf("openAIParameters =\n%s\nwant\n%s", got, want)
	}
}
