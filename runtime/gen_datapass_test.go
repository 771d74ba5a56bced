package runtime_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/toolcat/toolcat/runtime"
)

// The arguments of a tool of catalogtest's synthetic catalog, with the
// Go types and the descriptor toolcat gen --validators=data writes.

const synthSchema = `{"type":"object","additionalProperties":false,"required":["account_id","status"],"properties":{
"account_id":{"type":"string","pattern":"^acc_[0-9]+$"},
"status":{"type":"string","enum":["open","closed","pending"]},
"max_results":{"type":"integer","minimum":1,"maximum":100,"default":20},
"sort_order":{"type":"string","enum":["newest","oldest"],"default":"newest"},
"include_archived":{"type":"boolean","default":false},
"label_0":{"type":"string","maxLength":64},
"filter":{"type":"object","additionalProperties":false,"properties":{
  "created_after":{"type":"string","format":"date-time"},
  "amount_range":{"type":"object","additionalProperties":false,"properties":{"min":{"type":"number","minimum":0},"max":{"type":"number","minimum":0}}}}},
"tags":{"type":"array","maxItems":10,"items":{"type":"string","maxLength":32}}}}`

type synthStatus string

type synthArgs struct {
	AccountID       string       `json:"account_id"`
	Status          synthStatus  `json:"status"`
	MaxResults      int64        `json:"max_results,omitempty"`
	SortOrder       string       `json:"sort_order,omitempty"`
	IncludeArchived bool         `json:"include_archived,omitempty"`
	Label0          *string      `json:"label_0,omitempty"`
	Filter          *synthFilter `json:"filter,omitempty"`
	Tags            []string     `json:"tags,omitempty"`
}

type synthFilter struct {
	CreatedAfter *time.Time  `json:"created_after,omitempty"`
	AmountRange  *synthRange `json:"amount_range,omitempty"`
}

type synthRange struct {
	Min *float64 `json:"min,omitempty"`
	Max *float64 `json:"max,omitempty"`
}

var synthDesc = runtime.StructDesc{Object: runtime.Object{Names: []string{"account_id", "filter", "include_archived", "label_0", "max_results", "sort_order", "status", "tags"}, Required: []string{"account_id", "status"}, Reject: true}, Fields: []runtime.FieldDesc{
	{Key: "account_id", Kind: runtime.KindString, String: &runtime.StringSchema{Type: "string", MinLength: -1, MaxLength: -1, PatternSource: "^acc_[0-9]+$"}, Seen: 1 << 0},
	{Key: "status", Field: 1, Kind: runtime.KindString, String: &runtime.StringSchema{Type: "string", MinLength: -1, MaxLength: -1, Enum: []string{"open", "closed", "pending"}, Allowed: []any{"open", "closed", "pending"}}, Seen: 1 << 1},
	{Key: "max_results", Field: 2, Kind: runtime.KindInt, Number: &runtime.NumberSchema{Type: "integer", Bounds: &runtime.Bounds{Min: 1.0, HasMin: true, Max: 100.0, HasMax: true}}, Seen: 1 << 2, Default: "20"},
	{Key: "sort_order", Field: 3, Kind: runtime.KindString, String: &runtime.StringSchema{Type: "string", MinLength: -1, MaxLength: -1, Enum: []string{"newest", "oldest"}, Allowed: []any{"newest", "oldest"}}, Seen: 1 << 3, Default: "\"newest\""},
	{Key: "include_archived", Field: 4, Kind: runtime.KindBool, Seen: 1 << 4, Default: "false"},
	{Key: "label_0", Field: 5, Kind: runtime.KindString, String: &runtime.StringSchema{Type: "string", MinLength: -1, MaxLength: 64}},
	{Key: "filter", Field: 6, Kind: runtime.KindStruct, Struct: &runtime.StructDesc{Object: runtime.Object{Names: []string{"amount_range", "created_after"}, Reject: true}, Fields: []runtime.FieldDesc{
		{Key: "created_after", Kind: runtime.KindTime, String: &runtime.StringSchema{Type: "string", MinLength: -1, MaxLength: -1, Format: "date-time"}},
		{Key: "amount_range", Field: 1, Kind: runtime.KindStruct, Struct: &runtime.StructDesc{Object: runtime.Object{Names: []string{"max", "min"}, Reject: true}, Fields: []runtime.FieldDesc{
			{Key: "min", Kind: runtime.KindFloat, Number: &runtime.NumberSchema{Type: "number", Bounds: &runtime.Bounds{Min: 0.0, HasMin: true}}},
			{Key: "max", Field: 1, Kind: runtime.KindFloat, Number: &runtime.NumberSchema{Type: "number", Bounds: &runtime.Bounds{Min: 0.0, HasMin: true}}}}}, Defaults: true}}}, Defaults: true},
	{Key: "tags", Field: 7, Kind: runtime.KindList, Array: &runtime.ArraySchema{Type: "array", MinItems: -1, MaxItems: 10}, Item: &runtime.FieldDesc{Kind: runtime.KindString, String: &runtime.StringSchema{Type: "string", MinLength: -1, MaxLength: 32}}}}}

