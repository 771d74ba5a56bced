package runtime

import (
	"encoding/json"
	"strings"
	"testing"
)

// A struct whose member names no json tag expresses, with methods as gen
// writes them.
type oddNames struct {
	Dash  *string
	Comma string
	Count int64
	Inner *oddInner
}

func (v oddNames) MarshalJSON() ([]byte, error) {
	var w ObjectWriter
	if v.Dash != nil {
		w.Add("-", v.Dash)
	}
	w.Add("a,b", v.Comma)
	if v.Count != 0 {
		w.Add(`q"\`, v.Count)
	}
	if v.Inner != nil {
		w.Add("", v.Inner)
	}
	return w.JSON()
}

func (v *oddNames) UnmarshalJSON(b []byte) error {
	return DecodeMembers(b, func(name string) any {
		switch name {
		case "-":
			return &v.Dash
		case "a,b":
			return &v.Comma
		case `q"\`:
			return &v.Count
		case "":
			return &v.Inner
		}
		return nil
	})
}

type oddInner struct {
	Limit int64 `json:"limit,omitempty"`
}

func TestObjectWriterAndDecodeMembers(t *testing.T) {
	for _, c := range []struct {
		desc, in, out string
	}{
		{"every member", `{"-":"d","a,b":"<&>","q\"\\":3,"":{"limit":2}}`, `{"-":"d","a,b":"\u003c\u0026\u003e","q\"\\":3,"":{"limit":2}}`},
		{"optional members left out, a required one kept", `{"a,b":""}`, `{"a,b":""}`},
		{"a name in another case is another member", `{"A,B":"x","-":"d"}`, `{"-":"d","a,b":""}`},
		{"a later duplicate wins", `{"a,b":"1","a,b":"2"}`, `{"a,b":"2"}`},
		{"null changes nothing", `null`, `{"a,b":""}`},
		{"a member's own members are matched exactly too", `{"":{"LIMIT":5}}`, `{"a,b":"","":{}}`},
	} {
		t.Run(c.desc, func(t *testing.T) {
			var v oddNames
			if err := json.Unmarshal([]byte(c.in), &v); err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.out {
				t.Errorf("got %s, want %s", got, c.out)
			}
		})
	}
	// Not escaped by an encoder that does not escape HTML, as other structs.
	b, err := marshalNoEscape(oddNames{Comma: "<&>"})
	if err != nil || string(b) != `{"a,b":"<&>"}` {
		t.Errorf("marshalNoEscape = %s, %v", b, err)
	}
	for _, in := range []string{`[]`, `{"a,b":1}`, `{"-":"x"`, `{} 1`} {
		var v oddNames
		if err := json.Unmarshal([]byte(in), &v); err == nil {
			t.Errorf("%s decoded without an error", in)
		}
	}
}

type typedArgs struct {
	Limit  *int64        `json:"limit,omitempty"`
	Filter *typedFilter  `json:"filter,omitempty"`
	Items  []typedFilter `json:"items,omitempty"`
	Odd    *oddNames     `json:"odd,omitempty"`
}

type typedFilter struct {
	Max  int64  `json:"max,omitempty"`
	Name string `json:"Name,omitempty"`
	Low  string `json:"name,omitempty"`
}

// The general validator's output fills a field from the member its tag
// names, never from an undeclared member that differs in case, which the
// schema let through unchecked.
func TestTypedExactNames(t *testing.T) {
	schema := `{"type":"object","properties":{"limit":{"type":"integer","maximum":10},` +
		`"filter":{"type":"object","properties":{"max":{"type":"integer","maximum":10},"Name":{"type":"string"},"name":{"type":"string"}}},` +
		`"items":{"type":"array","items":{"type":"object","properties":{"max":{"type":"integer","maximum":10}}}},` +
		`"odd":{"type":"object"}}}`
	sv, err := NewSchemaValidator(&Meta{Name: "t", ArgsSchema: json.RawMessage(schema), AdditionalArgs: AdditionalArgsAllow})
	if err != nil {
		t.Fatal(err)
	}
	v := Typed[typedArgs](sv)
	got, te := v.Validate([]byte(`{"LIMIT":1000,"filter":{"MAX":1000,"Name":"upper","name":"lower"},"items":[{"Max":1000}],"odd":{"A,B":"x","a,b":"y"}}`))
	if te != nil {
		t.Fatal(te)
	}
	b, _ := json.Marshal(got)
	want := `{"filter":{"Name":"upper","name":"lower"},"items":[{}],"odd":{"a,b":"y"}}`
	if string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	if strings.Contains(string(b), "1000") {
		t.Errorf("a member in another case reached a field: %s", b)
	}
}

// Numbers reach the fields of a struct with its own UnmarshalJSON exactly
// too, and one its field cannot hold is reported where it is.
func TestTypedExactNumbersInOddNames(t *testing.T) {
	sv, err := NewSchemaValidator(&Meta{Name: "t", ArgsSchema: json.RawMessage(`{"type":"object","properties":{"odd":{"type":"object","properties":{"q\"\\":{"type":"integer"}}}}}`), AdditionalArgs: AdditionalArgsAllow})
	if err != nil {
		t.Fatal(err)
	}
	v := Typed[typedArgs](sv)
	got, te := v.Validate([]byte(`{"odd":{"q\"\\":9007199254740993.0}}`))
	if te != nil || got.(*typedArgs).Odd.Count != 9007199254740993 {
		t.Errorf("got %+v, %v", got, te)
	}
	_, te = v.Validate([]byte(`{"odd":{"q\"\\":9223372036854775808}}`))
	if te == nil || te.Details["field"] != `/odd/q"\` || !strings.HasPrefix(te.Message, `odd.q"\=9223372036854775808 does not fit the tool's type int64`) {
		t.Errorf("got %v %v", te, te.Details)
	}
}
