package lint

import (
	"fmt"
	"testing"

	"github.com/toolcat/toolcat/catalog"
)

// BenchmarkDiscoveryQueries measures DISCOVERY_QUERIES on 1,000 tools
// with 5 queries each: one index build and 5,000 searches.
func BenchmarkDiscoveryQueries(b *testing.B) {
	cat, err := catalog.LoadFiles(catalog.File{Name: "big.yaml", Data: syntheticCatalog(1000)})
	if err != nil {
		b.Fatal(err)
	}
	for i, t := range cat.Tools {
		for j := range 5 {
			t.Queries = append(t.Queries, fmt.Sprintf("%s request %d about order %d and its owner", t.Name, j, i))
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		RunRule(DiscoveryQueries, cat, nil)
	}
}
