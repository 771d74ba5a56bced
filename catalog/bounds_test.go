package catalog

import (
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// loadHostile loads testdata/hostile/name and returns its errors and the
// bytes allocated meanwhile.
func loadHostile(t *testing.T, name string) ([]string, uint64) {
	t.Helper()
	path := filepath.Join("testdata", "hostile", name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	_, err = LoadFiles(File{Name: name, Data: data})
	goruntime.ReadMemStats(&after)
	if err == nil {
		t.Fatalf("%s loads", name)
	}
	return errorLines(t, err), after.TotalAlloc - before.TotalAlloc
}

func TestYAMLAliasBomb(t *testing.T) {
	got, alloc := loadHostile(t, "alias_bomb.yaml")
	want := []string{`alias_bomb.yaml:6:8: YAML aliases expand the file by more than 100000 nodes; repeat less through aliases, or write the catalog in CUE`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	// Unbounded, the file's 9^9 strings take gigabytes.
	if alloc > 40<<20 {
		t.Errorf("loading allocated %d MiB, want under 40", alloc>>20)
	}
}

func TestYAMLAliasBudget(t *testing.T) {
	list := func(n int) string { return "a: &a [" + strings.Repeat("1, ", n) + "1]\n" }
	tests := []struct {
		desc string
		src  string
		ok   bool
	}{
		{"a small file may add 100,000 nodes", list(40_000) + "b: *a\nc: *a\n", true},
		{"a small file may not add more", list(40_000) + "b: *a\nc: *a\nd: *a\n", false},
		{"a larger file may add as many nodes as it holds", list(150_000) + "b: *a\n", true},
		{"a larger file may not add more", list(150_000) + "b: *a\nc: *a\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			_, errs := parseYAML("t.yaml", []byte(tt.src))
			if tt.ok && len(errs) > 0 || !tt.ok && len(errs) != 1 {
				t.Errorf("errors: %v", errs)
			}
		})
	}
}
