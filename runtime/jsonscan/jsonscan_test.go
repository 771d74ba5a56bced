package jsonscan_test

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"unsafe"

	"github.com/toolcat/toolcat/runtime/jsonscan"
)

func TestString(t *testing.T) {
	tests := []struct {
		desc, in string
	}{
		{desc: "plain", in: `"hello"`},
		{desc: "empty", in: `""`},
		{desc: "escapes", in: `"a\"b\\c\/d\b\f\n\r\t"`},
		{desc: "unicode escape", in: `"\u00e9\u4e2d"`},
		{desc: "surrogate pair", in: `"\ud83d\ude00"`},
		{desc: "lone surrogate", in: `"\ud800x"`},
		{desc: "lone low surrogate", in: `"\udc00"`},
		{desc: "surrogate then non-surrogate escape", in: `"\ud800\u0041"`},
		{desc: "raw utf8", in: "\"héllo 中文 😀\""},
		{desc: "invalid utf8", in: "\"a\xffb\""},
		{desc: "invalid utf8 with escape", in: "\"\\n\xff\""},
		{desc: "white space around", in: " \t\n\"x\" "},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			var want string
			if err := json.Unmarshal([]byte(tt.in), &want); err != nil {
				t.Fatalf("encoding/json: %v", err)
			}
			var d jsonscan.Decoder
			d.Reset([]byte(tt.in))
			got, err := d.String()
			if err != nil {
				t.Fatalf("String: %v", err)
			}
			if got != want {
				t.Errorf("String = %q, want %q", got, want)
			}
			if err := d.End(); err != nil {
				t.Errorf("End: %v", err)
			}
		})
	}
}

// TestStringsIn checks that String copies into the memory StringsIn gave
// what fits there, one string after the other, and gives the rest memory
// of their own; that the strings stay intact while the decoder reads on
// (escaped strings are decoded in its scratch space); and that Reset ends
// it.
func TestStringsIn(t *testing.T) {
	in := `["abc", "d\u00e9f", "", "a string longer than what is left", "gh", "\n\t"]`
	want := []string{"abc", "déf", "", "a string longer than what is left", "gh", "\n\t"}
	if err := json.Unmarshal([]byte(in), &want); err != nil {
		t.Fatal(err)
	}
	mem := make([]byte, 3, 16) // the first 3 bytes are the caller's
	copy(mem, "xyz")
	var d jsonscan.Decoder
	d.Reset([]byte(in))
	d.StringsIn(mem)
	if err := d.BeginArray(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		more, err := d.NextElem()
		if err != nil {
			t.Fatal(err)
		}
		if !more {
			break
		}
		s, err := d.String()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("strings = %q, want %q", got, want)
	}
	inMem := func(s string) bool {
		if s == "" {
			return false
		}
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		start := uintptr(unsafe.Pointer(unsafe.SliceData(mem)))
		return p >= start && p < start+uintptr(cap(mem))
	}
	// "abc" (3 bytes) and "déf" (4) fit in the 13 bytes after the
	// caller's, the long one does not, "gh" (2) then still does, and the
	// last (4) fills the rest.
	for i, wantIn := range []bool{true, true, false, false, true, true} {
		if inMem(got[i]) != wantIn {
			t.Errorf("string %d (%q) in the given memory: %v, want %v", i, got[i], !wantIn, wantIn)
		}
	}
	text := d.Text()
	if string(text) != "xyzabcdéfgh\n\t" {
		t.Errorf("Text = %q, want the caller's bytes, then the strings copied there", text)
	}
	if string(mem[:3]) != "xyz" {
		t.Errorf("the caller's bytes were overwritten: %q", mem[:3])
	}
	d.Reset([]byte(`"abc"`))
	if s, err := d.String(); err != nil || inMem(s) || d.Text() != nil {
		t.Errorf("after Reset: %q, %v, in the old memory %v, Text %q", s, err, inMem(s), d.Text())
	}
}

func TestInt64(t *testing.T) {
	tests := []struct {
		desc    string
		in      string
		want    int64
		wantErr string // "type", "range", "syntax"
	}{
		{desc: "small", in: "42", want: 42},
		{desc: "negative", in: "-7", want: -7},
		{desc: "zero", in: "0", want: 0},
		{desc: "float integral", in: "3.0", want: 3},
		{desc: "exponent", in: "1e3", want: 1000},
		{desc: "max", in: "9223372036854775807", want: 9223372036854775807},
		{desc: "min", in: "-9223372036854775808", want: -9223372036854775808},
		{desc: "overflow", in: "9223372036854775808", wantErr: "range"},
		{desc: "fraction", in: "2.5", wantErr: "range"},
		{desc: "huge", in: "1e400", wantErr: "range"},
		{desc: "string", in: `"3"`, wantErr: "type"},
		{desc: "leading zero", in: "01", wantErr: "end"},
		{desc: "bare minus", in: "-", wantErr: "syntax"},
		{desc: "dot without digits", in: "1.", wantErr: "syntax"},
		{desc: "plus", in: "+1", wantErr: "syntax"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			var d jsonscan.Decoder
			d.Reset([]byte(tt.in))
			got, err := d.Int64()
			if err == nil && tt.wantErr == "end" {
				err = d.End()
			}
			var te *jsonscan.TypeError
			var re *jsonscan.RangeError
			var se *jsonscan.SyntaxError
			switch tt.wantErr {
			case "":
				if err != nil || got != tt.want {
					t.Fatalf("Int64 = %d, %v; want %d", got, err, tt.want)
				}
			case "type":
				if !errors.As(err, &te) || te.Got != jsonscan.String || te.Want != jsonscan.Number {
					t.Fatalf("err = %v, want a TypeError", err)
				}
			case "range":
				if !errors.As(err, &re) {
					t.Fatalf("err = %v, want a RangeError", err)
				}
			case "syntax", "end":
				if !errors.As(err, &se) {
					t.Fatalf("err = %v, want a SyntaxError", err)
				}
			}
		})
	}
}

