package runtime

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

type encNode struct {
	Name string   `json:"name"`
	Next *encNode `json:"next,omitempty"`
}

type encTextPtr struct{ s string }

func (t *encTextPtr) MarshalText() ([]byte, error) { return []byte("<" + t.s + ">"), nil }

type encHolder struct {
	M  sizeMarshaler // MarshalJSON on the pointer: called when addressable
	T  encTextPtr    // MarshalText on the pointer, likewise
	V  sizeText      // MarshalText on the value: always
	PM *sizeMarshaler
}

type encByte uint8

// encNilOK has a MarshalJSON that answers for a nil pointer too.
type encNilOK struct{ s string }

func (p *encNilOK) MarshalJSON() ([]byte, error) {
	if p == nil {
		return []byte(`"nil"`), nil
	}
	return json.Marshal(p.s)
}

type encIntKey int

func (k encIntKey) MarshalText() ([]byte, error) { return []byte("k" + strconv.Itoa(int(k))), nil }

type encStrKey string

func (k encStrKey) MarshalText() ([]byte, error) { return []byte("never"), nil }

func (b encByte) MarshalJSON() ([]byte, error) { return []byte(`"b"`), nil }

type encOmit struct {
	A string            `json:"a,omitempty"`
	B int               `json:"b,omitempty"`
	C *int              `json:"c,omitempty"`
	D []int             `json:"d,omitempty"`
	E map[string]int    `json:"e,omitempty"`
	F any               `json:"f,omitempty"`
	G bool              `json:"g,omitempty"`
	H float64           `json:"h,omitempty"`
	I struct{ X int }   `json:"i,omitzero"`
	J [2]int            `json:"j,omitzero"`
	K time.Time         `json:"k,omitzero"` // IsZero: encoding/json's own way
	L map[string]string `json:"l,omitzero"`
}

type encQuoted struct {
	N int    `json:"n,string"`
	S string `json:"s,string"`
	B bool   `json:",string"`
}

type encUnexported struct {
	sizeInner
	*sizeOther
	hidden int
	Shown  int
}

type encFunc struct {
	F func()
}

func encDeep(n int) *encNode {
	var head *encNode
	for i := range n {
		head = &encNode{Name: strings.Repeat("n", i%3), Next: head}
	}
	return head
}

