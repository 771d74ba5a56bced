package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/runtime"
)

// lenientAt is a validator with one bug: a string at the top-level
// argument key for which lets is true is accepted whatever the schema says
// of it; the rest is checked by the schema, with good standing in for it.
func lenientAt(t *testing.T, meta *runtime.Meta, key, good string, lets func(string) bool) runtime.Validator {
	t.Helper()
	inner, err := runtime.NewSchemaValidator(meta)
	if err != nil {
		t.Fatal(err)
	}
	return runtime.ValidatorFunc(func(raw []byte) (any, *runtime.ToolError) {
		var m map[string]any
		if json.Unmarshal(raw, &m) == nil {
			if s, ok := m[key].(string); ok && lets(s) {
				m[key] = good
				fixed, err := json.Marshal(m)
				if err == nil {
					if args, te := inner.Validate(fixed); te == nil {
						args.(map[string]any)[key] = s
						return args, nil
					}
				}
			}
		}
		return inner.Validate(raw)
	})
}

// wantFailure runs the harness over tool and checks that one failure
// matches want.
func wantFailure(t *testing.T, tool runtime.Tool, want string) {
	t.Helper()
	reg := runtime.New()
	if err := reg.Register(tool); err != nil {
		t.Fatal(err)
	}
	rec := newRecorder()
	run(rec, reg, map[string]Spec{tool.Meta.Name: {Pos: "cat.yaml:3:3"}}, Options{})
	re := regexp.MustCompile(want)
	errs := rec.errors()
	for _, e := range errs {
		if re.MatchString(e) {
			return
		}
	}
	t.Errorf("no failure matches %s; got %d:\n%s", want, len(errs), strings.Join(errs, "\n"))
}

// In a schema of thousands of properties, one constraint the validator
// ignores, far down the list, is still caught.
func TestLargeSchemaCatchesOneIgnoredConstraint(t *testing.T) {
	tool := largeTool(t, 4200, 20)
	colors := map[string]bool{"red": true, "green": true, "blue": true}
	tool.Validator = lenientAt(t, &tool.Meta, "p04000", "red", func(s string) bool { return !colors[s] })
	wantFailure(t, tool, `^T/configure_widget/invalid_args: cat.yaml:3:3: configure_widget: invalid_args: .*not in the enum at /p04000: \{.*"p04000":"not_a_value.* reached the tool`)
}

// Every constraint of a large schema is broken by one mutation at least,
// and each mutation carries only the required arguments beside the one it
// breaks, whatever the number of properties.
func TestLargeSchemaMutatesEveryConstraint(t *testing.T) {
	const n, required = 600, 20
	s, err := compileSchema("t", "args", largeArgsSchema(n, required))
	if err != nil {
		t.Fatal(err)
	}
	valid, notes := validArgs(s)
	if len(valid) != 2 || len(notes) > 0 {
		t.Fatalf("want two sets of valid arguments, got %d; notes: %q", len(valid), notes)
	}
	got := map[string]bool{}
	for _, m := range invalidArgs(s, valid[1].doc, runtime.AdditionalArgsReject) {
		got[m.what] = true
		if !m.policy && s.validateJSON(m.json) == nil {
			t.Errorf("%s: %s is valid", m.what, m.json)
		}
		var top map[string]json.RawMessage
		if json.Unmarshal(m.json, &top) == nil && len(top) > required+2 {
			t.Errorf("%s: %d arguments, want the %d required ones and the one broken at most", m.what, len(top), required+1)
		}
	}
	var want []string
	for i := range n {
		p := fmt.Sprintf("/p%05d", i)
		switch i % 6 {
		case 0:
			want = append(want, "wrong type at "+p+" (string)", "at the exclusive minimum at "+p, "above the maximum at "+p)
		case 1:
			want = append(want, "wrong type at "+p+" (integer)", "shorter than minLength at "+p, "longer than maxLength at "+p, "not matching the pattern at "+p)
		case 2:
			want = append(want, "wrong type at "+p+" (string)", "below the minimum at "+p, "above the maximum at "+p)
		case 3:
			want = append(want, "wrong type at "+p+" (string)")
		case 4:
			want = append(want, "wrong type at "+p+" (integer)", "not in the enum at "+p)
		case 5:
			want = append(want, "wrong type at "+p+" (integer)", "not in format date at "+p)
		}
		if i%(n/required) == 0 {
			want = append(want, "required argument "+p+" left out")
		}
	}
	want = append(want,
		"arguments that are not an object", "unknown argument /toolcat_unknown_argument",
		"wrong type at /nested (string)", "required argument /nested left out", "required argument /nested/id left out",
		"wrong type at /nested/id (string)", "below the minimum at /nested/id", "wrong type at /nested/label (integer)", "longer than maxLength at /nested/label",
		"not in the enum at /nested/mode", "unknown argument /nested/toolcat_unknown_argument",
		"wrong type at /tags (string)", "fewer items than minItems at /tags", "more items than maxItems at /tags",
		"wrong type at /tags/0 (integer)", "shorter than minLength at /tags/0")
	for _, w := range want {
		if !got[w] {
			t.Errorf("no mutation %q", w)
		}
	}
	if len(got) != len(want) {
		wanted := map[string]bool{}
		for _, w := range want {
			wanted[w] = true
		}
		for g := range got {
			if !wanted[g] {
				t.Errorf("unexpected mutation %q", g)
			}
		}
	}
}

// Where properties depend on each other, the small carrier is not valid
// on its own, and mutations are made of the arguments with every property
// instead, so that the one broken rule is still the only one.
func TestCarrierOfDependentProperties(t *testing.T) {
	meta := runtime.Meta{Name: "rename_item", ArgsSchema: json.RawMessage(`{
		"type": "object", "additionalProperties": false, "required": ["id"],
		"dependentRequired": {"name": ["reason"]},
		"properties": {
			"id": {"type": "integer"},
			"name": {"type": "string", "maxLength": 3},
			"reason": {"type": "string"}
		}}`)}
	tool := runtime.Tool{Meta: meta, Execute: func(ctx context.Context, args any) (any, error) { return nil, nil }}
	tool.Validator = lenientAt(t, &tool.Meta, "name", "abc", func(s string) bool { return true })
	wantFailure(t, tool, `invalid_args: .*longer than maxLength at /name: \{"id":\d+,"name":"xxxx","reason":"[a-z]+"\} reached the tool`)
}

// A document that holds the marker of the place mutations go is encoded
// whole for each mutation, with the same result.
func TestSiteMarkerTaken(t *testing.T) {
	marker, _ := json.Marshal(slotValue)
	doc := fmt.Sprintf(`{"type": "object", "required": ["a"], "properties": {
		"a": {"const": %s}, "b": {"type": "integer", "maximum": 3}}}`, marker)
	s, err := compileSchema("t", "args", json.RawMessage(doc))
	if err != nil {
		t.Fatal(err)
	}
	valid, _ := validArgs(s)
	if len(valid) != 2 {
		t.Fatalf("want two sets of valid arguments, got %d", len(valid))
	}
	for _, m := range invalidArgs(s, valid[1].doc, runtime.AdditionalArgsReject) {
		if m.what != "above the maximum at /b" {
			continue
		}
		var got map[string]any
		if err := json.Unmarshal(m.json, &got); err != nil || got["a"] != slotValue || got["b"] != 4.0 {
			t.Errorf("%s: %s", m.what, m.json)
		}
		return
	}
	t.Error("no mutation above the maximum at /b")
}