func TestObjectWalk(t *testing.T) {
	in := ` { "a" : 1 , "b\u0021" : [true, false, null, {"x": [ ]}, {}], "c": {"d": "e"} } `
	var d jsonscan.Decoder
	d.Reset([]byte(in))
	if err := d.BeginObject(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for {
		k, ok, err := d.NextKey()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		keys = append(keys, string(k))
		switch string(k) {
		case "a":
			if f, err := d.Float64(); err != nil || f != 1 {
				t.Fatalf("a = %v, %v", f, err)
			}
		case "b!":
			if err := d.BeginArray(); err != nil {
				t.Fatal(err)
			}
			n := 0
			for {
				more, err := d.NextElem()
				if err != nil {
					t.Fatal(err)
				}
				if !more {
					break
				}
				n++
				if err := d.Skip(); err != nil {
					t.Fatal(err)
				}
			}
			if n != 5 {
				t.Fatalf("b has %d elements, want 5", n)
			}
		default:
			raw, err := d.Raw()
			if err != nil || string(raw) != `{"d": "e"}` {
				t.Fatalf("Raw = %q, %v", raw, err)
			}
		}
	}
	if err := d.End(); err != nil {
		t.Fatal(err)
	}
	if len(keys) != 3 || keys[1] != "b!" {
		t.Errorf("keys = %q", keys)
	}
}

func TestMalformed(t *testing.T) {
	for _, in := range []string{`{`, `{"a"}`, `{"a":1,}`, `{,}`, `{"a":1 "b":2}`, `[1,]`, `[1 2]`, `{"a":tru}`, `"abc`, "\"a\x01\"", `{"a":"\x"}`, `{1:2}`} {
		t.Run(in, func(t *testing.T) {
			var d jsonscan.Decoder
			d.Reset([]byte(in))
			err := d.Skip()
			if err == nil {
				err = d.End()
			}
			var se *jsonscan.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Skip(%q) = %v, want a SyntaxError", in, err)
			}
			if json.Valid([]byte(in)) {
				t.Fatalf("encoding/json accepts %q", in)
			}
		})
	}
}

func TestDepthLimit(t *testing.T) {
	deep := make([]byte, 0, 2*jsonscan.MaxDepth+2)
	for range jsonscan.MaxDepth + 1 {
		deep = append(deep, '[')
	}
	for range jsonscan.MaxDepth + 1 {
		deep = append(deep, ']')
	}
	var d jsonscan.Decoder
	d.Reset(deep)
	if err := d.Skip(); err == nil {
		t.Fatal("Skip accepted nesting beyond MaxDepth")
	}
}

// FuzzSkip checks that the decoder accepts exactly the documents
// encoding/json accepts, and decodes strings alike, into memory of their
// own or into memory given with StringsIn.
func FuzzSkip(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e3,"x\u00e9",true,null]}`, `"\ud800"`, `-0.0`, `[]`, `{}`, "\"\xff\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var d jsonscan.Decoder
		d.Reset(in)
		err := d.Skip()
		if err == nil {
			err = d.End()
		}
		var limit *jsonscan.LimitError
		if errors.As(err, &limit) && json.Valid(in) {
			return // a number beyond the decoder's limits, refused by design
		}
		if valid := json.Valid(in); valid != (err == nil) {
			t.Fatalf("%q: encoding/json valid=%v, jsonscan err=%v", in, valid, err)
		}
		if err != nil {
			return
		}
		d.Reset(in)
		if d.Peek() != jsonscan.String {
			return
		}
		var want string
		if json.Unmarshal(in, &want) != nil {
			return
		}
		got, err := d.String()
		if err != nil || got != want {
			t.Fatalf("%q: String = %q, %v; encoding/json %q", in, got, err, want)
		}
		// The same into given memory: copied there when it fits.
		d.Reset(in)
		d.StringsIn(make([]byte, 0, 8))
		got, err = d.String()
		if err != nil || got != want {
			t.Fatalf("%q: String into given memory = %q, %v; encoding/json %q", in, got, err, want)
		}
		if text := d.Text(); len(want) <= 8 && string(text) != want || len(want) > 8 && len(text) != 0 {
			t.Fatalf("%q: the given memory holds %q after String %q", in, text, want)
		}
	})
}

// TestNoCommaAfterOpening checks that only the first member of an object
// or array goes without a comma: a '{' or '[' between members is invalid.
func TestNoCommaAfterOpening(t *testing.T) {
	for _, in := range []string{`{"a":0{"b":0}`, `[1[2]`, `{,"a":1}`, `[,1]`, `{"a":1,}`, `[1,]`, `{"a":{}{"b":1}}`, `[[][]]`} {
		var d jsonscan.Decoder
		d.Reset([]byte(in))
		if err := d.Skip(); err == nil {
			if err := d.End(); err == nil {
				t.Errorf("%s: accepted", in)
			}
		}
	}
	for _, in := range []string{`{}`, `[]`, `{"a":{},"b":[[],[1]]}`, ` { "a" : [ 1 , { } ] } `} {
		var d jsonscan.Decoder
		d.Reset([]byte(in))
		if err := d.Skip(); err != nil {
			t.Errorf("%s: %v", in, err)
		}
	}
}
