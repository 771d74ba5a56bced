package breaking

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/catalog/lint"
	"github.com/toolcat/toolcat/gen"
)

var update = flag.Bool("update", false, "rewrite the want section of testdata/*.txtar")

// side loads one file of a fixture archive, with its generated Go API.
func side(t *testing.T, a *txtar.Archive, name string) *Side {
	t.Helper()
	f := section(a, name)
	if f == nil {
		t.Fatalf("no %s section", name)
	}
	cat, err := catalog.LoadFiles(catalog.File{Name: name, Data: f.Data})
	if err != nil {
		t.Fatalf("loading %s: %v", name, err)
	}
	return withAPI(t, cat)
}

func withAPI(t *testing.T, cat *catalog.Catalog) *Side {
	t.Helper()
	files, err := gen.Generate(cat)
	if err != nil {
		t.Fatalf("generating: %v", err)
	}
	api, err := GoAPI(files, gen.ToolFiles(cat), gen.CommonFile)
	if err != nil {
		t.Fatal(err)
	}
	return &Side{Catalog: cat, GoAPI: api}
}

func section(a *txtar.Archive, name string) *txtar.File {
	for i := range a.Files {
		if a.Files[i].Name == name {
			return &a.Files[i]
		}
	}
	return nil
}

func lines(diags []lint.Diagnostic) []string {
	out := []string{}
	for _, d := range diags {
		out = append(out, d.String())
	}
	return out
}

// TestRuleFixtures runs each rule on its fixture: old.yaml against
// new.yaml must report exactly the want lines, and against ok.yaml (a
// compatible change) nothing.
func TestRuleFixtures(t *testing.T) {
	for _, r := range Rules {
		t.Run(r.ID, func(t *testing.T) {
			file := filepath.Join("testdata", r.ID+".txtar")
			a, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			old := side(t, a, "old.yaml")
			got := lines(RunRule(r, old, side(t, a, "new.yaml")))
			if len(got) == 0 {
				t.Errorf("new.yaml: no findings")
			}
			for _, l := range got {
				if !strings.Contains(l, " "+r.ID+": ") {
					t.Errorf("finding of another rule: %s", l)
				}
			}
			w := section(a, "want")
			if *update {
				data := []byte(strings.Join(got, "\n") + "\n")
				if w == nil {
					a.Files = append(a.Files, txtar.File{Name: "want", Data: data})
				} else {
					w.Data = data
				}
				if err := os.WriteFile(file, txtar.Format(a), 0o666); err != nil {
					t.Fatal(err)
				}
			} else {
				if w == nil {
					t.Fatal("no want section")
				}
				want := strings.Split(strings.TrimRight(string(w.Data), "\n"), "\n")
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("new.yaml findings (-want +got):\n%s", diff)
				}
			}
			if ok := lines(RunRule(r, old, side(t, a, "ok.yaml"))); len(ok) > 0 {
				t.Errorf("ok.yaml findings:\n%s", strings.Join(ok, "\n"))
			}
		})
	}
}

// TestRegistry checks the rules themselves.
func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rules {
		if seen[r.ID] {
			t.Errorf("duplicate rule ID %s", r.ID)
		}
		seen[r.ID] = true
		if lint.Lookup(r.ID) != nil {
			t.Errorf("%s is also a lint rule: suppressions could not tell them apart", r.ID)
		}
		if !slices.Contains(Categories, r.Category) {
			t.Errorf("%s: unknown category %q", r.ID, r.Category)
		}
		if r.Purpose == "" || !strings.HasSuffix(r.Purpose, ".") {
			t.Errorf("%s: purpose must be a sentence", r.ID)
		}
		if _, err := os.Stat(filepath.Join("testdata", r.ID+".txtar")); err != nil {
			t.Errorf("%s: no fixture", r.ID)
		}
	}
	doc, err := os.ReadFile("../../docs/breaking.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range Rules {
		if !strings.Contains(string(doc), "`"+r.ID+"`") {
			t.Errorf("docs/breaking.md does not describe %s", r.ID)
		}
	}
}
