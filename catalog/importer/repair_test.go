package importer

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestBuildRepairs checks each repair of a value that contradicts its
// schema: what the property becomes, and the note to decide.
func TestBuildRepairs(t *testing.T) {
	tests := []struct {
		desc, prop, want, note string
	}{
		{"null default on a string", `{"type":"string","default":null}`, `{"type":"string"}`, "default null on a property of type string; removed"},
		{"null default on a nullable string", `{"type":["string","null"],"default":null}`, `{"type":["string","null"],"default":null}`, ""},
		{"boolean as a string", `{"type":"boolean","default":"false"}`, `{"type":"boolean","default":false}`, `default "false" converted to false`},
		{"integer as a string", `{"type":"integer","default":"10"}`, `{"type":"integer","default":10}`, `default "10" converted to 10`},
		{"number as a string", `{"type":"number","default":" 1.5"}`, `{"type":"number","default":1.5}`, `default " 1.5" converted to 1.5`},
		{"fraction on an integer", `{"type":"integer","default":"1.5"}`, `{"type":"integer"}`, `default "1.5" is not of the property's type integer; removed`},
		{"None on a number", `{"type":"number","default":"None"}`, `{"type":"number"}`, `default "None" on a property of type number means no value; removed`},
		{"N/A on a boolean", `{"type":"boolean","default":"N/A"}`, `{"type":"boolean"}`, `means no value; removed`},
		{"number on a string", `{"type":"string","default":5}`, `{"type":"string","default":"5"}`, `default 5 converted to the string "5"`},
		{"default outside the enum", `{"type":"string","enum":["a","b"],"default":"dontcare"}`, `{"type":"string","enum":["a","b"]}`, `default "dontcare" is not one of the property's enum; removed`},
		{"empty type", `{"type":"","description":"x"}`, `{"description":"x"}`, `type "" is not a JSON Schema type; removed`},
		{"unknown type", `{"type":"foo"}`, `{}`, `type "foo" is not a JSON Schema type; removed`},
		{"unknown type in a list", `{"type":["string","foo"]}`, `{"type":["string"]}`, `type ["string","foo"]: "foo" removed`},
		{"a type that is no string", `{"type":7}`, `{}`, `type 7 is not a JSON Schema type`},
		{"default below its minimum", `{"type":"integer","minimum":5,"default":1}`, `{"type":"integer","minimum":5}`, "default 1 is not valid against its schema (minimum"},
		{"enum member of another type", `{"type":"string","enum":["a",1]}`, `{"type":"string","enum":["a"]}`, "enum member 1 is not valid against its schema"},
		{"const of another type", `{"type":"string","const":1}`, `{"type":"string"}`, "const 1 is not valid against its schema"},
		{"integer beyond int64", `{"type":"integer","default":99999999999999999999}`, `{"type":"integer"}`, "does not fit the property's integer type"},
		{"int32 beyond its range", `{"type":"integer","format":"int32","enum":[1,3000000000]}`, `{"type":"integer","format":"int32","enum":[1]}`, "enum member 3000000000 does not fit"},
		{"date-time that is not RFC 3339", `{"type":"string","format":"date-time","default":"yesterday"}`, `{"type":"string","format":"date-time"}`, "is not an RFC 3339 date-time"},
		{"a valid default kept", `{"type":"integer","minimum":1,"default":3}`, `{"type":"integer","minimum":1,"default":3}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			in := `{"tools":[{"name":"get_x","description":"Gets x.","inputSchema":{"type":"object","additionalProperties":false,"properties":{"p":` + tt.prop + `}}}]}`
			tools, err := Parse("x.json", strings.NewReader(in))
			if err != nil {
				t.Fatal(err)
			}
			res, err := Build(tools, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var doc yaml.Node
			if err := yaml.Unmarshal(res.YAML, &doc); err != nil {
				t.Fatal(err)
			}
			p, _ := lookupYAML(doc.Content[0], "/tools/get_x/args/properties/p")
			if got := compact(p); got != tt.want {
				t.Errorf("p = %s, want %s\n%s", got, tt.want, res.YAML)
			}
			var repairs []string
			for _, n := range res.Notes {
				if n.Decide && strings.HasPrefix(n.Message, "args.p: ") {
					repairs = append(repairs, n.Message)
				}
			}
			switch {
			case tt.note == "" && len(repairs) > 0:
				t.Errorf("repairs %q, want none", repairs)
			case tt.note != "" && (len(repairs) != 1 || !strings.Contains(repairs[0], tt.note)):
				t.Errorf("repairs %q, want one with %q", repairs, tt.note)
			case tt.note != "" && !strings.Contains(string(res.YAML), Decide+": "+repairs[0]) && !strings.Contains(string(res.YAML), Decide+": the source wrote"):
				t.Errorf("no %q comment for %q in\n%s", Decide, repairs[0], res.YAML)
			}
		})
	}
}
