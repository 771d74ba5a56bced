package runtime_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/jsonscan"
)

// exactArgs is the Args type toolcat generates for exactSchema.
type exactArgs struct {
	Count *int64   `json:"count,omitempty"`
	Size  *int64   `json:"size,omitempty"`
	Kind  *string  `json:"kind,omitempty"`
	ID    *int64   `json:"id,omitempty"`
	Big   *int64   `json:"big,omitempty"`
	Small *int32   `json:"small,omitempty"`
	Ratio *float64 `json:"ratio,omitempty"`
	Low   *float32 `json:"low,omitempty"`
	Step  *int64   `json:"step,omitempty"`
	Tenth *float64 `json:"tenth,omitempty"`
}

const exactProps = `"count": {"type": "integer", "maximum": 10}, "size": {"type": "integer", "maximum": 10},` +
	` "kind": {"type": "string", "enum": ["a"]}, "id": {"type": "integer"},` +
	` "big": {"type": "integer", "maximum": 9007199254740992}, "small": {"type": "integer", "format": "int32"},` +
	` "ratio": {"type": "number"}, "low": {"type": "number", "format": "float"}, "step": {"type": "integer", "multipleOf": 2}, "tenth": {"type": "number", "maximum": 1}`

var (
	exactObject       = runtime.Object{Names: []string{"big", "count", "id", "kind", "low", "ratio", "size", "small", "step", "tenth"}}
	exactCountSchema  = runtime.NumberSchema{Type: "integer", Bounds: &runtime.Bounds{Max: 10, HasMax: true}}
	exactKindSchema   = runtime.StringSchema{Type: "string", MinLength: -1, MaxLength: -1, Enum: []string{"a"}, Allowed: []any{"a"}}
	exactBigSchema    = runtime.NumberSchema{Type: "integer", Bounds: &runtime.Bounds{Max: 9007199254740992, HasMax: true}}
	exactStepSchema   = runtime.NumberSchema{Type: "integer", Multiple: runtime.NewMultiple("2")}
	exactTenthSchema  = runtime.NumberSchema{Type: "number", Bounds: &runtime.Bounds{Max: 1, HasMax: true}}
	exactIntegerValue = runtime.NumberSchema{Type: "integer"}
)

// scanExactArgs is the scan function toolcat generates for exactArgs.
func scanExactArgs(d *jsonscan.Decoder, at *runtime.Path, out *exactArgs, _ bool, late **runtime.ToolError) *runtime.ToolError {
	*out = exactArgs{}
	ms := exactObject.Members(d, at)
	for ms.Next() {
		var te *runtime.ToolError
		switch string(ms.Key) {
		case "count":
			te = runtime.ReadIntPtr(d, at.Key("count"), &exactCountSchema, &out.Count, late)
		case "size":
			te = runtime.ReadIntPtr(d, at.Key("size"), &exactCountSchema, &out.Size, late)
		case "kind":
			te = runtime.ReadStringPtr(d, at.Key("kind"), &exactKindSchema, &out.Kind)
		case "id":
			te = runtime.ReadIntPtr(d, at.Key("id"), nil, &out.ID, late)
		case "big":
			te = runtime.ReadIntPtr(d, at.Key("big"), &exactBigSchema, &out.Big, late)
		case "small":
			te = runtime.ReadIntPtr(d, at.Key("small"), &exactIntegerValue, &out.Small, late)
		case "ratio":
			te = runtime.ReadFloatPtr(d, at.Key("ratio"), nil, &out.Ratio, late)
		case "low":
			te = runtime.ReadFloatPtr(d, at.Key("low"), nil, &out.Low, late)
		case "step":
			te = runtime.ReadIntPtr(d, at.Key("step"), &exactStepSchema, &out.Step, late)
		case "tenth":
			te = runtime.ReadFloatPtr(d, at.Key("tenth"), &exactTenthSchema, &out.Tenth, late)
		default:
			te = ms.Skip()
		}
		if te != nil {
			return te
		}
	}
	return ms.End(0)
}

// exactValidators are the general validator (Typed) and the one-pass one
// of exactArgs, under the given additionalProperties ("" for none).
func exactValidators(t *testing.T, additional string) (general, generated runtime.Validator) {
	t.Helper()
	schema := `{"type": "object", "properties": {` + exactProps + `}` + additional + `}`
	sv, err := runtime.NewSchemaValidator(&runtime.Meta{Name: "exact", ArgsSchema: json.RawMessage(schema), AdditionalArgs: runtime.AdditionalArgsAllow})
	if err != nil {
		t.Fatal(err)
	}
	return runtime.Typed[exactArgs](sv), runtime.OnePass(&exactObject, scanExactArgs)
}

