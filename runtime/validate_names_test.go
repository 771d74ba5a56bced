package runtime

import (
	"encoding/json"
	"testing"
)

// The error of a property whose name is empty or needs escaping in a URI
// (a comma, a space, a quote, a slash, a tilde) names the bound of that
// property's own schema.
func TestSchemaErrorsOfOddPropertyNames(t *testing.T) {
	for _, c := range []struct {
		name, schema, args, want string
	}{
		{"", `{"type":"string","maxLength":3}`, `"abcdefg"`, ` is 7 characters long, above the maximum length 3`},
		{"a,b", `{"type":"array","maxItems":1}`, `[1,2]`, `a,b has 2 items, above the maximum 1`},
		{"with space", `{"type":"integer","maximum":5}`, `9`, `with space=9 is above the maximum 5`},
		{`q"`, `{"type":"string","minLength":2}`, `"x"`, `q" is 1 characters long, below the minimum length 2`},
		{"a/b~c", `{"type":"integer","minimum":5}`, `1`, `a/b~c=1 is below the minimum 5`},
		{"ünï", `{"type":"array","minItems":2}`, `[1]`, `ünï has 1 items, below the minimum 2`},
	} {
		name, _ := json.Marshal(c.name)
		m := &Meta{Name: "t", ArgsSchema: json.RawMessage(`{"type":"object","properties":{` + string(name) + `:` + c.schema + `}}`)}
		v, err := NewSchemaValidator(m)
		if err != nil {
			t.Fatal(err)
		}
		_, te := v.Validate([]byte(`{` + string(name) + `:` + c.args + `}`))
		if te == nil {
			t.Errorf("%q: %s accepted", c.name, c.args)
			continue
		}
		if te.Message != c.want {
			t.Errorf("%q: %q; want %q", c.name, te.Message, c.want)
		}
	}
}
