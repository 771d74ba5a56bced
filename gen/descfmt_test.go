package gen_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/catalog/catalogtest"
	"github.com/toolcat/toolcat/gen"
)

// sameWithGofmt generates cat in data mode with the descriptors laid out
// by gen and by gofmt, and fails where the files differ. It returns how
// many files hold descriptors.
func sameWithGofmt(t *testing.T, name string, cat *catalog.Catalog) int {
	t.Helper()
	defer gen.SetPreformatDescs(true)
	gen.SetPreformatDescs(true)
	fast, err := gen.Generate(cat, gen.WithValidators(gen.ValidatorsData))
	if err != nil {
		return 0 // a catalog gen refuses in both layouts alike
	}
	gen.SetPreformatDescs(false)
	slow, err := gen.Generate(cat, gen.WithValidators(gen.ValidatorsData))
	if err != nil {
		t.Fatalf("%s: %v with gofmt's layout only", name, err)
	}
	if len(fast) != len(slow) {
		t.Fatalf("%s: %d files, %d with gofmt's layout", name, len(fast), len(slow))
	}
	descs := 0
	for file, b := range slow {
		if !bytes.Equal(fast[file], b) {
			t.Errorf("%s: %s differs from gofmt's layout:\n%s\ngofmt:\n%s", name, file, fast[file], b)
		}
		if bytes.Contains(b, []byte(" = runtime.StructDesc{")) {
			descs++
		}
	}
	return descs
}

// The descriptors gen writes itself are laid out as gofmt lays them out:
// the files are the same byte for byte when gofmt formats them, on the
// synthetic catalog, the validator test catalog (every keyword), and
// drawn catalogs.
func TestDescLayoutIsGofmt(t *testing.T) {
	synth, err := catalog.LoadFiles(catalog.File{Name: "synthetic.yaml", Data: catalogtest.YAML(120)})
	if err != nil {
		t.Fatal(err)
	}
	if n := sameWithGofmt(t, "synthetic", synth); n != 120 {
		t.Errorf("synthetic: %d files with descriptors, want 120", n)
	}
	data, err := os.ReadFile("internal/validatortest/catalog/tools.yaml")
	if err != nil {
		t.Fatal(err)
	}
	keywords, err := catalog.LoadFiles(catalog.File{Name: "tools.yaml", Data: data})
	if err != nil {
		t.Fatal(err)
	}
	if n := sameWithGofmt(t, "validatortest", keywords); n < 5 {
		t.Errorf("validatortest: %d files with descriptors", n)
	}
	drawn := 0
	for _, seed := range seedCatalogs(*compileSeeds) {
		src := (&draw{data: seed}).catalogJSON()
		cat, err := catalog.LoadFiles(catalog.File{Name: "catalog.json", Data: src})
		if err != nil {
			continue
		}
		drawn += sameWithGofmt(t, string(src), cat)
	}
	if drawn == 0 {
		t.Error("no drawn catalog has a data-mode descriptor")
	}
	t.Logf("%d drawn files with descriptors", drawn)
}

// FuzzTextIsGofmt checks, on drawn catalogs, that what gen writes as text
// in gofmt's layout (the descriptors, the metadata, the validator and
// binding functions) is what gofmt lays out.
func FuzzTextIsGofmt(f *testing.F) {
	for _, seed := range seedCatalogs(8) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cat, err := catalog.LoadFiles(catalog.File{Name: "catalog.json", Data: (&draw{data: data}).catalogJSON()})
		if err != nil {
			return // the draw makes catalogs that do not load too
		}
		sameWithGofmt(t, "drawn catalog", cat)
	})
}