var synthSeeds = []string{
	`{"account_id":"acc_42","status":"open"}`,
	`{"account_id":"acc_42","status":"closed","max_results":100,"sort_order":"oldest","include_archived":true,"label_0":"x","filter":{"created_after":"2026-01-02T09:00:00Z","amount_range":{"min":0,"max":12.5}},"tags":["a","b"]}`,
	`{"account_id":"acc_","status":"open"}`, `{"account_id":"acc_1","status":"opened"}`, `{"account_id":"acc_1"}`, `{}`,
	`{"account_id":"acc_1","status":"open","max_results":0}`, `{"account_id":"acc_1","status":"open","max_results":2.5}`, `{"account_id":"acc_1","status":"open","max_results":1e19}`,
	`{"account_id":"acc_1","status":"open","sort_order":"random"}`, `{"account_id":"acc_1","status":"open","include_archived":"yes"}`,
	`{"account_id":"acc_1","status":"open","filter":null}`, `{"account_id":"acc_1","status":"open","filter":{"created_after":"2026-12-31T23:59:60Z"}}`,
	`{"account_id":"acc_1","status":"open","filter":{"amount_range":{"min":-1}}}`, `{"account_id":"acc_1","status":"open","filter":{"amount_range":{"min":1e400}}}`,
	`{"account_id":"acc_1","status":"open","filter":{"amount_range":{"min":1},"amount_range":{"max":2}}}`, `{"account_id":"acc_1","status":"open","filter":{"x":1}}`,
	`{"account_id":"acc_1","status":"open","tags":[]}`, `{"account_id":"acc_1","status":"open","tags":["a","b","c","d","e","f","g","h","i","j","k"]}`,
	`{"account_id":"acc_1","status":"open","tags":[1]}`, `{"account_id":"acc_1","status":"open","extra":1}`, `{"account_id":"acc_1","status":"shut","status":"open"}`,
	`{"account_id":"acc_1","status":"open",}`, `[]`, `null`, ``,
}

func synthValidators(tb testing.TB) (data, general runtime.Validator) {
	tb.Helper()
	data, err := runtime.DataPass[synthArgs](&synthDesc)
	if err != nil {
		tb.Fatal(err)
	}
	m := runtime.Meta{Name: "list_invoices", ArgsSchema: json.RawMessage(synthSchema), AdditionalArgs: runtime.AdditionalArgsReject}
	sv, err := runtime.NewSchemaValidator(&m)
	if err != nil {
		tb.Fatal(err)
	}
	return data, runtime.Typed[synthArgs](sv)
}

// compareValidators describes how data differs from general on in, or
// returns "": the same verdict, equal values, and with one error in the
// input the same code, field and message.
func compareValidators(data, general runtime.Validator, in []byte) string {
	want, wantErr := general.Validate(in)
	got, gotErr := data.Validate(in)
	if (wantErr == nil) != (gotErr == nil) {
		return "verdicts differ: general " + describeResult(want, wantErr) + ", data " + describeResult(got, gotErr)
	}
	if wantErr == nil {
		if !reflect.DeepEqual(want, got) {
			return "values differ: general " + describeResult(want, nil) + ", data " + describeResult(got, nil)
		}
		return ""
	}
	if wantErr.Code != gotErr.Code {
		return "codes differ: general " + describeResult(nil, wantErr) + ", data " + describeResult(nil, gotErr)
	}
	field, ok := wantErr.Details["field"]
	if _, several := wantErr.Details["other_errors"]; !ok || several {
		return ""
	}
	if gotErr.Details["field"] != field || gotErr.Message != wantErr.Message {
		return "errors differ: general " + describeResult(nil, wantErr) + ", data " + describeResult(nil, gotErr)
	}
	return ""
}

func describeResult(v any, te *runtime.ToolError) string {
	if te != nil {
		b, _ := json.Marshal(te)
		return "rejects " + string(b)
	}
	b, _ := json.Marshal(v)
	return "accepts " + string(b)
}

func TestDataPassMatchesSchemaValidator(t *testing.T) {
	data, general := synthValidators(t)
	for _, in := range synthSeeds {
		if msg := compareValidators(data, general, []byte(in)); msg != "" {
			t.Errorf("%s: %s", in, msg)
		}
	}
}

