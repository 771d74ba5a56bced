package gen

import (
	"bytes"
	"go/format"
	"go/scanner"
	"go/token"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/catalog/catalogtest"
)

// descCatalogs are catalogs with data-mode descriptors of many shapes:
// the synthetic one, and the validator test catalog, which uses every
// keyword.
func descCatalogs(t *testing.T) map[string]*catalog.Catalog {
	t.Helper()
	synth, err := catalog.LoadFiles(catalog.File{Name: "synthetic.yaml", Data: catalogtest.YAML(120)})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("internal/validatortest/catalog/tools.yaml")
	if err != nil {
		t.Fatal(err)
	}
	keywords, err := catalog.LoadFiles(catalog.File{Name: "tools.yaml", Data: data})
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*catalog.Catalog{"synthetic": synth, "validatortest": keywords}
}

// The descriptors gen lays out itself come out as gofmt lays them out:
// the files are the same byte for byte with and without it, and for the
// synthetic catalog gen lays out every tool's descriptors itself.
func TestDescLayoutIsGofmt(t *testing.T) {
	defer func() { preformatDescs = true }()
	for name, cat := range descCatalogs(t) {
		preformatDescs = true
		fast, err := Generate(cat, WithValidators(ValidatorsData))
		if err != nil {
			t.Fatal(err)
		}
		preformatDescs = false
		slow, err := Generate(cat, WithValidators(ValidatorsData))
		if err != nil {
			t.Fatal(err)
		}
		if len(fast) != len(slow) {
			t.Fatalf("%s: %d files, %d without the layout", name, len(fast), len(slow))
		}
		for file, b := range slow {
			if !bytes.Equal(fast[file], b) {
				t.Errorf("%s: %s differs from gofmt's layout:\n%s\ngofmt:\n%s", name, file, fast[file], b)
			}
		}
		preformatDescs = true
		m, err := buildModel(cat, true, nil, ValidatorsData)
		if err != nil {
			t.Fatal(err)
		}
		laid, descs := 0, 0
		for _, tm := range m.tools {
			if len(tm.desc) == 0 {
				continue
			}
			descs++
			if _, ok := descDecls(tm.desc, func(d namedDesc) string { return d.name }); ok {
				laid++
			}
		}
		if descs == 0 || (name == "synthetic" && laid != descs) {
			t.Errorf("%s: %d of %d tools' descriptors laid out without gofmt", name, laid, descs)
		}
		t.Logf("%s: %d of %d tools' descriptors laid out without gofmt", name, laid, descs)
	}
}

func TestLayoutDecl(t *testing.T) {
	for _, c := range []struct {
		desc, src string
		ok        bool
	}{
		{"one line", `var x = runtime.T {A : 1,B : "b",C : & runtime.U {D : -1.5}}`, true},
		{"a list on lines", "var x = runtime.T {A : runtime.O {N : [] string {\"a\",\"b\"}},F : [] runtime.F {\n {K : \"a\",S : 1 << 0},\n {K : json.Number (\"2\")}}}", true},
		{"values after the list", "var x = runtime.T {F : [] runtime.F {\n {K : 1},\n {K : 2}},G : true}", true},
		{"keys on lines", "var x = runtime.T {\nA : 1,\nB : 2}", false},
		{"lines in two lists", "var x = runtime.T {F : [] runtime.F {\n {K : [] int {\n 1}}}}", false},
		{"a break after an operand", "var x = runtime.T {A : 1\n}", false},
		{"a binary minus", `var x = runtime.T {A : 2 - 1}`, false},
		{"two shifts", `var x = runtime.T {A : 1 << 2 << 3}`, false},
		{"a comment", `var x = runtime.T {A : 1 /* one */}`, false},
		{"an addition", `var x = runtime.T {A : 1 + 1}`, false},
		{"a func literal", `var x = func () {}`, false},
		{"an array type", `var x = [2] int {1,2}`, false},
		{"two declarations", "var x = 1\nvar y = 2", false},
		{"no assignment", `var x runtime.T`, false},
		{"unbalanced", `var x = runtime.T {A : 1`, false},
		{"a raw string on lines", "var x = runtime.T {A : `a\nb`}", false},
	} {
		got, ok := layoutDecl([]byte(c.src))
		if ok != c.ok {
			t.Errorf("%s: ok = %v, want %v (%q)", c.desc, ok, c.ok, got)
			continue
		}
		if ok {
			want, err := format.Source([]byte(c.src))
			if err != nil {
				t.Fatalf("%s: %v", c.desc, err)
			}
			if string(got) != strings.TrimSuffix(string(want), "\n") {
				t.Errorf("%s:\n%s\ngofmt:\n%s", c.desc, got, want)
			}
		}
	}
}

// FuzzLayoutDecl: what layoutDecl accepts, it lays out as gofmt does,
// with the same tokens.
func FuzzLayoutDecl(f *testing.F) {
	for _, s := range []string{
		`var x = runtime.T {A : 1,B : "b",C : & runtime.U {D : -1.5}}`,
		"var x = runtime.T {A : runtime.O {N : [] string {\"a\",\"b\"}},F : [] runtime.F {\n {K : \"a\",S : 1 << 0},\n {K : json.Number (\"2\")}}}",
		"var x = runtime.T {F : [] runtime.F {\n {K : 1},\n {K : 2}},G : true}",
		`var x = runtime.T {A : [] any {nil,true,json.Number ("1e+06")},B : & runtime.B {Min : 0.0,HasMin : true}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		got, ok := layoutDecl([]byte(src))
		if !ok {
			return
		}
		want, err := format.Source([]byte("package p\n\n" + src))
		if err != nil {
			// Tokens gofmt cannot parse: still the same tokens.
			if !slices.Equal(tokens(t, src), tokens(t, string(got))) {
				t.Fatalf("%q laid out as %q: other tokens", src, got)
			}
			return
		}
		if w := strings.TrimSuffix(strings.TrimPrefix(string(want), "package p\n\n"), "\n"); string(got) != w {
			t.Fatalf("%q laid out as\n%s\ngofmt:\n%s", src, got, w)
		}
		if !slices.Equal(tokens(t, src), tokens(t, string(got))) {
			t.Fatalf("%q laid out as %q: other tokens", src, got)
		}
	})
}

// tokens are the tokens of src, without the semicolons Go inserts.
func tokens(t *testing.T, src string) []string {
	fset := token.NewFileSet()
	var s scanner.Scanner
	s.Init(fset.AddFile("", -1, len(src)), []byte(src), nil, scanner.ScanComments)
	var out []string
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		if tok == token.SEMICOLON && lit == "\n" {
			continue
		}
		out = append(out, tok.String()+" "+lit)
	}
}
