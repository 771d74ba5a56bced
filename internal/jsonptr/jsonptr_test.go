package jsonptr

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestEscapeUnescapeToken(t *testing.T) {
	for _, tc := range []struct {
		desc, raw, escaped string
		unescapeOnly       bool // escaped is no escaping of raw, only read as raw
	}{
		{desc: "empty token", raw: "", escaped: ""},
		{desc: "plain", raw: "query", escaped: "query"},
		{desc: "slash", raw: "a/b", escaped: "a~1b"},
		{desc: "tilde", raw: "m~n", escaped: "m~0n"},
		{desc: "~01 is a tilde then 1, not a slash", raw: "~1", escaped: "~01"},
		{desc: "~10 is a slash then 0", raw: "/0", escaped: "~10"},
		{desc: "only a slash", raw: "/", escaped: "~1"},
		{desc: "both, repeated", raw: "~/~/", escaped: "~0~1~0~1"},
		{desc: "multibyte", raw: "é/ü", escaped: "é~1ü"},
		// RFC 6901 makes these errors; they are read as written.
		{desc: "invalid escape", raw: "a~2b", escaped: "a~2b", unescapeOnly: true},
		{desc: "trailing tilde", raw: "a~", escaped: "a~", unescapeOnly: true},
		{desc: "lone tilde", raw: "~", escaped: "~", unescapeOnly: true},
		{desc: "tilde before an escape", raw: "~/", escaped: "~~1", unescapeOnly: true},
		{desc: "tilde before a tilde escape", raw: "~~", escaped: "~~0", unescapeOnly: true},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			if got := UnescapeToken(tc.escaped); got != tc.raw {
				t.Errorf("UnescapeToken(%q) = %q, want %q", tc.escaped, got, tc.raw)
			}
			if got := EscapeToken(tc.raw); !tc.unescapeOnly && got != tc.escaped {
				t.Errorf("EscapeToken(%q) = %q, want %q", tc.raw, got, tc.escaped)
			}
		})
	}
}

func TestJoinAppend(t *testing.T) {
	for _, tc := range []struct {
		desc   string
		ptr    string
		tokens []string
		want   string
	}{
		{"nothing", "", nil, ""},
		{"nothing added to a pointer", "/a", nil, "/a"},
		{"root member", "", []string{"query"}, "/query"},
		{"the empty key", "", []string{""}, "/"},
		{"escaped", "", []string{"properties", "a/b", "m~n"}, "/properties/a~1b/m~0n"},
		{"after a pointer", "/properties", []string{"a/b"}, "/properties/a~1b"},
		{"index", "/items", []string{"0"}, "/items/0"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			if got := Append(tc.ptr, tc.tokens...); got != tc.want {
				t.Errorf("Append(%q, %q) = %q, want %q", tc.ptr, tc.tokens, got, tc.want)
			}
			if tc.ptr == "" {
				if got := Join(tc.tokens...); got != tc.want {
					t.Errorf("Join(%q) = %q, want %q", tc.tokens, got, tc.want)
				}
			}
		})
	}
}

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		desc   string
		ptr    string
		want   []string
		wantOK bool
	}{
		{"whole document", "", nil, true},
		{"root: the empty key", "/", []string{""}, true},
		{"two empty keys", "//", []string{"", ""}, true},
		{"escaped", "/a~1b/m~0n/0", []string{"a/b", "m~n", "0"}, true},
		{"~01 and ~10", "/~01/~10", []string{"~1", "/0"}, true},
		{"no leading slash", "a/b", nil, false},
		{"a fragment is not a pointer", "#/a", nil, false},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			got, ok := Split(tc.ptr)
			if ok != tc.wantOK || !slices.Equal(got, tc.want) {
				t.Errorf("Split(%q) = %q, %v, want %q, %v", tc.ptr, got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

// doc is the example document of RFC 6901, section 5, with an array of
// objects added.
const doc = `{
	"foo": ["bar", "baz"],
	"": 0,
	"a/b": 1,
	"c%d": 2,
	"e^f": 3,
	"g|h": 4,
	"i\\j": 5,
	"k\"l": 6,
	" ": 7,
	"m~n": 8,
	"list": [{"x": null}]
}`

func TestGet(t *testing.T) {
	var root any
	if err := json.Unmarshal([]byte(doc), &root); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		desc string
		ptr  string
		want any // the JSON of the value found; "" for nothing
	}{
		{"whole document", "", "whole"},
		{"array", "/foo", `["bar","baz"]`},
		{"item", "/foo/0", `"bar"`},
		{"the empty key", "/", "0"},
		{"a/b", "/a~1b", "1"},
		{"c%d", "/c%d", "2"},
		{"e^f", "/e^f", "3"},
		{"g|h", "/g|h", "4"},
		{"i\\j", "/i\\j", "5"},
		{"k\"l", "/k\"l", "6"},
		{"space", "/ ", "7"},
		{"m~n", "/m~0n", "8"},
		{"a null member is found", "/list/0/x", "null"},
		{"index with a leading zero, as strconv.Atoi reads it", "/foo/01", `"baz"`},
		{"index past the end", "/foo/2", ""},
		{"negative index", "/foo/-1", ""},
		{"the RFC's end of array", "/foo/-", ""},
		{"index not a number", "/foo/x", ""},
		{"member missing", "/nope", ""},
		{"below a scalar", "/a~1b/c", ""},
		{"no leading slash", "foo", ""},
		{"unescaped slash is a step", "/a/b", ""},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			v, ok := Get(root, tc.ptr)
			var got string
			switch {
			case !ok:
			case tc.ptr == "":
				got = "whole"
			default:
				b, err := json.Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				got = string(b)
			}
			if got != tc.want {
				t.Errorf("Get(%q) = %s (found %v), want %s", tc.ptr, got, ok, tc.want)
			}
		})
	}
}

