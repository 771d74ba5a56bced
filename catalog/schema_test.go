package catalog

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A schema error quotes the value found and, for the mistakes people
// bring from other dialects and languages, says what to write instead.
func TestSchemaErrorsQuoteAndFix(t *testing.T) {
	const types = `value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'`
	tests := []struct {
		desc, args, want string
	}{
		{"any", `{type: object, properties: {a: {type: any}}}`,
			`t.yaml:4:49: tools.a_b.args.properties.a.type: not a valid JSON Schema: found "any": ` + types + `; omit type to accept any value`},
		{"dict", `{type: object, properties: {a: {type: dict}}}`,
			`t.yaml:4:49: tools.a_b.args.properties.a.type: not a valid JSON Schema: found "dict": ` + types + `; JSON Schema calls it "object"`},
		{"float in a type list", `{type: object, properties: {a: {type: [string, float]}}}`,
			`t.yaml:4:58: tools.a_b.args.properties.a.type[1]: not a valid JSON Schema: found "float": ` + types + `; JSON Schema calls it "number"`},
		{"typo", `{type: object, properties: {a: {type: strin}}}`,
			`t.yaml:4:49: tools.a_b.args.properties.a.type: not a valid JSON Schema: found "strin": ` + types + `; did you mean "string"?`},
		{"draft-07 tuple", `{type: object, properties: {a: {type: array, items: [{type: string}]}}}`,
			`t.yaml:4:63: tools.a_b.args.properties.a.items: not a valid JSON Schema: found [{"type":"string"}]: got array, want boolean or object; a list of schemas is the draft-07 tuple form: in 2020-12 write it as prefixItems, and items: false to allow no more elements`},
		{"draft-04 exclusiveMinimum", `{type: object, properties: {a: {type: number, minimum: 0, exclusiveMinimum: true}}}`,
			`t.yaml:4:87: tools.a_b.args.properties.a.exclusiveMinimum: not a valid JSON Schema: found true: got boolean, want number; in 2020-12 exclusiveMinimum is the bound itself: write exclusiveMinimum: 0 in place of minimum: 0 and exclusiveMinimum: true`},
		{"draft-04 exclusiveMaximum false", `{type: object, properties: {a: {type: number, exclusiveMaximum: false}}}`,
			`t.yaml:4:75: tools.a_b.args.properties.a.exclusiveMaximum: not a valid JSON Schema: found false: got boolean, want number; exclusiveMaximum: false is the draft-04 default: remove it`},
		{"$defs written as definitions", `{type: object, definitions: {x: {type: string}}, properties: {a: {$ref: "#/$defs/x"}}}`,
			`t.yaml:4:83: tools.a_b.args.properties.a: $ref #/$defs/x points at nothing in the schema; it is under definitions, the draft-07 name: rename definitions to $defs`},
		{"value shown once", `{type: object, properties: {a: {type: string, minLength: -1}}}`,
			`t.yaml:4:68: tools.a_b.args.properties.a.minLength: not a valid JSON Schema: minimum: got -1, want 0`},
		{"a property named items is no keyword", `{type: object, properties: {items: [1]}}`,
			`t.yaml:4:46: tools.a_b.args.properties.items: not a valid JSON Schema: found [1]: got array, want boolean or object`},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			_, err := LoadFiles(files("t.yaml", "tools:\n  a_b:\n    description: x\n    args: "+tt.args+"\n")...)
			if diff := cmp.Diff([]string{tt.want}, errorLines(t, err)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}