func TestDataPassValues(t *testing.T) {
	data, _ := synthValidators(t)
	v, te := data.Validate([]byte(`{"account_id":"acc_7","status":"pending","filter":{"amount_range":{"max":3}},"tags":["x"]}`))
	if te != nil {
		t.Fatal(te)
	}
	three := 3.0
	want := &synthArgs{AccountID: "acc_7", Status: "pending", MaxResults: 20, SortOrder: "newest",
		Filter: &synthFilter{AmountRange: &synthRange{Max: &three}}, Tags: []string{"x"}}
	if !reflect.DeepEqual(v, want) {
		t.Errorf("got %s, want %s", describeResult(v, nil), describeResult(want, nil))
	}
	// Each call gets values of its own.
	v2, _ := data.Validate([]byte(`{"account_id":"acc_7","status":"open","tags":["y"]}`))
	if got := v.(*synthArgs).Tags[0]; got != "x" {
		t.Errorf("a later call changed an earlier value: %q", got)
	}
	if got := v2.(*synthArgs); got.Filter != nil || got.Tags[0] != "y" {
		t.Errorf("second call: %s", describeResult(got, nil))
	}
}

// A descriptor that does not fit its Go type is an error naming the
// field, never a panic.
func TestDataPassDescriptorErrors(t *testing.T) {
	type args struct {
		Name  string
		Count int64
		Ratio float32
		When  time.Time
		Sub   *struct{ X bool }
		List  []int32
		Any   any
	}
	cases := []struct {
		desc string
		f    runtime.FieldDesc
		want string
	}{
		{"field index beyond the struct", runtime.FieldDesc{Key: "x", Field: 9, Kind: runtime.KindString}, `property "x": field 9`},
		{"negative field index", runtime.FieldDesc{Key: "x", Field: -1, Kind: runtime.KindString}, `property "x": field -1`},
		{"string into an int64", runtime.FieldDesc{Key: "count", Field: 1, Kind: runtime.KindString}, "args.Count: a string value does not fit Go type int64"},
		{"integer into a string", runtime.FieldDesc{Key: "name", Kind: runtime.KindInt}, "args.Name: a integer value does not fit Go type string"},
		{"integer into a float32", runtime.FieldDesc{Key: "ratio", Field: 2, Kind: runtime.KindInt}, "args.Ratio"},
		{"boolean into a time", runtime.FieldDesc{Key: "when", Field: 3, Kind: runtime.KindBool}, "args.When"},
		{"time into a string", runtime.FieldDesc{Key: "name", Kind: runtime.KindTime}, "args.Name"},
		{"object into a time", runtime.FieldDesc{Key: "when", Field: 3, Kind: runtime.KindStruct, Struct: &runtime.StructDesc{}}, "args.When"},
		{"object without descriptor", runtime.FieldDesc{Key: "sub", Field: 4, Kind: runtime.KindStruct}, "args.Sub: no descriptor"},
		{"nested field beyond the struct", runtime.FieldDesc{Key: "sub", Field: 4, Kind: runtime.KindStruct, Struct: &runtime.StructDesc{Fields: []runtime.FieldDesc{{Key: "y", Field: 1, Kind: runtime.KindBool}}}}, `args.Sub: property "y": field 1`},
		{"nested kind mismatch", runtime.FieldDesc{Key: "sub", Field: 4, Kind: runtime.KindStruct, Struct: &runtime.StructDesc{Fields: []runtime.FieldDesc{{Key: "x", Kind: runtime.KindFloat}}}}, "args.Sub.X: a number value does not fit Go type bool"},
		{"array into a string", runtime.FieldDesc{Key: "name", Kind: runtime.KindList, Item: &runtime.FieldDesc{Kind: runtime.KindString}}, "args.Name"},
		{"array without item", runtime.FieldDesc{Key: "list", Field: 5, Kind: runtime.KindList}, "args.List: an array without an item descriptor"},
		{"items of another type", runtime.FieldDesc{Key: "list", Field: 5, Kind: runtime.KindList, Item: &runtime.FieldDesc{Kind: runtime.KindString}}, "args.List[]: a string value does not fit Go type int32"},
		{"unknown kind", runtime.FieldDesc{Key: "any", Field: 6, Kind: 99}, "args.Any: unknown kind 99"},
		{"no kind", runtime.FieldDesc{Key: "any", Field: 6}, "args.Any: unknown kind 0"},
		{"pattern Go does not compile", runtime.FieldDesc{Key: "name", Kind: runtime.KindString, String: &runtime.StringSchema{MinLength: -1, MaxLength: -1, PatternSource: "(?<"}}, "args.Name: pattern"},
		{"bad multipleOf", runtime.FieldDesc{Key: "count", Field: 1, Kind: runtime.KindInt, Number: &runtime.NumberSchema{Type: "integer", MultipleOf: "-2"}}, `args.Count: invalid multipleOf "-2"`},
		{"default of another type", runtime.FieldDesc{Key: "count", Field: 1, Kind: runtime.KindInt, Default: `"x"`}, "args.Count: default"},
		{"default beyond int32", runtime.FieldDesc{Key: "list", Field: 5, Kind: runtime.KindList, Item: &runtime.FieldDesc{Kind: runtime.KindInt}, Default: `[1e10]`}, "args.List: default"},
		{"default that is no JSON", runtime.FieldDesc{Key: "when", Field: 3, Kind: runtime.KindTime, Default: `{`}, "args.When: default"},
	}
	for _, c := range cases {
		t.Run(c.desc, func(t *testing.T) {
			d := &runtime.StructDesc{Object: runtime.Object{Names: []string{c.f.Key}}, Fields: []runtime.FieldDesc{c.f}}
			v, err := runtime.DataPass[args](d)
			if err == nil {
				t.Fatalf("DataPass accepted the descriptor: %v", v)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q, want it to contain %q", err, c.want)
			}
		})
	}
	if _, err := runtime.DataPass[string](&runtime.StructDesc{}); err == nil || !strings.Contains(err.Error(), "needs a struct") {
		t.Errorf("DataPass of a string: %v", err)
	}
	if _, err := runtime.DataPass[args](nil); err == nil {
		t.Error("DataPass of no descriptor: no error")
	}
}

