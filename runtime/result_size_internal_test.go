package runtime

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

type sizeInner struct {
	Text string `json:"text"`
	N    int
}

type sizeOther struct {
	Text string `json:"text"`
}

type sizeTagged struct {
	Text string `json:"text"`
}

type sizeText struct{ s string }

func (t sizeText) MarshalText() ([]byte, error) { return []byte(t.s), nil }

type sizeMarshaler struct{ s string }

func (m *sizeMarshaler) MarshalJSON() ([]byte, error) { return json.Marshal(m.s) }

type sizeZero struct{ v int }

func (z sizeZero) IsZero() bool { return z.v == 7 }

// TestJSONSizeAtLeast: the size bound never passes the real size of the
// JSON (a result that fits must never be refused), and it is exact where
// the encoding is known.
func TestJSONSizeAtLeast(t *testing.T) {
	s := "a \"quoted\" \\ line\n\t\x01 é ☃ \u2028 \xff <b>&"
	n := json.Number("12.5e3")
	for _, c := range []struct {
		desc  string
		v     any
		exact bool
	}{
		{"nil", nil, true},
		{"a string with escapes", s, true},
		{"invalid UTF-8 only", "\xff\xfe\xfd", true},
		{"bools and ints", []any{true, false, 0, -12, int8(-128), uint64(math.MaxUint64)}, true},
		{"floats", []float64{0, 1.5, 1e21, 1e-7, -3.25}, false},
		{"bytes", []byte("hello, world"), true},
		{"a byte array", [3]byte{1, 2, 3}, true},
		{"nil slice and map", struct {
			A []int
			B map[string]int
		}{}, true},
		{"map with int keys", map[int]string{1: "a", -20: "b"}, true},
		{"map with text keys", map[sizeText]int{{"k"}: 1}, false},
		{"struct with tags", struct {
			A    string `json:"a,omitempty"`
			B    string `json:"b,omitempty"`
			C    int    `json:"-"`
			D    int    `json:"-,"`
			E    int    `json:",omitempty"`
			F    *int   `json:"f"`
			G    string `json:"g,string"`
			h    int
			Bad  int       `json:"a\"b"`
			Zero sizeZero  `json:"zero,omitzero"`
			Z2   sizeZero  `json:"z2,omitzero"`
			T    time.Time `json:"t"`
		}{A: "x", D: 4, Zero: sizeZero{7}, Z2: sizeZero{3}}, false},
		{"embedded structs", struct {
			sizeInner
			*sizeOther
			Name string `json:"name"`
		}{sizeInner: sizeInner{Text: "inner", N: 3}, sizeOther: &sizeOther{Text: "other"}, Name: "n"}, true},
		{"an embedded nil pointer", struct {
			*sizeInner
			Name string
		}{Name: "n"}, true},
		{"a tagged field beats an untagged one", struct {
			sizeTagged
			sizeOther2
		}{sizeTagged{"t"}, sizeOther2{"o"}}, true},
		{"a shallow field hides a deep one", struct {
			sizeInner
			Text string `json:"text"`
		}{sizeInner{Text: "deep"}, "shallow"}, true},
		{"marshalers", []any{&sizeMarshaler{"abc"}, sizeText{"t"}, (*sizeMarshaler)(nil), n, json.RawMessage(" { \"a\" : 1 } ")}, false},
		{"nested any", map[string]any{"a": []any{map[string]any{"b": "c"}, nil, 1.5, "d"}}, false},
		{"pointer to pointer", func() any { x := "v"; p := &x; return &p }(), true},
	} {
		want, err := marshalNoEscape(c.v) // json.Marshal only escapes more
		if err != nil {
			t.Fatalf("%s: %v", c.desc, err)
		}
		got, over := jsonSizeAtLeast(c.v, len(want))
		if over || got > len(want) {
			t.Errorf("%s: bound %d (over %v), but the JSON has %d bytes: %s", c.desc, got, over, len(want), want)
		}
		if c.exact && got != len(want) {
			t.Errorf("%s: bound %d, want exactly %d: %s", c.desc, got, len(want), want)
		}
		if len(want) > 4 {
			if _, over := jsonSizeAtLeast(c.v, 1); c.exact && !over {
				t.Errorf("%s: not over a limit of 1", c.desc)
			}
		}
	}
	// It stops at the limit: a long string is not scanned to its end.
	big := strings.Repeat("\x01", 1<<20)
	if n, over := jsonSizeAtLeast(map[string]string{"a": big}, 100); !over || n < 100 {
		t.Errorf("a long string: %d, %v", n, over)
	}
}

type sizeOther2 struct {
	Text string
}
