package catalog_test

import (
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

// BenchmarkLoad1000 loads a synthetic catalog of 1,000 tools (about 1 MB
// of YAML).
func BenchmarkLoad1000(b *testing.B) {
	data := catalogtest.YAML(1000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := catalog.LoadFiles(catalog.File{Name: "synthetic.yaml", Data: data}); err != nil {
			b.Fatal(err)
		}
	}
}
