package toolscan

import (
	"os"
	"testing"
)

// BenchmarkScanCorpus scans every tool of the test corpus (TOOLCAT_CORPUS).
func BenchmarkScanCorpus(b *testing.B) {
	dir := os.Getenv("TOOLCAT_CORPUS")
	if dir == "" {
		b.Skip("TOOLCAT_CORPUS is not set")
	}
	t := &testing.T{}
	tools := corpusTools(t, dir)
	b.ResetTimer()
	for b.Loop() {
		scanServers(tools)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(tools)), "ns/tool")
}
