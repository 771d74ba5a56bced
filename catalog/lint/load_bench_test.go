package lint_test

import (
	"testing"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/catalog/catalogtest"
	"github.com/toolcat/toolcat/catalog/lint"
)

// BenchmarkLoadLint1000 is what `toolcat lint` does on a catalog of 1,000
// tools of 5 to 10 arguments with nested objects (about 2 MB of YAML):
// load it and run every rule.
func BenchmarkLoadLint1000(b *testing.B) {
	data := catalogtest.YAML(1000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		cat, err := catalog.LoadFiles(catalog.File{Name: "synthetic.yaml", Data: data})
		if err != nil {
			b.Fatal(err)
		}
		lint.Run(cat, nil)
	}
}

// BenchmarkLint1000 runs every rule on that catalog, loaded once.
func BenchmarkLint1000(b *testing.B) {
	cat, err := catalog.LoadFiles(catalog.File{Name: "synthetic.yaml", Data: catalogtest.YAML(1000)})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		lint.Run(cat, nil)
	}
}