func FuzzDataPass(f *testing.F) {
	for _, s := range synthSeeds {
		f.Add([]byte(s))
	}
	data, general := synthValidators(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		if msg := compareValidators(data, general, in); msg != "" {
			t.Fatalf("%s: %s", in, msg)
		}
	})
}

// One validator serves calls on many goroutines (go test -race).
func TestDataPassConcurrent(t *testing.T) {
	data, general := synthValidators(t)
	done := make(chan string)
	for g := range 8 {
		go func() {
			msg := ""
			for i := range 50 {
				in := synthSeeds[(g+i)%len(synthSeeds)]
				if m := compareValidators(data, general, []byte(in)); m != "" {
					msg = in + ": " + m
					break
				}
			}
			done <- msg
		}()
	}
	for range 8 {
		if msg := <-done; msg != "" {
			t.Error(msg)
		}
	}
}

// A descriptor built at run time that holds itself is an error, not an
// endless recursion.
func TestDataPassCyclicDescriptor(t *testing.T) {
	type node struct {
		Next *node
		List []node
	}
	d := &runtime.StructDesc{Object: runtime.Object{Names: []string{"next"}}}
	d.Fields = []runtime.FieldDesc{{Key: "next", Kind: runtime.KindStruct, Struct: d}}
	if _, err := runtime.DataPass[node](d); err == nil || !strings.Contains(err.Error(), "does one hold itself?") {
		t.Errorf("a descriptor holding itself: %v", err)
	}
	item := &runtime.FieldDesc{Kind: runtime.KindStruct}
	l := &runtime.StructDesc{Fields: []runtime.FieldDesc{{Key: "list", Field: 1, Kind: runtime.KindList, Item: item}}}
	item.Struct = l
	if _, err := runtime.DataPass[node](l); err == nil || !strings.Contains(err.Error(), "does one hold itself?") {
		t.Errorf("a descriptor holding itself through its items: %v", err)
	}
}

// DataPassFor, which generated code calls, is DataPass for the type its
// nil pointer names; anything but a pointer is an error.
func TestDataPassFor(t *testing.T) {
	v, err := runtime.DataPassFor((*synthArgs)(nil), &synthDesc)
	if err != nil {
		t.Fatal(err)
	}
	got, te := v.Validate([]byte(`{"account_id": "acc_1", "status": "open"}`))
	if te != nil {
		t.Fatal(te)
	}
	if a, ok := got.(*synthArgs); !ok || a.AccountID != "acc_1" {
		t.Errorf("validated %#v, want *synthArgs for acc_1", got)
	}
	for _, bad := range []any{nil, synthArgs{}, "x"} {
		if _, err := runtime.DataPassFor(bad, &synthDesc); err == nil || !strings.Contains(err.Error(), "no pointer") {
			t.Errorf("DataPassFor(%T): err = %v", bad, err)
		}
	}
}