// encodeCases are values of every shape the result encoder writes itself
// or hands to encoding/json.
func encodeCases() []struct {
	desc string
	v    any
} {
	one := 1
	str := "a \"quoted\" \\ line\n\t\x01\x1f é ☃ \u2028\u2029 \xff\xfe <b>&amp; 😀 \x7f"
	cyclic := &encNode{Name: "loop"}
	cyclic.Next = cyclic
	return []struct {
		desc string
		v    any
	}{
		{"nil", nil},
		{"true", true},
		{"ints", []any{0, -1, int8(-128), int16(32767), int32(-5), int64(math.MinInt64), uint(7), uint8(255), uint16(9), uint32(1 << 31), uint64(math.MaxUint64), uintptr(3)}},
		{"floats", []float64{0, math.Copysign(0, -1), 1, -1.5, 1e20, 1e21, 1e-6, 1e-7, 123.456, 5e-324, math.MaxFloat64, 1.0000000000000002}},
		{"float32s", []float32{0, 0.1, 1e-7, 1e21, 3.4e38, 16777216}},
		{"a string with escapes", str},
		{"strings", []string{"", "plain", "\u0000", "\\", "\"", "<>&", "\xe2\x80", "\xed\xa0\x80"}},
		{"bytes", []byte("hello, <world>")},
		{"nil bytes", []byte(nil)},
		{"empty bytes", []byte{}},
		{"a byte array", [3]byte{1, 2, 3}},
		{"bytes with MarshalJSON", []encByte{1, 2}},
		{"nil slice and map", struct {
			A []int
			B map[string]int
		}{}},
		{"empty slice", []int{}},
		{"maps", map[string]any{"b": 1, "a": []any{"x", nil}, "<c>": map[int]string{2: "two", -1: "m"}}},
		{"map with text keys", map[sizeText]int{{"k"}: 1, {"a"}: 2}},
		{"map with integer keys that have MarshalText", map[encIntKey]string{3: "c", 10: "x"}},
		{"map with string keys that have MarshalText", map[encStrKey]int{"b": 1, "a": 2}},
		{"map keys sorted as strings", map[int]int{10: 1, 9: 2, -3: 3}},
		{"map with uint8 keys", map[uint8]bool{200: true, 7: false}},
		{"map keys needing escapes", map[string]int{"<a>": 1, "é": 2, "\n\"": 3, "\xff": 4}},
		{"map values with pointer-receiver methods", map[string]encHolder{"h": {M: sizeMarshaler{"m"}, T: encTextPtr{"t"}}}},
		{"nil and empty maps in a struct", struct {
			A map[string]int
			B map[string]int
		}{B: map[string]int{}}},
		{"omitempty and omitzero, empty", encOmit{}},
		{"omitempty and omitzero, set", encOmit{A: "a", B: 1, C: &one, D: []int{1}, E: map[string]int{"x": 1}, F: 0, G: true, H: 0.5,
			I: struct{ X int }{1}, J: [2]int{0, 1}, K: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), L: map[string]string{}}},
		{"string option", encQuoted{N: 5, S: "s", B: true}},
		{"struct with tags", struct {
			A   string `json:"a,omitempty"`
			C   int    `json:"-"`
			D   int    `json:"-,"`
			E   int    `json:",omitempty"`
			Bad int    `json:"a\"b"`
			Uni int    `json:"ünï"`
			h   int
		}{A: "x", D: 4, h: 1}},
		{"embedded structs", struct {
			sizeInner
			*sizeOther
			Name string `json:"name"`
		}{sizeInner: sizeInner{Text: "inner", N: 3}, sizeOther: &sizeOther{Text: "other"}, Name: "n"}},
		{"an embedded nil pointer", struct {
			*sizeInner
			Name string
		}{Name: "n"}},
		{"unexported embedded", encUnexported{sizeInner: sizeInner{Text: "t", N: 1}, sizeOther: &sizeOther{"o"}, hidden: 2, Shown: 3}},
		{"a tagged field beats an untagged one", struct {
			sizeTagged
			sizeOther2
		}{sizeTagged{"t"}, sizeOther2{"o"}}},
		{"a shallow field hides a deep one", struct {
			sizeInner
			Text string `json:"text"`
		}{sizeInner{Text: "deep"}, "shallow"}},
		{"marshalers", []any{&sizeMarshaler{"abc"}, sizeText{"t"}, (*sizeMarshaler)(nil), json.Number("12.5e3"), json.RawMessage(" { \"a\" : \"<1>\" } ")}},
		{"pointer-receiver methods, by value", encHolder{M: sizeMarshaler{"m"}, T: encTextPtr{"t"}, V: sizeText{"v"}}},
		{"pointer-receiver methods, addressable", &encHolder{M: sizeMarshaler{"m"}, T: encTextPtr{"t"}, V: sizeText{"v"}, PM: &sizeMarshaler{"p"}}},
		{"pointer-receiver methods in a slice", []encHolder{{M: sizeMarshaler{"m"}}}},
		{"pointer-receiver methods in an array", [1]encHolder{{M: sizeMarshaler{"m"}}}},
		{"pointer-receiver methods in an addressable array", &[1]encHolder{{M: sizeMarshaler{"m"}}}},
		{"a nil pointer in a field of type json.Marshaler", struct{ M json.Marshaler }{(*encNilOK)(nil)}},
		{"a nil pointer in an addressable field of type json.Marshaler", &struct{ M json.Marshaler }{(*encNilOK)(nil)}},
		{"nil pointers in a map and a slice of json.Marshaler", []any{map[string]json.Marshaler{"a": (*encNilOK)(nil), "b": nil}, []json.Marshaler{(*encNilOK)(nil), &encNilOK{"x"}}}},
		{"a nil pointer with MarshalJSON in an any", []any{(*encNilOK)(nil)}},
		{"time", []any{time.Date(2026, 12, 2, 13, 0, 0, 5, time.UTC), (*time.Time)(nil)}},
		{"nested any", map[string]any{"a": []any{map[string]any{"b": "c"}, nil, 1.5, "d", []int{1}}}},
		{"pointer to pointer", func() any { x := "v"; p := &x; return &p }()},
		{"a list", encDeep(5)},
		{"a list deeper than the encoder nests", encDeep(3 * maxEncodeDepth)},
		{"interfaces holding pointers", []any{&one, &encNode{Name: "x"}, []any{&[]string{"a"}}}},
		{"anonymous struct", struct {
			X struct {
				Y []struct{ Z string }
			}
		}{}},
	}
}

