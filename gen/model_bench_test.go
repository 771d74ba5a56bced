package gen

import (
	"testing"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/catalog/catalogtest"
)

// BenchmarkBuildModel1000 is the naming of a 1,000-tool package, which
// every run does, cached or not: with the validators' names (gen) and
// without (scaffolds).
func BenchmarkBuildModel1000(b *testing.B) {
	cat, err := catalog.LoadFiles(catalog.File{Name: "synthetic.yaml", Data: catalogtest.YAML(1000)})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name       string
		validators bool
	}{{"generate", true}, {"scaffolds", false}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := buildModel(cat, c.validators, nil, ValidatorsCode); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
