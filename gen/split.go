package gen

import (
	"fmt"
	"go/token"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/toolcat/toolcat/catalog"
)

// UncategorizedPackage is the package of a split catalog that holds the
// tools without a category.
const UncategorizedPackage = "uncategorized"

// A Part is one Go package of a catalog split by category: a
// subdirectory of the root package, generated as a package of its own
// from Catalog.
type Part struct {
	// Category is the category of the part's tools; "" for the tools
	// without one.
	Category string
	// Package is the part's Go package name, which is also its
	// directory, relative to the root package's.
	Package string
	// Catalog is the catalog restricted to the part's tools, with
	// Package set: what Generate and Scaffolds compile.
	Catalog *catalog.Catalog
}

// SplitByCategory splits cat into one part per category, sorted by
// package name. A category's package name is the category in lower case
// with every character but ASCII letters and digits left out (Data-Store
// gives datastore); one that is then a Go keyword, main, or a name the go
// command or the generated code gives a meaning to (testdata, vendor,
// runtime, conformance, jsonscan) gets "tools" appended (type gives
// typetools). Tools without a category go to the package
// UncategorizedPackage. A category that gives no name, or a name starting
// with a digit, and two categories that give the same name, are errors.
func SplitByCategory(cat *catalog.Catalog) ([]Part, error) {
	byPkg := map[string]*Part{}
	var parts []*Part
	for _, t := range cat.Tools { // sorted by name, so each part's are too
		pkg := UncategorizedPackage
		if t.Category != "" {
			var err error
			if pkg, err = PackageOfCategory(t.Category); err != nil {
				return nil, fmt.Errorf("%s: tool %s: %w", t.Pos, t.Name, err)
			}
		}
		p := byPkg[pkg]
		if p == nil {
			sub := *cat
			sub.Package = pkg
			sub.Tools = nil
			p = &Part{Category: t.Category, Package: pkg, Catalog: &sub}
			byPkg[pkg] = p
			parts = append(parts, p)
		}
		if p.Category != t.Category {
			a, b := describeCategory(p.Category), describeCategory(t.Category)
			if a > b {
				a, b = b, a
			}
			return nil, fmt.Errorf("%s: tool %s: %s and %s both make the Go package %s; rename one of them", t.Pos, t.Name, a, b, pkg)
		}
		p.Catalog.Tools = append(p.Catalog.Tools, t)
	}
	slices.SortFunc(parts, func(a, b *Part) int { return strings.Compare(a.Package, b.Package) })
	out := make([]Part, len(parts))
	for i, p := range parts {
		out[i] = *p
	}
	return out, nil
}

func describeCategory(c string) string {
	if c == "" {
		return "the tools without a category"
	}
	return fmt.Sprintf("category %q", c)
}

// splitReserved are the package names that get "tools" appended: besides
// Go's keywords, names with a meaning to the go command, and the names
// of the packages generated code imports.
var splitReserved = map[string]bool{"main": true, "testdata": true, "vendor": true, "runtime": true, "conformance": true, "jsonscan": true}

// PackageOfCategory is the Go package name, and directory, of a
// category's part in a split catalog (see SplitByCategory).
func PackageOfCategory(category string) (string, error) {
	var b strings.Builder
	for _, c := range strings.ToLower(category) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		}
	}
	name := b.String()
	switch {
	case name == "":
		return "", fmt.Errorf("category %q has no ASCII letter or digit to name its Go package; rename it", category)
	case name[0] >= '0' && name[0] <= '9':
		return "", fmt.Errorf("category %q would make the Go package %s, which starts with a digit; rename it", category, name)
	case token.IsKeyword(name) || splitReserved[name]:
		name += "tools"
	}
	return name, nil
}

// GenerateRoot compiles the root package of a catalog split into parts:
// one file, CommonFile, with a Tools struct holding each part's Tools,
// NewRegistry and RegisterTools registering every part's tools into one
// registry, and Metas listing every tool. importPath is the root
// package's import path; each part is imported from importPath/Package.
func GenerateRoot(cat *catalog.Catalog, importPath string, parts []Part) (map[string][]byte, error) {
	pkg := cat.Package
	if pkg == "" {
		pkg = "tools"
	}
	if importPath == "" {
		return nil, fmt.Errorf("the root package of a split catalog needs its import path")
	}
	f := newFile(pkg)
	f.PackageComment("Package " + pkg + " holds the tools of the catalog" + titleSuffix(cat) + ", compiled by toolcat into one package per category.")
	f.Add(comment("This file needs a runtime that supports generated code of version 4: a\nstale generation fails to compile here instead of misbehaving."))
	f.Const().Id("_").Op("=").Qual(runtimePkg, "GeneratedCodeVersion4")
	fields := make([]jen.Code, 0, 2*len(parts))
	regs := make([]jen.Code, 0, len(parts)+1)
	metas := make([]jen.Code, 0, len(parts))
	for _, p := range parts {
		path := importPath + "/" + p.Package
		field := exported(p.Package)
		what := "the tools of the category " + p.Category
		if p.Category == "" {
			what = "the tools without a category"
		}
		fields = append(fields, jen.Comment(field+" implements "+what+"."), jen.Id(field).Qual(path, "Tools"))
		regs = append(regs, jen.If(jen.Err().Op(":=").Qual(path, "RegisterTools").Call(jen.Id("reg"), jen.Id("impls").Dot(field)), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())))
		metas = append(metas, jen.Qual(path, "Metas").Call())
	}
	regs = append(regs, jen.Return(jen.Nil()))
	f.Comment("Tools holds an implementation of every tool of the catalog, by package.")
	f.Type().Id("Tools").Struct(fields...)
	genNewRegistry(f)
	f.Add(comment("RegisterTools registers every tool of every package of the catalog with\nits implementation in impls into reg."))
	f.Func().Id("RegisterTools").Params(jen.Id("reg").Op("*").Qual(runtimePkg, "Registry"), jen.Id("impls").Id("Tools")).Error().Block(regs...)
	f.Add(comment("Metas returns the catalog entry of every tool, sorted by name: what\nprovider exports and docs are made from."))
	f.Func().Id("Metas").Params().Index().Qual(runtimePkg, "Meta").Block(
		jen.Id("metas").Op(":=").Qual("slices", "Concat").Call(metas...),
		jen.Qual("slices", "SortFunc").Call(jen.Id("metas"), jen.Func().Params(jen.List(jen.Id("a"), jen.Id("b")).Qual(runtimePkg, "Meta")).Int().Block(
			jen.Return(jen.Qual("strings", "Compare").Call(jen.Id("a").Dot("Name"), jen.Id("b").Dot("Name"))),
		)),
		jen.Return(jen.Id("metas")),
	)
	src, err := render(f, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", CommonFile, err)
	}
	return map[string][]byte{CommonFile: src}, nil
}