// TestEncodeJSONMatchesEncodingJSON: the result encoder writes what
// encoding/json writes, byte for byte, with HTML escaping and without, and
// fails where it fails.
func TestEncodeJSONMatchesEncodingJSON(t *testing.T) {
	cyclic := &encNode{Name: "loop"}
	cyclic.Next = cyclic
	cyclicMap := map[string]any{}
	cyclicMap["self"] = cyclicMap
	cases := encodeCases()
	for _, c := range []struct {
		desc string
		v    any
	}{
		{"NaN", math.NaN()},
		{"infinity in a struct", struct{ F float32 }{float32(math.Inf(-1))}},
		{"a channel", []any{make(chan int)}},
		{"a function field", encFunc{F: func() {}}},
		{"a cycle", cyclic},
		{"a map holding itself", cyclicMap},
		{"a complex number", complex(1, 2)},
	} {
		cases = append(cases, c)
	}
	for _, c := range cases {
		for _, esc := range []bool{false, true} {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(esc)
			wantErr := enc.Encode(c.v)
			want := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
			got, n, over, err := encodeJSON("<", c.v, ">", 0, esc, nil)
			switch {
			case (err != nil) != (wantErr != nil):
				t.Errorf("%s (escapeHTML %v): error %v, encoding/json's %v", c.desc, esc, err, wantErr)
			case err != nil:
			case over || n != len(want) || string(got) != "<"+string(want)+">":
				t.Errorf("%s (escapeHTML %v):\n got %d %v %.300s\nwant %.300s", c.desc, esc, n, over, got, want)
			}
		}
	}
}

// TestEncodeJSONCap: the encoder reports over exactly when the JSON is
// longer than the cap, with a bound that never passes the real size.
func TestEncodeJSONCap(t *testing.T) {
	for _, c := range encodeCases() {
		want, err := marshalNoEscape(c.v)
		if err != nil {
			t.Fatalf("%s: %v", c.desc, err)
		}
		for _, limit := range []int{1, len(want) / 2, len(want) - 1, len(want), len(want) + 1} {
			if limit <= 0 {
				continue
			}
			got, n, over, err := encodeJSON(envelopeHead, c.v, "}", limit, false, nil)
			switch {
			case err != nil:
				t.Errorf("%s, cap %d: %v", c.desc, limit, err)
			case over != (len(want) > limit):
				t.Errorf("%s, cap %d: over %v, but the JSON has %d bytes", c.desc, limit, over, len(want))
			case over && (n > len(want) || n <= limit):
				t.Errorf("%s, cap %d: bound %d, the JSON has %d bytes", c.desc, limit, n, len(want))
			case !over && (n != len(want) || string(got) != envelopeHead+string(want)+"}"):
				t.Errorf("%s, cap %d: %d %s", c.desc, limit, n, got)
			}
		}
	}
	// A long string above the cap is measured, not written.
	big := strings.Repeat("\x01", 1<<20)
	if _, n, over, _ := encodeJSON("", map[string]any{"a": []string{big}}, "", 100, false, nil); !over || n < 100 {
		t.Errorf("a long string in a map: %d, %v", n, over)
	}
	if _, n, over, _ := encodeJSON("", &struct{ A []string }{[]string{"x", big}}, "", 100, false, nil); !over || n != len(`{"A":["x",`)+6*len(big)+2 {
		t.Errorf("a long string: %d, %v", n, over)
	}
}

// FuzzEncodeJSON checks the result encoder against encoding/json on
// strings, numbers and nesting drawn by the fuzzer.
func FuzzEncodeJSON(f *testing.F) {
	f.Add("a\"b\\<c>&\u2028\xff", 1.5, int64(-3), uint8(2), true)
	f.Add("", 1e21, int64(0), uint8(0), false)
	f.Add("é☃", 1e-7, int64(math.MaxInt64), uint8(7), true)
	f.Fuzz(func(t *testing.T, s string, x float64, i int64, depth uint8, esc bool) {
		type item struct {
			S  string   `json:"s,omitempty"`
			F  float64  `json:"f"`
			F4 float32  `json:"f4"`
			I  int64    `json:"i,omitempty"`
			B  []byte   `json:"b"`
			L  []string `json:"l"`
			A  any      `json:"a"`
			P  *item    `json:"p,omitempty"`
		}
		v := &item{S: s, F: x, F4: float32(x), I: i, B: []byte(s), L: []string{s, s + s}, A: map[string]any{s: x}}
		for range depth % 8 {
			v = &item{S: s, P: v, A: []any{s, i}}
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(esc)
		wantErr := enc.Encode(v)
		got, _, _, err := encodeJSON("", v, "", 0, esc, nil)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("error %v, encoding/json's %v", err, wantErr)
		}
		if want := bytes.TrimSuffix(buf.Bytes(), []byte("\n")); err == nil && !bytes.Equal(got, want) {
			t.Fatalf("\n got %s\nwant %s", got, want)
		}
	})
}
