package export

import (
	"encoding/json"
	"testing"
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
