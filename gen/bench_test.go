package gen_test

import (
	"testing"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/catalog/catalogtest"
	"github.com/toolcat/toolcat/gen"
)

// BenchmarkGenerate1000 compiles a loaded catalog of 1,000 tools (5 to 10
// arguments each, enums, nested objects, arrays of objects) into Go.
func BenchmarkGenerate1000(b *testing.B) { benchmarkGenerate(b) }

// BenchmarkGenerate1000Code is BenchmarkGenerate1000 with code-mode
// validators, which auto gives catalogs of up to AutoDataTools tools.
func BenchmarkGenerate1000Code(b *testing.B) {
	benchmarkGenerate(b, gen.WithValidators(gen.ValidatorsCode))
}

func benchmarkGenerate(b *testing.B, opts ...gen.Option) {
	cat, err := catalog.LoadFiles(catalog.File{Name: "synthetic.yaml", Data: catalogtest.YAML(1000)})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := gen.Generate(cat, opts...); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadGenerate1000 is what toolcat gen does before writing: load
// the YAML, then generate.
func BenchmarkLoadGenerate1000(b *testing.B) {
	data := catalogtest.YAML(1000)
	b.ReportAllocs()
	for b.Loop() {
		cat, err := catalog.LoadFiles(catalog.File{Name: "synthetic.yaml", Data: data})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := gen.Generate(cat); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGenerate1000Cached is a regeneration in which no tool changed:
// every tool file and validator's names come from the cache, and only the
// common files are rendered.
func BenchmarkGenerate1000Cached(b *testing.B) {
	cat, err := catalog.LoadFiles(catalog.File{Name: "synthetic.yaml", Data: catalogtest.YAML(1000)})
	if err != nil {
		b.Fatal(err)
	}
	c := namesCache{&mapCache{files: map[string][]byte{}, names: map[string][]string{}}}
	if _, err := gen.Generate(cat, gen.WithCache(c)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := gen.Generate(cat, gen.WithCache(c)); err != nil {
			b.Fatal(err)
		}
	}
}
