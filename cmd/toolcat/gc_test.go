package main

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestRelaxGC(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want bool
	}{
		{0, false},
		{90 << 20, false}, // a 1,000-tool catalog
		{gcLimit/2 - 1, false},
		{gcLimit / 2, true},
		{1 << 30, true},
	} {
		if got := relaxGC(c.live); got != c.want {
			t.Errorf("relaxGC(%d MiB) = %v, want %v", c.live>>20, got, c.want)
		}
	}
}

func TestCatalogBytes(t *testing.T) {
	dir := t.TempDir()
	for name, size := range map[string]int{"a.yaml": 100, "b.cue": 50} {
		if err := os.WriteFile(filepath.Join(dir, name), make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := catalogBytes([]string{dir}); got != 150 {
		t.Errorf("directory: %d bytes, want 150", got)
	}
	if got := catalogBytes([]string{filepath.Join(dir, "a.yaml"), filepath.Join(dir, "missing.yaml")}); got != 100 {
		t.Errorf("files: %d bytes, want 100", got)
	}
	// 10,000 synthetic tools, 21 MB, load without the limit.
	if !relaxGC(21e6 * liveBytesPerByte) {
		t.Error("a 21 MB catalog loads under the memory limit")
	}
	if relaxGC(2e6 * liveBytesPerByte) {
		t.Error("a 2 MB catalog loads without the memory limit")
	}
}

func TestLargeLimit(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int64
	}{
		{gcLimit / 2, largeGCLimit},
		{21e6 * liveBytesPerByte, largeGCLimit}, // 10,000 synthetic tools
		{1 << 30, 3 << 29},                      // 26,000: half the live data more
		{math.MaxUint64, math.MaxInt64 / 4 * 3},
	} {
		if got := largeLimit(c.live); got != c.want {
			t.Errorf("largeLimit(%d MiB) = %d MiB, want %d MiB", c.live>>20, got>>20, c.want>>20)
		}
	}
}
