package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/toolcat/toolcat/catalog/catalogtest"
)

// BenchmarkGen1000 is toolcat gen end to end on the synthetic catalog of
// 1,000 tools (catalogtest.YAML), at the command's own GC pace: loading
// the YAML, generating, and writing the files.
func BenchmarkGen1000(b *testing.B) {
	data := catalogtest.YAML(1000)
	catalogFile := filepath.Join(b.TempDir(), "catalog.yaml")
	if err := os.WriteFile(catalogFile, data, 0o644); err != nil {
		b.Fatal(err)
	}
	tuneGC()
	b.Cleanup(func() {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
		gcTuned = false
	})

	// A first run: every file is rendered, and 2,000 are created (the
	// generated files and the scaffolds).
	b.Run("into an empty directory", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			dir := filepath.Join(b.TempDir(), "out")
			b.StartTimer()
			genInto(b, catalogFile, dir)
		}
	})

	// The everyday run: one tool's description changed since the last, and
	// the cache gives back the files of the others.
	b.Run("after editing one tool", func(b *testing.B) {
		useGenCache(b, "benchmark build")
		dir := b.TempDir()
		genInto(b, catalogFile, dir)
		const tool = "Search invoices of the account, one page at a time, variant 5."
		if !bytes.Contains(data, []byte(tool)) {
			b.Fatalf("the synthetic catalog no longer describes tool 5 as %q", tool)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			edited := bytes.Replace(data, []byte(tool), fmt.Appendf(nil, "%s Edit %d.", tool[:len(tool)-1], i), 1)
			if err := os.WriteFile(catalogFile, edited, 0o644); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			genInto(b, catalogFile, dir)
		}
	})
}
