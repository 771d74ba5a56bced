package lint

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/toolcat/toolcat/catalog"
)

var update = flag.Bool("update", false, "rewrite the want section of testdata/*.txtar")

// loadFixture loads one file of a fixture archive as a catalog.
func loadFixture(t *testing.T, a *txtar.Archive, name string) *catalog.Catalog {
	t.Helper()
	for _, f := range a.Files {
		if f.Name == name {
			cat, err := catalog.LoadFiles(catalog.File{Name: name, Data: f.Data})
			if err != nil {
				t.Fatalf("loading %s: %v", name, err)
			}
			return cat
		}
	}
	t.Fatalf("no %s section", name)
	return nil
}

func section(a *txtar.Archive, name string) *txtar.File {
	for i := range a.Files {
		if a.Files[i].Name == name {
			return &a.Files[i]
		}
	}
	return nil
}

func diagLines(diags []Diagnostic) []string {
	lines := []string{}
	for _, d := range diags {
		lines = append(lines, d.String())
	}
	return lines
}

// TestRuleFixtures runs each rule on its fixture: bad.yaml must report
// exactly the want lines, good.yaml nothing.
func TestRuleFixtures(t *testing.T) {
	for _, r := range Rules {
		if r == SuppressionUnused {
			continue // reported by Run; see TestSuppressions
		}
		t.Run(r.ID, func(t *testing.T) {
			file := filepath.Join("testdata", r.ID+".txtar")
			a, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			cfg := DefaultConfig()
			if c := section(a, "toolcat.yaml"); c != nil {
				if cfg, err = ParseConfig("toolcat.yaml", c.Data); err != nil {
					t.Fatal(err)
				}
			}
			got := diagLines(RunRule(r, loadFixture(t, a, "bad.yaml"), cfg))
			if len(got) == 0 {
				t.Errorf("bad.yaml: no findings")
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
					t.Errorf("bad.yaml findings (-want +got):\n%s", diff)
				}
			}
			if good := diagLines(RunRule(r, loadFixture(t, a, "good.yaml"), cfg)); len(good) > 0 {
				t.Errorf("good.yaml findings:\n%s", strings.Join(good, "\n"))
			}
		})
	}
}

var upperSnake = regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$`)

var categories = []string{"names", "descriptions", "schemas", "safety", "security", "graph", "catalog"}

// TestRegistry checks the rule set itself.
func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rules {
		if seen[r.ID] {
			t.Errorf("duplicate rule ID %s", r.ID)
		}
		seen[r.ID] = true
		if !upperSnake.MatchString(r.ID) {
			t.Errorf("rule ID %q is not UPPER_SNAKE", r.ID)
		}
		if strings.TrimSpace(r.Purpose) == "" {
			t.Errorf("%s: no Purpose", r.ID)
		}
		if !slices.Contains(categories, r.Category) {
			t.Errorf("%s: category %q is not one of %v", r.ID, r.Category, categories)
		}
		if r.Check == nil {
			t.Errorf("%s: no Check", r.ID)
		}
		var in []string
		for _, s := range Sets {
			if sev, ok := s.Rules[r.ID]; ok {
				in = append(in, s.Name)
				if sev == Off {
					t.Errorf("%s: off in set %s; leave it out of the sets instead", r.ID, s.Name)
				}
			}
		}
		if len(in) != 1 {
			t.Errorf("%s: in sets %v, want exactly one", r.ID, in)
		}
		if r != SuppressionUnused {
			if _, err := os.Stat(filepath.Join("testdata", r.ID+".txtar")); err != nil {
				t.Errorf("%s: no fixture: %v", r.ID, err)
			}
		}
	}
	for i, s := range Sets {
		for id := range s.Rules {
			if !seen[id] {
				t.Errorf("set %s names unknown rule %s", s.Name, id)
			}
		}
		if (i == 0) != (s.Extends == nil) || i > 0 && s.Extends != Sets[i-1] {
			t.Errorf("set %s does not extend the set before it", s.Name)
		}
		if !upperSnake.MatchString(s.Name) || strings.TrimSpace(s.Purpose) == "" {
			t.Errorf("set %q: want an UPPER_SNAKE name and a purpose", s.Name)
		}
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	for _, f := range files {
		id := strings.TrimSuffix(filepath.Base(f), ".txtar")
		if !seen[id] {
			t.Errorf("fixture %s has no rule", f)
		}
	}
}

// TestGoodCatalog checks that a realistic, careful catalog passes every
// rule at its default severity. The one finding allowed is the note that
// OpenAI's strict mode cannot take a schema: strict mode refuses
// minLength and maxLength, which a careful catalog uses, and the note only
// says what the exporter will do.
func TestGoodCatalog(t *testing.T) {
	cat, err := catalog.Load(filepath.Join("testdata", "good_catalog.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Tools) < 4 {
		t.Fatalf("good catalog has %d tools, want at least 4", len(cat.Tools))
	}
	var other []Diagnostic
	for _, d := range Run(cat, nil) {
		if d.RuleID != SchemaStrictMode.ID || d.Severity != Note {
			other = append(other, d)
		}
	}
	if d := diagLines(other); len(d) > 0 {
		t.Errorf("findings on the good catalog:\n%s", strings.Join(d, "\n"))
	}
}
