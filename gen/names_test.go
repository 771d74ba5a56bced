package gen

import (
	"bytes"
	"go/token"
	"maps"
	"slices"
	"testing"

	"github.com/toolcat/toolcat/catalog"
)

// Every name gives an exported identifier, whatever its letters: a field
// whose name is not exported is one encoding/json cannot fill.
func TestExported(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"search_articles", "SearchArticles"},
		{"user_id", "UserID"},
		{"api-url", "APIURL"},
		{"2fa_code", "X2faCode"},
		{"Ünï", "Xn"},
		{"ünï_kind", "XnKind"},
		{"€", "X"},
		{"", "X"},
		{"-", "X"},
	} {
		got := exported(c.in)
		if got != c.want {
			t.Errorf("exported(%q) = %q; want %q", c.in, got, c.want)
		}
		if !token.IsExported(got) || !token.IsIdentifier(got) {
			t.Errorf("exported(%q) = %q, not an exported identifier", c.in, got)
		}
	}
}

// Tools whose names give one file name get files of their own, in gen
// and in docs, decided in the order of their names; the docs index keeps
// index.md.
func TestFileNamesApart(t *testing.T) {
	src := `package: p
tools:
  search.web: {description: "Searches the web."}
  search_web: {description: "Searches the web too."}
  Search-Web: {description: "Searches the web again."}
  search_web_2: {description: "Searches the web once more."}
  index: {description: "Indexes."}
`
	cat, err := catalog.LoadFiles(catalog.File{Name: "catalog.yaml", Data: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generate(cat)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"search_web_gen.go", "search_web_2_gen.go", "search_web_3_gen.go", "search_web_2_2_gen.go", "index_gen.go"} {
		if files[want] == nil {
			t.Errorf("Generate wrote no %s; it wrote %v", want, slices.Sorted(maps.Keys(files)))
		}
	}
	// Search-Web < search.web < search_web < search_web_2 in byte order.
	if !bytes.Contains(files["search_web_gen.go"], []byte(`"Search-Web"`)) {
		t.Errorf("search_web_gen.go is not the file of Search-Web, the first name in order")
	}
	docs, err := Docs(cat)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"search_web.md", "search_web_2.md", "search_web_3.md", "search_web_2_2.md", "index_2.md"} {
		if docs[want] == nil {
			t.Errorf("Docs wrote no %s; it wrote %v", want, slices.Sorted(maps.Keys(docs)))
		}
	}
	if !bytes.Contains(docs[DocsIndex], []byte("[`index`](index_2.md)")) {
		t.Errorf("the index does not link the page of the tool index:\n%s", docs[DocsIndex])
	}
}
