package runtime_test

import (
	"strings"
	"testing"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/jsonscan"
)

func TestPath(t *testing.T) {
	var root *runtime.Path
	if got := root.String(); got != "" {
		t.Errorf("root: %q", got)
	}
	a := root.Key("a/b")
	i := a.Index(2)
	c := i.Key("c~d")
	for _, tc := range []struct{ desc, got, want string }{
		{"key", a.String(), "/a~1b"},
		{"index", i.String(), "/a~1b/2"},
		{"nested key", c.String(), "/a~1b/2/c~0d"},
		{"field", root.Field("query"), "/query"},
		{"elem", a.Elem(3), "/a~1b/3"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %q, want %q", tc.desc, tc.got, tc.want)
		}
	}
}

func decodeErr(t *testing.T, raw string, read func(d *jsonscan.Decoder) error) error {
	t.Helper()
	var d jsonscan.Decoder
	d.Reset([]byte(raw))
	err := read(&d)
	if err == nil {
		t.Fatalf("%s: no error", raw)
	}
	return err
}

func TestArgRead(t *testing.T) {
	for _, tc := range []struct {
		desc, raw, want, msg string
	}{
		{"integer for a string", `3`, "string", "x must be a string, got integer"},
		{"number for a string", `2.5`, "string", "x must be a string, got number"},
		{"fraction for an integer", `2.5`, "integer", "x must be an integer, got number"},
		{"null", `null`, "null or integer", "x must be a null or integer, got null"},
	} {
		err := decodeErr(t, tc.raw, func(d *jsonscan.Decoder) error {
			if tc.want == "string" {
				_, err := d.String()
				return err
			}
			_, err := d.Int64()
			return err
		})
		te := runtime.ArgRead("/x", tc.want, err)
		if te.Message != tc.msg || te.Details["field"] != "/x" {
			t.Errorf("%s: %q %v", tc.desc, te.Message, te.Details)
		}
	}
}

func TestArgInt(t *testing.T) {
	b := runtime.Bounds{Max: 100, HasMax: true}
	int64Err := func(raw string) error {
		return decodeErr(t, raw, func(d *jsonscan.Decoder) error { _, err := d.Int64(); return err })
	}
	var late *runtime.ToolError
	if te := runtime.ArgInt("/n", "integer", int64Err(`1e20`), &b, nil, &late); te == nil || !strings.Contains(te.Message, "above the maximum") {
		t.Errorf("beyond int64 and above the bound: %v", te)
	}
	if te := runtime.ArgInt("/n", "integer", int64Err(`1e20`), nil, runtime.NewMultiple("3"), &late); te == nil || !strings.Contains(te.Message, "not a multiple of 3") {
		t.Errorf("beyond int64, not a multiple: %v", te)
	}
	if te := runtime.ArgInt("/n", "integer", int64Err(`1e20`), nil, nil, &late); te != nil || late == nil {
		t.Errorf("beyond int64 only: reported %v, late %v", te, late)
	}
}

func TestMultiple(t *testing.T) {
	m := runtime.NewMultiple("0.01")
	for _, tc := range []struct {
		f    float64
		want bool
	}{{0.03, true}, {1.1, true}, {0.005, false}, {-0.07, true}} {
		if got := m.Float(tc.f); got != tc.want {
			t.Errorf("%v multiple of 0.01: %v", tc.f, got)
		}
	}
	five := runtime.NewMultiple("5")
	// Exactly, beyond 2^53 too: 2^60 is not a multiple of 5, though its
	// nearest float64 written shortest (1.152921504606847e+18) is.
	if !five.Int(-35) || five.Int(33) || five.Int(1<<60) || !five.Int(5<<58) || five.Int(1<<53+1) || !five.Int(-9223372036854775805) {
		t.Error("multiples of 5")
	}
	two := runtime.NewMultiple("2")
	if two.Int(1<<53+1) || !two.Int(-1<<63) {
		t.Error("multiples of 2")
	}
	if te := runtime.ArgNotMultiple("/n", 33, five); te.Message != "n=33 is not a multiple of 5" {
		t.Errorf("message: %q", te.Message)
	}
}

func TestDuplicate(t *testing.T) {
	if j, i, ok := runtime.Duplicate([]int{1, 2, 3, 2, 1}); !ok || j != 1 || i != 3 {
		t.Errorf("small: %d %d %v", j, i, ok)
	}
	long := make([]int, 30)
	for i := range long {
		long[i] = i
	}
	long[25] = 7
	if j, i, ok := runtime.Duplicate(long); !ok || j != 7 || i != 25 {
		t.Errorf("long: %d %d %v", j, i, ok)
	}
	if _, _, ok := runtime.Duplicate([]string{"a", "b"}); ok {
		t.Error("no duplicates")
	}
	if te := runtime.ArgNotUnique("/tags", 0, 1, []string{"a", "a"}); te.Message != "tags: items at 0 and 1 are equal" {
		t.Errorf("message: %q", te.Message)
	}
}

func TestFormatChecker(t *testing.T) {
	email := runtime.FormatChecker("email")
	if !email("a@b.example") || email("nobody") {
		t.Error("email")
	}
	dt := runtime.FormatChecker("date-time")
	if !dt("2026-01-02T09:00:00Z") || dt("2026-01-02") {
		t.Error("date-time")
	}
	if !runtime.FormatChecker("no-such-format")("anything") {
		t.Error("unknown formats accept any string")
	}
}

func TestFloat32(t *testing.T) {
	if v, ok := runtime.Float32(0.1); !ok || v != float32(0.1) {
		t.Errorf("0.1: %v %v", v, ok)
	}
	if _, ok := runtime.Float32(1e39); ok {
		t.Error("1e39 fits a float32")
	}
}