func ptr[T any](v T) *T { return &v }

// The probes of the issue: members named in another case or folding to a
// property in Unicode (ſ folds to s, the Kelvin sign to k) fill no field,
// under any open object; integers are exact however they are written;
// numbers beyond the Go type are refused saying what the type holds, and
// no valid JSON is called invalid. Both validators agree on each.
func TestExactProbes(t *testing.T) {
	long := "1" + strings.Repeat("0", 100000)
	for _, c := range []struct {
		in   string
		want exactArgs // when msg is ""
		msg  string    // the error's message, or its start
	}{
		{in: `{"Count": 1000}`},
		{in: `{"COUNT": 1000, "count": 3}`, want: exactArgs{Count: ptr[int64](3)}},
		{in: `{"ſize": 1000}`},
		{in: `{"\u017fize": 1000}`},
		{in: `{"\u212aind": 7}`},
		{in: `{"Kind": 7, "kind": "a"}`, want: exactArgs{Kind: ptr("a")}},
		{in: `{"id": 9007199254740993}`, want: exactArgs{ID: ptr[int64](9007199254740993)}},
		{in: `{"id": 9007199254740993.0}`, want: exactArgs{ID: ptr[int64](9007199254740993)}},
		{in: `{"id": -9007199254740993}`, want: exactArgs{ID: ptr[int64](-9007199254740993)}},
		{in: `{"id": 9223372036854775807}`, want: exactArgs{ID: ptr[int64](9223372036854775807)}},
		{in: `{"id": -9223372036854775808}`, want: exactArgs{ID: ptr[int64](-9223372036854775808)}},
		{in: `{"id": -9.223372036854775808e18}`, want: exactArgs{ID: ptr[int64](-9223372036854775808)}},
		{in: `{"id": 1e3}`, want: exactArgs{ID: ptr[int64](1000)}},
		{in: `{"id": 1.5e1}`, want: exactArgs{ID: ptr[int64](15)}},
		{in: `{"id": 1E+2}`, want: exactArgs{ID: ptr[int64](100)}},
		{in: `{"id": -0}`, want: exactArgs{ID: ptr[int64](0)}},
		{in: `{"id": 9223372036854775808}`, msg: "id=9223372036854775808 does not fit the tool's type int64, which holds integers from -9223372036854775808 to 9223372036854775807"},
		{in: `{"id": -9223372036854775809}`, msg: "id=-9223372036854775809 does not fit the tool's type int64"},
		{in: `{"id": 1e400}`, msg: "id=1e400 does not fit the tool's type int64"},
		{in: `{"id": 0.1e-400}`, msg: "id must be an integer, got number"},
		{in: `{"id": 2.5}`, msg: "id must be an integer, got number"},
		{in: `{"small": 2147483648}`, msg: "small=2147483648 does not fit the tool's type int32, which holds integers from -2147483648 to 2147483647"},
		{in: `{"small": -2147483648.0}`, want: exactArgs{Small: ptr[int32](-2147483648)}},
		{in: `{"big": 9007199254740992}`, want: exactArgs{Big: ptr[int64](9007199254740992)}},
		{in: `{"big": 9007199254740993}`, msg: "big=9007199254740993 is above the maximum 9007199254740992"},
		{in: `{"big": 9007199254740993.0}`, msg: "big=9007199254740993 is above the maximum 9007199254740992"},
		{in: `{"count": 1e400}`, msg: "count=1e400 is above the maximum 10"},
		{in: `{"step": 9007199254740993}`, msg: "step=9007199254740993 is not a multiple of 2"},
		{in: `{"step": 9223372036854775809}`, msg: "step=9223372036854775809 is not a multiple of 2"},
		{in: `{"step": 9223372036854775810}`, msg: "step=9223372036854775810 does not fit the tool's type int64"},
		{in: `{"ratio": 1e400}`, msg: "ratio=1e400 does not fit the tool's type float64, which holds numbers of magnitude up to about 1.8e308"},
		{in: `{"ratio": -1e400}`, msg: "ratio=-1e400 does not fit the tool's type float64"},
		{in: `{"ratio": 0.1e-400}`, want: exactArgs{Ratio: ptr(0.0)}},
		{in: `{"low": 1e39}`, msg: "low=1e+39 does not fit the tool's type float32, which holds numbers of magnitude up to about 3.4e38"},
		{in: `{"low": 1e400}`, msg: "low=1e400 does not fit the tool's type float32"},
		{in: `{"low": 0.5}`, want: exactArgs{Low: ptr[float32](0.5)}},
		{in: `{"ratio": 9007199254740993.0}`, want: exactArgs{Ratio: ptr(9007199254740992.0)}},
		{in: `{"tenth": 1.0000000000000000001}`, msg: "tenth=1.0000000000000000001 is above the maximum 1"},
		{in: `{"tenth": 0.99999999999999999999}`, want: exactArgs{Tenth: ptr(1.0)}},
		{in: `{"other": 1e400}`},
		{in: `{"other": [1, {"x": 1e400}]}`},
		{in: `{"id": ` + long + `}`, msg: "id=10000000000000000000... (100001 bytes) is longer than the 1000 bytes a number may have"},
		{in: `{"other": [` + long + `]}`, msg: "other[0]=10000000000000000000... (100001 bytes) is longer"},
		{in: `{"id": 1e1001}`, msg: "id=1e1001 has an exponent beyond ±1000"},
		{in: `{"id": ` + strings.Repeat("9", 60) + `}`, msg: "id=99999999999999999999... (60 bytes) does not fit the tool's type int64"},
		{in: `{"count": ` + strings.Repeat("9", 60) + `}`, msg: "count=99999999999999999999... (60 bytes) is above the maximum 10"},
		{in: `{"kind": ` + strings.Repeat("9", 60) + `}`, msg: "kind must be a string, got integer"},
		{in: `{"id": 0.` + strings.Repeat("3", 60) + `}`, msg: "id must be an integer, got number"},
		{in: `{"kind": 0.` + strings.Repeat("3", 60) + `}`, msg: "kind must be a string, got number"},
		{in: `{"tenth": 1.` + strings.Repeat("3", 60) + `}`, msg: "tenth=1.333333333333333333... (62 bytes) is above the maximum 1"},
		{in: `{"step": 1` + strings.Repeat("0", 60) + `1}`, msg: "step=10000000000000000000... (62 bytes) is not a multiple of 2"},
		{in: `{"ratio": 1e-99999999999}`, msg: "ratio=1e-99999999999 has an exponent beyond ±1000"},
		{in: `{"kind": 5, "id": 1e1001}`, msg: "id=1e1001 has an exponent beyond ±1000"},
		{in: `{"id": 1e400, "kind": 5}`, msg: "kind must be a string, got integer"},
		{in: `{"kind": [1e400]}`, msg: "kind must be a string, got array"},
		{in: `{"kind": 1e700}`, msg: "kind must be a string, got integer"},
		{in: `{"id": "1e400"}`, msg: "id must be an integer, got string"},
		{in: `{"id": 1e400,}`, msg: "arguments are not valid JSON"},
		{in: `{"id": 1e400, "id": 9007199254740993.0}`, want: exactArgs{ID: ptr[int64](9007199254740993)}},
		{in: `{"id": 1, "id": 1e1001}`, msg: "id=1e1001 has an exponent beyond ±1000"},
		{in: `{"Count": 1e400, "COUNT": 1e1000}`},
		{in: `{"id": 1e400, "small": 2147483648}`, msg: "id=1e400 does not fit the tool's type int64"},
	} {
		for _, additional := range []string{"", `, "additionalProperties": true`, `, "additionalProperties": {"type": ["integer", "array", "number"]}`} {
			general, generated := exactValidators(t, additional)
			for name, v := range map[string]runtime.Validator{"general": general, "generated": generated} {
				desc := fmt.Sprintf("%s, %s%s", name, c.in[:min(len(c.in), 60)], additional)
				start := time.Now()
				got, te := v.Validate([]byte(c.in))
				if el := time.Since(start); el > time.Second {
					t.Errorf("%s: took %v", desc, el)
				}
				switch {
				case c.msg == "" && te != nil:
					t.Errorf("%s: %v", desc, te)
				case c.msg == "" && !reflect.DeepEqual(got, &c.want):
					b, _ := json.Marshal(got)
					t.Errorf("%s: got %s", desc, b)
				case c.msg != "" && (te == nil || !strings.HasPrefix(te.Message, c.msg)):
					t.Errorf("%s: got %v, want the error %q", desc, te, c.msg)
				case te != nil:
					// A host decodes the envelope with float64 numbers.
					b, err := json.Marshal(te)
					var back any
					if err == nil {
						err = json.Unmarshal(b, &back)
					}
					if err != nil {
						t.Errorf("%s: the error does not encode and decode: %v", desc, err)
					}
				}
			}
		}
	}
}

