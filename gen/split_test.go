package gen

import (
	"strings"
	"testing"

	"github.com/toolcat/toolcat/catalog"
)

func TestPackageOfCategory(t *testing.T) {
	for _, tc := range []struct {
		desc, category, want, err string
	}{
		{desc: "a plain name", category: "alerts", want: "alerts"},
		{desc: "lower case, other characters left out", category: "Data-Store v2", want: "datastorev2"},
		{desc: "non-ASCII letters left out", category: "Café", want: "caf"},
		{desc: "a Go keyword", category: "type", want: "typetools"},
		{desc: "main would make a command", category: "Main", want: "maintools"},
		{desc: "ignored by go build ./...", category: "testdata", want: "testdatatools"},
		{desc: "an import of generated code", category: "runtime", want: "runtimetools"},
		{desc: "no letter or digit", category: "--", err: "has no ASCII letter or digit"},
		{desc: "only non-ASCII", category: "日本", err: "has no ASCII letter or digit"},
		{desc: "a leading digit", category: "3d-printers", err: "starts with a digit"},
	} {
		got, err := PackageOfCategory(tc.category)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: PackageOfCategory(%q) = %q, %v; want an error with %q", tc.desc, tc.category, got, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("%s: PackageOfCategory(%q) = %q, %v; want %q", tc.desc, tc.category, got, err, tc.want)
		}
	}
}

func splitTestCatalog(cats ...[2]string) *catalog.Catalog {
	cat := &catalog.Catalog{Package: "agent", Title: "Agent"}
	for _, c := range cats {
		cat.Tools = append(cat.Tools, &catalog.Tool{Name: c[0], Category: c[1]})
	}
	return cat
}

func TestSplitByCategory(t *testing.T) {
	cat := splitTestCatalog(
		[2]string{"get_invoice", "Billing"},
		[2]string{"get_time", ""},
		[2]string{"list_alerts", "alerts"},
		[2]string{"mute_alert", "alerts"},
		[2]string{"pay_invoice", "Billing"},
	)
	parts, err := SplitByCategory(cat)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range parts {
		var names []string
		for _, tl := range p.Catalog.Tools {
			names = append(names, tl.Name)
		}
		got = append(got, p.Package+"("+p.Category+")="+strings.Join(names, ","))
		if p.Catalog.Package != p.Package || p.Catalog.Title != "Agent" {
			t.Errorf("part %s: catalog package %q, title %q", p.Package, p.Catalog.Package, p.Catalog.Title)
		}
	}
	want := "alerts(alerts)=list_alerts,mute_alert billing(Billing)=get_invoice,pay_invoice uncategorized()=get_time"
	if strings.Join(got, " ") != want {
		t.Errorf("parts:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	if cat.Package != "agent" || len(cat.Tools) != 5 {
		t.Errorf("SplitByCategory changed the catalog: package %q, %d tools", cat.Package, len(cat.Tools))
	}
}

func TestSplitByCategoryErrors(t *testing.T) {
	for _, tc := range []struct {
		desc string
		cat  *catalog.Catalog
		err  string
	}{
		{"two categories, one package", splitTestCatalog([2]string{"a_tool", "data-store"}, [2]string{"b_tool", "DataStore"}),
			`tool b_tool: category "DataStore" and category "data-store" both make the Go package datastore; rename one of them`},
		{"a category named as the tools without one", splitTestCatalog([2]string{"a_tool", ""}, [2]string{"b_tool", "Uncategorized"}),
			`category "Uncategorized" and the tools without a category both make the Go package uncategorized`},
		{"a category without a package name", splitTestCatalog([2]string{"a_tool", "alerts"}, [2]string{"b_tool", "42"}),
			`tool b_tool: category "42" would make the Go package 42, which starts with a digit`},
	} {
		if _, err := SplitByCategory(tc.cat); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: %v; want an error with %q", tc.desc, err, tc.err)
		}
	}
}

func TestGenerateRoot(t *testing.T) {
	cat := splitTestCatalog([2]string{"get_time", ""}, [2]string{"list_alerts", "alerts"}, [2]string{"run_job", "go"})
	parts, err := SplitByCategory(cat)
	if err != nil {
		t.Fatal(err)
	}
	files, err := GenerateRoot(cat, "example.com/m/agent", parts)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 {
		t.Fatalf("GenerateRoot writes %d files, want 1", len(files))
	}
	src := string(files[CommonFile])
	for _, want := range []string{
		Header + "\n",
		"package agent\n",
		`"example.com/m/agent/alerts"`,
		`"example.com/m/agent/gotools"`,
		`"example.com/m/agent/uncategorized"`,
		"\tAlerts alerts.Tools\n",
		"\tGotools gotools.Tools\n",
		"\tUncategorized uncategorized.Tools\n",
		"func NewRegistry(impls Tools, opts ...runtime.Option) (*runtime.Registry, error) {",
		"if err := gotools.RegisterTools(reg, impls.Gotools); err != nil {",
		"func Metas() []runtime.Meta {",
		"slices.Concat(alerts.Metas(), gotools.Metas(), uncategorized.Metas())",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("the root file lacks %q:\n%s", want, src)
		}
	}
	if _, err := GenerateRoot(cat, "", parts); err == nil {
		t.Error("GenerateRoot without an import path: no error")
	}
}
