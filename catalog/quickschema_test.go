package catalog

import (
	"testing"
)

// quickSchemaOK never accepts a schema that the metaschema rejects. The
// seeds are valid and invalid schemas; the fuzzer mutates them.
func FuzzQuickSchema(f *testing.F) {
	for _, s := range []string{
		`{"type": "object", "properties": {"a": {"type": "string", "minLength": 1, "pattern": "^a"}}, "required": ["a"], "additionalProperties": false}`,
		`{"type": ["string", "null"], "enum": ["a", null], "default": "a"}`,
		`{"type": "array", "items": {"$ref": "#/$defs/x"}, "minItems": 1, "uniqueItems": true, "$defs": {"x": {"type": "integer", "multipleOf": 2}}}`,
		`{"anyOf": [{"type": "string"}, {"type": "null"}], "description": "d"}`,
		`{"type": "objec"}`,
		`{"minLength": -1}`,
		`{"minLength": 1.5}`,
		`{"required": ["a", "a"]}`,
		`{"pattern": "a(b"}`,
		`{"patternProperties": {"^x(": {}}}`,
		`{"allOf": []}`,
		`{"multipleOf": 0}`,
		`{"$ref": "http://example.com/x"}`,
		`{"type": []}`,
		`{"properties": {"a": 3}}`,
		`{"items": true, "not": false}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, errs := parseJSON("s.json", data)
		if len(errs) > 0 || n == nil {
			return
		}
		if quickSchemaOK(n) {
			if err := metaschema().Validate(n.Interface()); err != nil {
				t.Fatalf("quickSchemaOK accepts %s, which the metaschema rejects: %v", data, err)
			}
		}
	})
}

// Typical tool schemas take the quick path.
func TestQuickSchemaAcceptsTypicalSchemas(t *testing.T) {
	for _, s := range []string{
		`{"type": "object", "additionalProperties": false, "required": ["q"], "properties": {"q": {"type": "string", "minLength": 2, "maxLength": 200, "description": "Keywords"}, "n": {"type": "integer", "minimum": 1, "maximum": 20, "default": 5}, "when": {"type": "string", "format": "date-time"}}}`,
		`{"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}, "maxItems": 10}, "filter": {"$ref": "#/$defs/f"}}, "$defs": {"f": {"type": "object", "properties": {}}}}`,
	} {
		n, errs := parseJSON("s.json", []byte(s))
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		if !quickSchemaOK(n) {
			t.Errorf("not on the quick path: %s", s)
		}
	}
}
