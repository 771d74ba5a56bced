package catalog

import (
	"fmt"
	"testing"
)

// checkSimple agrees with the general validator on every schema it
// handles: same verdict, same message.
func TestCheckSimpleAgreesWithValidator(t *testing.T) {
	schemas := []string{
		`{"type": "string"}`,
		`{"type": ["string", "null"]}`,
		`{"type": "integer", "minimum": 1, "maximum": 10}`,
		`{"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}`,
		`{"type": "string", "minLength": 2, "maxLength": 3}`,
		`{"type": "string", "pattern": "^[a-z]+$"}`,
		`{"enum": ["a", "b", 3]}`,
		`{"const": 2}`,
		`{"type": "boolean"}`,
		`{"minimum": 5}`,
		`{"type": "integer"}`,
	}
	values := []string{`"a"`, `"abcd"`, `"ab"`, `"A1"`, `1`, `1.5`, `2.0`, `0`, `11`, `true`, `null`, `3`, `-1`, `"b"`, `1e300`, `1e400`, `1e-10`, `0.1`}
	vc := NewValueChecker()
	for i, src := range schemas {
		schema := parseValue(t, src)
		cs, err := vc.Compile(fmt.Sprintf("t%d", i), "args", schema)
		if err != nil {
			t.Fatal(err)
		}
		for _, vs := range values {
			v := parseValue(t, vs)
			problem, handled := checkSimple(schema, v)
			if !handled {
				if vs == `1e400` || vs == `1e300` || vs == `1e-10` {
					continue // left to the validator
				}
				t.Errorf("%s with %s: not handled", src, vs)
				continue
			}
			want := ""
			if errs := cs.Validate(v); len(errs) > 0 {
				want = errs[0].Msg
			}
			if problem != want {
				t.Errorf("%s with %s: checkSimple says %q, the validator %q", src, vs, problem, want)
			}
		}
	}
}

func parseValue(t *testing.T, src string) *Node {
	t.Helper()
	cat, err := LoadFiles(File{Name: "v.json", Data: []byte(`{"tools": {"x_y": {"description": "d", "examples": [{"args": {"v": ` + src + `}}]}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	return cat.Tools[0].Examples[0].Args.Get("v")
}
