package gen

import (
	"testing"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/catalog/catalogtest"
)

// BenchmarkCheckValues1000 checks the values of the 1,000-tool catalog's
// args schemas, the part of Generate that checkValues adds.
func BenchmarkCheckValues1000(b *testing.B) {
	cat, err := catalog.LoadFiles(catalog.File{Name: "synthetic.yaml", Data: catalogtest.YAML(1000)})
	if err != nil {
		b.Fatal(err)
	}
	m, err := buildModel(cat, false, nil, ValidatorsCode)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := checkValues(m); err != nil {
			b.Fatal(err)
		}
	}
}