// tree is a node type of its own, for Lookup.
type tree struct {
	name string
	kids map[string]*tree
}

func TestLookupOtherTree(t *testing.T) {
	leaf := &tree{name: "leaf"}
	root := &tree{name: "root", kids: map[string]*tree{"a/b": {name: "mid", kids: map[string]*tree{"~": leaf}}}}
	child := func(n *tree, tok string) (*tree, bool) {
		c := n.kids[tok]
		return c, c != nil
	}
	for _, tc := range []struct{ ptr, want string }{
		{"", "root"},
		{"/a~1b", "mid"},
		{"/a~1b/~0", "leaf"},
		{"/a~1b/~0/x", ""},
		{"/a/b", ""},
		{"a~1b", ""},
	} {
		var name string
		if got, ok := Lookup(root, tc.ptr, child); ok {
			name = got.name
		}
		if name != tc.want {
			t.Errorf("Lookup(%q) = %q, want %q", tc.ptr, name, tc.want)
		}
	}
}

func TestIndex(t *testing.T) {
	for _, tc := range []struct {
		tok  string
		n    int
		want int
		ok   bool
	}{
		{"0", 1, 0, true},
		{"2", 3, 2, true},
		{"3", 3, 0, false},
		{"-1", 3, 0, false},
		{"", 3, 0, false},
		{"-", 3, 0, false},
		{"0x1", 3, 0, false},
		{"01", 3, 1, true},
		{"+1", 3, 1, true},
	} {
		if got, ok := Index(tc.tok, tc.n); got != tc.want || ok != tc.ok {
			t.Errorf("Index(%q, %d) = %d, %v, want %d, %v", tc.tok, tc.n, got, ok, tc.want, tc.ok)
		}
	}
}

// TestAllocations checks the promises of the docs: nothing is allocated
// for tokens with nothing to escape, for a lookup, and a pointer is built
// in one allocation.
func TestAllocations(t *testing.T) {
	var root any
	if err := json.Unmarshal([]byte(doc), &root); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		desc string
		max  float64
		f    func()
	}{
		{"EscapeToken, nothing to escape", 0, func() { _ = EscapeToken("max_results") }},
		{"UnescapeToken, nothing to unescape", 0, func() { _ = UnescapeToken("max_results") }},
		{"EscapeToken", 1, func() { _ = EscapeToken("a/b~c/d") }},
		{"UnescapeToken", 1, func() { _ = UnescapeToken("a~1b~0c~1d") }},
		{"Append", 1, func() { _ = Append("/filter", "a/b", "m~n", "0") }},
		{"Join", 1, func() { _ = Join("properties", "a/b") }},
		{"Get", 0, func() { _, _ = Get(root, "/list/0/x") }},
	} {
		if got := testing.AllocsPerRun(100, tc.f); got > tc.max {
			t.Errorf("%s: %v allocations, want at most %v", tc.desc, got, tc.max)
		}
	}
}

// replaceEscape and replaceUnescape are the two-pass escaping of
// strings.ReplaceAll ("~" before "/" when escaping, "~1" before "~0" when
// unescaping): EscapeToken and UnescapeToken must agree with them.
func replaceEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func replaceUnescape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

func FuzzEscapeUnescape(f *testing.F) {
	for _, s := range []string{"", "a", "a/b", "~", "~0", "~1", "~01", "~10", "/~", "~~1", "~2", "a~", "é/~"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tok string) {
		esc := EscapeToken(tok)
		if got := UnescapeToken(esc); got != tok {
			t.Errorf("UnescapeToken(EscapeToken(%q)) = %q", tok, got)
		}
		if strings.Contains(esc, "/") {
			t.Errorf("EscapeToken(%q) = %q holds a /", tok, esc)
		}
		if want := replaceEscape(tok); esc != want {
			t.Errorf("EscapeToken(%q) = %q, want %q", tok, esc, want)
		}
		if got, want := UnescapeToken(tok), replaceUnescape(tok); got != want {
			t.Errorf("UnescapeToken(%q) = %q, want %q", tok, got, want)
		}
		ptr := Append("/x", tok, tok)
		if toks, ok := Split(ptr); !ok || !slices.Equal(toks, []string{"x", tok, tok}) {
			t.Errorf("Split(%q) = %q, %v", ptr, toks, ok)
		}
	})
}

// sink keeps the benchmarks' results alive, as a caller's error would.
var sink string

func BenchmarkEscape(b *testing.B) {
	prefix := strings.Repeat("/filter", 1)
	for _, tok := range []string{"max_results", "a/b~c"} {
		b.Run(tok+"/EscapeToken", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sink = EscapeToken(tok)
			}
		})
		b.Run(tok+"/ReplaceAll", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sink = replaceEscape(tok)
			}
		})
		b.Run(tok+"/Append", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sink = Append(prefix, tok)
			}
		})
		b.Run(tok+"/concatenation", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sink = prefix + "/" + replaceEscape(tok)
			}
		})
	}
}
