package lint_test

import (
	"fmt"
	"testing"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/catalog/catalogtest"
	"github.com/toolcat/toolcat/catalog/lint"
)

// benchSizes are the catalog sizes the scale benchmarks run at: linting
// should grow linearly across them.
var benchSizes = []int{1000, 3000, 10000}

// BenchmarkLoadLint is what `toolcat lint` does on synthetic catalogs of
// 1,000, 3,000 and 10,000 tools of 7 to 10 arguments with nested objects
// (about 2 KB of YAML a tool): load it and run every rule.
func BenchmarkLoadLint(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			data := catalogtest.YAML(n)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				cat, err := catalog.LoadFiles(catalog.File{Name: "synthetic.yaml", Data: data})
				if err != nil {
					b.Fatal(err)
				}
				lint.Run(cat, nil)
			}
		})
	}
}

// BenchmarkLint runs every rule on those catalogs, each loaded once.
func BenchmarkLint(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			cat, err := catalog.LoadFiles(catalog.File{Name: "synthetic.yaml", Data: catalogtest.YAML(n)})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				lint.Run(cat, nil)
			}
		})
	}
}