// The general validator on its own returns float64 numbers, as
// encoding/json decodes them, checked as written.
func TestSchemaValidatorNumbers(t *testing.T) {
	sv, err := runtime.NewSchemaValidator(&runtime.Meta{Name: "n", AdditionalArgs: runtime.AdditionalArgsAllow,
		ArgsSchema: json.RawMessage(`{"type": "object", "properties": {"n": {"type": "integer", "maximum": 9007199254740992, "default": 3}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	got, te := sv.Validate([]byte(`{"m": [1.5, 2]}`))
	if te != nil || !reflect.DeepEqual(got, map[string]any{"m": []any{1.5, 2.0}, "n": 3.0}) {
		t.Errorf("got %#v, %v", got, te)
	}
	if _, te := sv.Validate([]byte(`{"n": 9007199254740993}`)); te == nil || te.Message != "n=9007199254740993 is above the maximum 9007199254740992" {
		t.Errorf("beyond the maximum by one: %v", te)
	}
	// A bound a float64 rounds, as written.
	sv2, err := runtime.NewSchemaValidator(&runtime.Meta{Name: "b", ArgsSchema: json.RawMessage(`{"type": "object", "properties": {"n": {"type": "integer", "maximum": 9007199254740993}, "x": {"type": "number", "maximum": 0.1, "exclusiveMinimum": 0.099999999999999999999}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		`{"n": 9007199254740994}`:        "n=9007199254740994 is above the maximum 9007199254740993",
		`{"x": 0.10000000000000000001}`:  "x=0.10000000000000000001 is above the maximum 0.1",
		`{"x": 0.099999999999999999999}`: "x=0.099999999999999999999 must be greater than 0.099999999999999999999",
		`{"x": 0.09999999999999999999}`:  "x=0.09999999999999999999 is below the minimum 0.099999999999999999999",
	} {
		if _, te := sv2.Validate([]byte(in)); te == nil || te.Message != want {
			t.Errorf("%s: %v, want %q", in, te, want)
		}
	}
	for _, in := range []string{`{"n": 9007199254740993}`, `{"x": 0.1}`, `{"x": 0.0999999999999999999999}`} {
		if _, te := sv2.Validate([]byte(in)); te != nil {
			t.Errorf("%s: %v", in, te)
		}
	}
	_, te = sv.Validate([]byte(`{"m": 1e400}`))
	if te == nil || te.Details["field"] != "/m" || !strings.HasPrefix(te.Message, "m=1e400 does not fit the tool's type float64") {
		t.Errorf("1e400: %v", te)
	}
}

// A number of a million digits costs both validators linear time: well
// under a second (quadratic parsing, as math/big's, takes minutes).
func TestLongNumberLinear(t *testing.T) {
	general, generated := exactValidators(t, `, "additionalProperties": true`)
	digits := strings.Repeat("7", 1_000_000)
	for _, in := range []string{`{"id": ` + digits + `}`, `{"other": [1, -` + digits + `]}`, `{"ratio": 0.` + digits + `}`, `{"other": 1e` + digits + `}`} {
		for name, v := range map[string]runtime.Validator{"general": general, "generated": generated} {
			start := time.Now()
			_, te := v.Validate([]byte(in))
			if el := time.Since(start); el > time.Second {
				t.Errorf("%s, %.20s: %v", name, in, el)
			}
			if te == nil || !strings.Contains(te.Message, "(1000") || len(te.Message) > 200 {
				t.Errorf("%s, %.20s: %v", name, in, te)
			}
		}
	}
}

// Bounds show every digit, as the schema writes them: the float64
// 4611686018427387904 (2^62) is not 4611686018427388000.
func TestBoundDigits(t *testing.T) {
	b := runtime.Bounds{Max: 1 << 62, HasMax: true}
	if te := runtime.ArgIntOutOfRange("/n", 1<<62+1, b); te.Message != "n=4611686018427387905 is above the maximum 4611686018427387904" {
		t.Errorf("got %q", te.Message)
	}
	if te := runtime.ArgOutOfRange("/n", 1e19, b); te.Message != "n=1e+19 is above the maximum 4611686018427387904" {
		t.Errorf("got %q", te.Message)
	}
}
