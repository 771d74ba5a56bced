package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/catalog/catalogtest"
)

// TestProfileFlags: --cpuprofile and --memprofile write profiles pprof
// reads (gzipped protocol buffers), and a profile that cannot be written
// is a usage error naming the flag.
func TestProfileFlags(t *testing.T) {
	dir := t.TempDir()
	cat := filepath.Join(dir, "catalog.yaml")
	if err := os.WriteFile(cat, catalogtest.YAML(20), 0o644); err != nil {
		t.Fatal(err)
	}
	cpu, mem := filepath.Join(dir, "cpu.out"), filepath.Join(dir, "mem.out")
	var stdout, stderr bytes.Buffer
	code := Main([]string{"lint", "--cpuprofile", cpu, "--memprofile", mem, cat}, nil, &stdout, &stderr)
	if code != exitOK && code != exitFindings {
		t.Fatalf("lint exited %d: %s", code, stderr.String())
	}
	for _, name := range []string{cpu, mem} {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatalf("%s is no gzipped profile: %v", filepath.Base(name), err)
		}
		data, err := io.ReadAll(zr)
		f.Close()
		if err != nil || len(data) == 0 {
			t.Fatalf("%s: %d bytes, %v", filepath.Base(name), len(data), err)
		}
	}

	stderr.Reset()
	code = Main([]string{"lint", "--cpuprofile", filepath.Join(dir, "no", "such", "dir", "cpu.out"), cat}, nil, io.Discard, &stderr)
	if code != exitUsage || !strings.Contains(stderr.String(), "--cpuprofile") {
		t.Errorf("an unwritable CPU profile: exit %d, stderr %q", code, stderr.String())
	}
	stderr.Reset()
	code = Main([]string{"lint", "--memprofile", filepath.Join(dir, "no", "such", "dir", "mem.out"), cat}, nil, io.Discard, &stderr)
	if code != exitUsage || !strings.Contains(stderr.String(), "--memprofile") {
		t.Errorf("an unwritable memory profile: exit %d, stderr %q", code, stderr.String())
	}
}
