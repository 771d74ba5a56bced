package lint

import (
	"fmt"
	"testing"

	"github.com/toolcat/toolcat/catalog"
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
	}
	values := []string{`"a"`, `"abcd"`, `"ab"`, `"A1"`, `1`, `1.5`, `2.0`, `0`, `11`, `true`, `null`, `3`, `-1`, `"b"`}
	c := newCompiler()
	for i, src := range schemas {
		schema := parse(t, src)
		doc := &catalog.Tool{Name: fmt.Sprintf("t%d", i)}
		cs, err := compileSchema(c, doc, "args", schema)
		if err != nil {
			t.Fatal(err)
		}
		for _, vs := range values {
			v := parse(t, vs)
			problem, handled := checkSimple(schema, v)
			if !handled {
				t.Errorf("%s with %s: not handled", src, vs)
				continue
			}
			err := cs.sch.Validate(v.Interface())
			want := ""
			if err != nil {
				want = validationProblems(err)[0].Msg
			}
			if problem != want {
				t.Errorf("%s with %s: checkSimple says %q, the validator %q", src, vs, problem, want)
			}
		}
	}
}

func parse(t *testing.T, src string) *catalog.Node {
	t.Helper()
	cat, err := catalog.LoadFiles(catalog.File{Name: "v.json", Data: []byte(`{"tools": {"x_y": {"description": "d", "examples": [{"args": {"v": ` + src + `}}]}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	return cat.Tools[0].Examples[0].Args.Get("v")
}
