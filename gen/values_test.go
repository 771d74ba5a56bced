package gen_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/gen"
)

// A default, const or enum value that its own schema rejects, or a default
// that the Go types cannot hold, stops Generate with its position: a
// generated validator would refuse calls the schema accepts.
func TestGenerateRejectsBadValues(t *testing.T) {
	for _, tc := range []struct {
		desc string
		args string // the args schema, JSON
		want string // the error, position included; "" for none
	}{
		{"boolean default as a string", `{"type": "object", "properties": {"dry": {"type": "boolean",
 "default": "false"}}}`,
			`c.json:2:13: tools.do_it.args/properties/dry: default value "false" is not valid against its schema: got string, want boolean`},
		{"nested object", `{"type": "object", "properties": {"o": {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1,
 "default": 0}}}}}`,
			`c.json:2:13: tools.do_it.args/properties/o/properties/n: default value 0 is not valid against its schema: minimum: got 0, want 1`},
		{"array items", `{"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string", "default":
 7}}}}`,
			`c.json:2:2: tools.do_it.args/properties/a/items: default value 7 is not valid against its schema: got number, want string`},
		{"$defs and $ref", `{"type": "object", "properties": {"f": {"$ref": "#/$defs/f"}}, "$defs": {"f": {"type": "object", "properties": {"tag": {"type": "string"}},
 "default": {"tag": 7}}}}`,
			`c.json:2:21: tools.do_it.args/$defs/f: default value {"tag":7} is not valid against its schema: got number, want string`},
		{"default beside a $ref", `{"type": "object", "properties": {"f": {"$ref": "#/$defs/f",
 "default": {"tag": 7}}}, "$defs": {"f": {"type": "object", "properties": {"tag": {"type": "string"}}}}}`,
			`c.json:2:21: tools.do_it.args/properties/f: default value {"tag":7} is not valid against its schema: got number, want string`},
		{"anyOf branch", `{"type": "object", "properties": {"u": {"anyOf": [{"type": "integer",
 "default": "x"}, {"type": "string"}]}}}`,
			`c.json:2:13: tools.do_it.args/properties/u/anyOf/0: default value "x" is not valid against its schema: got string, want integer`},
		{"oneOf branch", `{"type": "object", "properties": {"u": {"oneOf": [{"type": "integer"}, {"type": "string", "maxLength": 1,
 "default": "xy"}]}}}`,
			`c.json:2:13: tools.do_it.args/properties/u/oneOf/1: default value "xy" is not valid against its schema: maxLength: got 2, want 1`},
		{"enum member", `{"type": "object", "properties": {"order": {"type": "string", "enum": ["asc",
 3]}}}`,
			`c.json:2:2: tools.do_it.args/properties/order: enum value 3 is not valid against its schema: got number, want string`},
		{"const", `{"type": "object", "properties": {"v": {"type": "integer",
 "const": 2.5}}}`,
			`c.json:2:11: tools.do_it.args/properties/v: const value 2.5 is not valid against its schema: got number, want integer`},
		{"int32 default beyond int32", `{"type": "object", "properties": {"n": {"type": "integer", "format": "int32",
 "default": 3000000000}}}`,
			`c.json:2:13: tools.do_it.args/properties/n: default value 3000000000 cannot be applied: 3000000000 does not fit an int32 (format int32)`},
		{"integer default beyond int64", `{"type": "object", "properties": {"n": {"type": "integer",
 "default": 1e300}}}`,
			`c.json:2:13: tools.do_it.args/properties/n: default value 1e300 cannot be applied: 1e300 is beyond the range of an int64`},
		{"date-time Go cannot read", `{"type": "object", "properties": {"at": {"type": "string", "format": "date-time",
 "default": "2026-12-31T23:59:60Z"}}}`,
			`c.json:2:13: tools.do_it.args/properties/at: default value "2026-12-31T23:59:60Z" cannot be applied: "2026-12-31T23:59:60Z" is not a time Go's time.Time reads`},
		{"int32 inside an object default", `{"type": "object", "properties": {"o": {"type": "object", "properties": {"n": {"type": "integer", "format": "int32"}},
 "default": {"n": 3000000000}}}}`,
			`c.json:2:19: tools.do_it.args/properties/o: default value {"n":3000000000} cannot be applied: 3000000000 does not fit an int32`},
		{"int32 in $defs", `{"type": "object", "properties": {"o": {"$ref": "#/$defs/o"}}, "$defs": {"o": {"type": "object", "properties": {"n": {"type": "integer", "format": "int32",
 "default": -3000000000}}}}}`,
			`c.json:2:13: tools.do_it.args/$defs/o/properties/n: default value -3000000000 cannot be applied: -3000000000 does not fit an int32`},
		{"a number a float64 cannot hold", `{"type": "object", "properties": {"x": {
 "default": [1e400]}}}`,
			`c.json:2:14: tools.do_it.args/properties/x: default value [1e400] cannot be applied: 1e400 is beyond the range of a float64`},
		{"int32 enum member", `{"type": "object", "properties": {"n": {"type": "integer", "format": "int32", "enum": [1,
 3000000000]}}}`,
			`c.json:2:2: tools.do_it.args/properties/n: enum value 3000000000 cannot be held by the argument's Go type: 3000000000 does not fit an int32`},
		{"const in array items beyond int64", `{"type": "object", "properties": {"a": {"type": "array", "items": {"type": "integer",
 "const": 1e300}}}}`,
			`c.json:2:11: tools.do_it.args/properties/a/items: const value 1e300 cannot be held by the argument's Go type: 1e300 is beyond the range of an int64`},
		{"date-time const", `{"type": "object", "properties": {"at": {"type": "string", "format": "date-time",
 "const": "2026-12-31T23:59:60Z"}}}`,
			`c.json:2:11: tools.do_it.args/properties/at: const value "2026-12-31T23:59:60Z" cannot be held by the argument's Go type`},
		{"valid values", `{"type": "object", "properties": {"dry": {"type": "boolean", "default": false},
 "o": {"type": "object", "properties": {"n": {"type": "integer", "format": "int32"}}, "default": {"n": 1.0}},
 "order": {"type": "string", "enum": ["asc", "desc"], "default": "asc"}, "v": {"const": 2}}}`, ""},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			src := `{"tools": {"do_it": {"description": "Does it.", "args": ` + tc.args + `}}}`
			cat, err := catalog.LoadFiles(catalog.File{Name: "c.json", Data: []byte(src)})
			if err != nil {
				t.Fatal(err)
			}
			_, err = gen.Generate(cat)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Generate: %v", err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("Generate error:\n got %v\nwant %s...", err, tc.want)
			}
			var list catalog.ErrorList
			if !errors.As(err, &list) || len(list) != 1 {
				t.Fatalf("error is %T with %d entries, want one catalog.ErrorList entry", err, len(list))
			}
		})
	}
}

// Every bad value is reported, in position order, across tools.
func TestGenerateReportsEveryBadValue(t *testing.T) {
	src := `{"tools": {
"b_tool": {"description": "B.", "args": {"type": "object", "properties": {"x": {"type": "string", "default": 1}}}},
"a_tool": {"description": "A.", "args": {"type": "object", "properties": {"y": {"type": "integer", "enum": [1, "2"]}, "z": {"const": "q", "type": "integer"}}}}}}`
	cat, err := catalog.LoadFiles(catalog.File{Name: "c.json", Data: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = gen.Generate(cat)
	var list catalog.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error %v is not a catalog.ErrorList", err)
	}
	var got []string
	for _, e := range list {
		got = append(got, e.Pos.String()+" "+strings.SplitN(e.Msg, ":", 2)[0])
	}
	want := []string{"c.json:2:110 tools.b_tool.args/properties/x", "c.json:3:112 tools.a_tool.args/properties/y", "c.json:3:134 tools.a_tool.args/properties/z"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
