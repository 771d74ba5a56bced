package catalog_test

import (
	"fmt"
	"testing"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/catalog/catalogtest"
)

func TestSyntheticCatalogLoads(t *testing.T) {
	cat, err := catalog.LoadFiles(catalog.File{Name: "synthetic.yaml", Data: catalogtest.YAML(50)})
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Tools) != 50 {
		t.Fatalf("got %d tools, want 50", len(cat.Tools))
	}
}

// benchSizes are the catalog sizes the scale benchmarks run at: loading
// and linting should grow linearly across them.
var benchSizes = []int{1000, 3000, 10000}

// BenchmarkLoad loads synthetic catalogs of 1,000, 3,000 and 10,000 tools
// (about 2 KB of YAML a tool). ns/op at 3,000 should stay within 3.3
// times that at 1,000. BenchmarkLoadCUE loads them evaluated in CUE, as a
// catalog the direct decoder gives up on is.
func BenchmarkLoad(b *testing.B)    { benchmarkLoad(b, catalog.LoadFiles) }
func BenchmarkLoadCUE(b *testing.B) { benchmarkLoad(b, catalog.LoadFilesCUE) }

func benchmarkLoad(b *testing.B, load func(...catalog.File) (*catalog.Catalog, error)) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			data := catalogtest.YAML(n)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := load(catalog.File{Name: "synthetic.yaml", Data: data}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
