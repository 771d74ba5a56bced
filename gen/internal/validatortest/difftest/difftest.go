// Package difftest compares a generated one-pass validator with the
// general one (runtime.Typed over runtime.NewSchemaValidator) on the same
// input: they must accept and reject the same arguments; when both accept,
// return equal Args, defaults applied; when both reject, with the same code
// and, when the input holds one error, the same field and message. The
// differential tests of package validatortest use it, over its fixed
// catalog and over random catalogs compiled into packages of their own.
package difftest

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/go-cmp/cmp"
	"github.com/toolcat/toolcat/runtime"
)

// Pair is the two validators of one tool.
type Pair struct {
	Name      string
	Generated runtime.Validator
	General   runtime.Validator
}

// NewPair builds the validators of a tool: generated is its generated
// validator's constructor, typed is runtime.Typed of its Args type.
func NewPair(meta runtime.Meta, generated func(*runtime.Meta) (runtime.Validator, error), typed func(*runtime.SchemaValidator) runtime.Validator) (Pair, error) {
	g, err := generated(&meta)
	if err != nil {
		return Pair{}, err
	}
	sv, err := runtime.NewSchemaValidator(&meta)
	if err != nil {
		return Pair{}, err
	}
	return Pair{Name: meta.Name, Generated: g, General: typed(sv)}, nil
}

// Compare runs both validators of p on in and describes how they differ,
// or returns "". props are the property names of the tool's schema (see
// Skip).
func Compare(p Pair, in []byte, props []string) string {
	want, wantErr := p.General.Validate(in)
	got, gotErr := p.Generated.Validate(in)
	if Skip(in, props) {
		return ""
	}
	raw := in
	if len(raw) > 300 {
		raw = append(raw[:300:300], "..."...)
	}
	if (wantErr == nil) != (gotErr == nil) {
		return fmt.Sprintf("%s %s: verdicts differ\n general:   %s\n generated: %s", p.Name, raw, describe(want, wantErr), describe(got, gotErr))
	}
	if wantErr == nil {
		if reflect.DeepEqual(want, got) {
			return ""
		}
		if len(in) > 4096 {
			// cmp.Diff takes minutes on values nested thousands deep.
			return fmt.Sprintf("%s %s: arguments differ\n general:   %s\n generated: %s", p.Name, raw, describe(want, nil), describe(got, nil))
		}
		if diff := cmp.Diff(want, got, cmp.Exporter(func(reflect.Type) bool { return true })); diff != "" {
			return fmt.Sprintf("%s %s: arguments differ (-general +generated):\n%s", p.Name, raw, diff)
		}
		return ""
	}
	if wantErr.Code != gotErr.Code {
		return fmt.Sprintf("%s %s: codes differ\n general:   %s\n generated: %s", p.Name, raw, describe(nil, wantErr), describe(nil, gotErr))
	}
	field, hasField := wantErr.Details["field"]
	if !hasField {
		// The arguments fit the schema but not the Go types: the general
		// validator fails decoding them and names no field.
		return ""
	}
	if _, several := wantErr.Details["other_errors"]; several {
		// With several errors, each validator may report another first.
		return ""
	}
	if gotErr.Details["field"] != field || gotErr.Message != wantErr.Message {
		return fmt.Sprintf("%s %s: errors differ\n general:   %s\n generated: %s", p.Name, raw, describe(nil, wantErr), describe(nil, gotErr))
	}
	return ""
}

func describe(args any, te *runtime.ToolError) string {
	var s string
	if te == nil {
		b, _ := json.Marshal(args)
		s = "accepts " + string(b)
	} else {
		b, _ := json.Marshal(te.Details)
		s = string(te.Code) + ": " + te.Message + " " + string(b)
	}
	if len(s) > 500 {
		s = s[:500] + "..."
	}
	return s
}

// Skip reports inputs on which the general validator is known to be
// wrong, so the two are not compared: none any more. Integers of any
// length and keys that differ from a property name (one of props) only in
// case or in Unicode folding are compared like any other input; the
// function stays so that a known divergence can be set aside, with a
// reason, while it is fixed.
func Skip(raw []byte, props []string) bool {
	return false
}

// PropertyNames returns the property names of every schema of metas.
func PropertyNames(metas []runtime.Meta) []string {
	seen := map[string]bool{}
	for _, m := range metas {
		var walk func(any)
		walk = func(v any) {
			switch x := v.(type) {
			case map[string]any:
				if props, ok := x["properties"].(map[string]any); ok {
					for p := range props {
						seen[p] = true
					}
				}
				for _, e := range x {
					walk(e)
				}
			case []any:
				for _, e := range x {
					walk(e)
				}
			}
		}
		var schema any
		_ = json.Unmarshal(m.ArgsSchema, &schema)
		walk(schema)
	}
	names := make([]string, 0, len(seen))
	for p := range seen {
		names = append(names, p)
	}
	return names
}

// CompareModes runs the data-mode and the code-mode validators of one
// tool on in and describes how they differ, or returns "". They must
// agree exactly: the same verdict, the same error (code, message,
// suggestion, details) and the same value, both as JSON: they hold
// values of two packages' types.
func CompareModes(name string, data, code runtime.Validator, in []byte) string {
	got, gotErr := data.Validate(in)
	want, wantErr := code.Validate(in)
	raw := in
	if len(raw) > 300 {
		raw = append(raw[:300:300], "..."...)
	}
	if (gotErr == nil) != (wantErr == nil) {
		return fmt.Sprintf("%s %s: verdicts differ\n data: %s\n code: %s", name, raw, describe(got, gotErr), describe(want, wantErr))
	}
	if gotErr != nil {
		// As JSON, as the model reads them: a value received may be of
		// either package's type.
		if g, w := describeError(gotErr), describeError(wantErr); g != w {
			return fmt.Sprintf("%s %s: errors differ\n data: %s\n code: %s", name, raw, g, w)
		}
		return ""
	}
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		return fmt.Sprintf("%s %s: values differ\n data: %s\n code: %s", name, raw, g, w)
	}
	return ""
}

func describeError(te *runtime.ToolError) string {
	b, _ := json.Marshal(te)
	return string(b)
}
