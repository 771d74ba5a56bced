package gen_test

import (
	"bytes"
	"flag"
	"go/format"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/gen"
	"github.com/toolcat/toolcat/internal/gomodtest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/*/want")

// cases are the folders of testdata: a catalog.yaml each, with the files
// toolcat generates and scaffolds for it in want/.
func cases(t *testing.T) []string {
	dirs, err := filepath.Glob("testdata/*/catalog.yaml")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	for i, d := range dirs {
		dirs[i] = filepath.Dir(d)
	}
	return dirs
}

// output is everything gen produces for a catalog: generated files and
// scaffolds, by name.
func output(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	cat, err := catalog.Load(filepath.Join(dir, "catalog.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	files, err := gen.Generate(cat, gen.RelativeTo(dir))
	if err != nil {
		t.Fatal(err)
	}
	scaffolds, err := gen.Scaffolds(cat)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range scaffolds {
		if _, dup := files[s.File]; dup {
			t.Fatalf("scaffold %s has the name of a generated file", s.File)
		}
		files[s.File] = s.Data
	}
	return files
}

func TestGolden(t *testing.T) {
	for _, dir := range cases(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			got := output(t, dir)
			wantDir := filepath.Join(dir, "want")
			if *update {
				os.RemoveAll(wantDir)
				os.MkdirAll(wantDir, 0o755)
				for name, data := range got {
					if err := os.WriteFile(filepath.Join(wantDir, name+".golden"), data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				return
			}
			want := map[string][]byte{}
			ents, _ := os.ReadDir(wantDir)
			for _, e := range ents {
				data, err := os.ReadFile(filepath.Join(wantDir, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				want[strings.TrimSuffix(e.Name(), ".golden")] = data
			}
			if diff := cmp.Diff(names(want), names(got)); diff != "" {
				t.Fatalf("files (-want +got):\n%s", diff)
			}
			for name := range got {
				if diff := cmp.Diff(string(want[name]), string(got[name])); diff != "" {
					t.Errorf("%s (-want +got); run go test ./gen -update if the change is intended:\n%s", name, diff)
				}
				if src, err := format.Source(got[name]); err != nil || !bytes.Equal(src, got[name]) {
					t.Errorf("%s is not as gofmt writes it (err %v)", name, err)
				}
			}
		})
	}
}

func names(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Generation is deterministic: the same catalog gives the same bytes, run
// after run (maps are iterated in random order).
func TestDeterministic(t *testing.T) {
	for _, dir := range cases(t) {
		first := output(t, dir)
		for range 5 {
			again := output(t, dir)
			for name, data := range first {
				if !bytes.Equal(data, again[name]) {
					t.Fatalf("%s/%s differs between two runs", dir, name)
				}
			}
		}
	}
}

// The generated code of every case compiles, vets clean and passes its own
// tests, as a module of its own that requires this one.
func TestGeneratedCodeBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module per case; skipped with -short")
	}
	for _, dir := range cases(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			mod := t.TempDir()
			pkg := filepath.Join(mod, "pkg")
			os.MkdirAll(pkg, 0o755)
			for name, data := range output(t, dir) {
				os.WriteFile(filepath.Join(pkg, name), data, 0o644)
			}
			extra, _ := filepath.Glob(filepath.Join(dir, "impl", "*.go"))
			for _, f := range extra {
				data, _ := os.ReadFile(f)
				os.WriteFile(filepath.Join(pkg, filepath.Base(f)), data, 0o644)
			}
			if err := gomodtest.Write(mod, "example.com/golden"); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{{"mod", "tidy"}, {"vet", "./..."}, {"test", "-count=1", "./..."}} {
				gomodtest.Go(t, mod, args...)
			}
		})
	}
}
