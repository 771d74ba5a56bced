package validatortest

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	code "github.com/toolcat/toolcat/gen/internal/validatortest"
	"github.com/toolcat/toolcat/gen/internal/validatortest/difftest"
	"github.com/toolcat/toolcat/runtime"
)

// The data-mode validators against the general validator (as the
// code-mode package's differential test does) and against the code-mode
// validators of the package above, which they must match exactly: the
// same verdict, the same error, the same value.

// dataTools are the tools whose validators are data-mode ones: a tool
// that falls back to one-pass code fails TestDataModeTools.
var dataTools = []string{"assign_task", "create_event", "list_invoices", "log_note", "ping_host", "search_notes", "update_settings"}

var dataPass = regexp.MustCompile(`return runtime\.DataPassFor\(\(\*\w+\)\(nil\), &\w+\)`)

func TestDataModeTools(t *testing.T) {
	files, err := filepath.Glob("*_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if dataPass.Match(data) {
			got = append(got, f[:len(f)-len("_gen.go")])
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, dataTools) {
		t.Errorf("tools with data-mode validators: %v, want %v", got, dataTools)
	}
}

// triple is the validators of one tool: this package's (data mode's, or
// code for a tool the descriptor does not cover) and the general one; for
// a data-mode tool, code mode's too.
type triple struct {
	pair difftest.Pair
	code runtime.Validator
}

func triples(tb testing.TB) []triple {
	tb.Helper()
	typed := map[string]func(*runtime.SchemaValidator) runtime.Validator{
		"assign_task":     runtime.Typed[AssignTaskArgs],
		"create_event":    runtime.Typed[CreateEventArgs],
		"find_contact":    runtime.Typed[FindContactArgs],
		"list_invoices":   runtime.Typed[ListInvoicesArgs],
		"log_note":        runtime.Typed[LogNoteArgs],
		"ping_host":       runtime.Typed[PingHostArgs],
		"search_notes":    runtime.Typed[SearchNotesArgs],
		"update_settings": runtime.Typed[UpdateSettingsArgs],
	}
	mine, theirs := Validators(), code.Validators()
	var out []triple
	for _, m := range Metas() {
		p, err := difftest.NewPair(m, mine[m.Name], typed[m.Name])
		if err != nil {
			tb.Fatal(err)
		}
		tr := triple{pair: p}
		// The other tools' validators are the same code in both
		// packages.
		if slices.Contains(dataTools, m.Name) {
			if tr.code, err = theirs[m.Name](&m); err != nil {
				tb.Fatal(err)
			}
		}
		out = append(out, tr)
	}
	if len(out) != len(typed) {
		tb.Fatalf("%d tools, %d typed validators listed", len(out), len(typed))
	}
	return out
}

var propertyNames = difftest.PropertyNames(Metas())

func TestSeeds(t *testing.T) {
	for _, tr := range triples(t) {
		seeds := difftest.Seeds[tr.pair.Name]
		if len(seeds) == 0 {
			t.Errorf("%s: no seeds", tr.pair.Name)
		}
		for _, s := range seeds {
			if msg := difftest.Compare(tr.pair, []byte(s), propertyNames); msg != "" {
				t.Error(msg)
			}
			if tr.code == nil {
				continue
			}
			if msg := difftest.CompareModes(tr.pair.Name, tr.pair.Generated, tr.code, []byte(s)); msg != "" {
				t.Error(msg)
			}
		}
	}
}

func FuzzDifferential(f *testing.F) {
	trs := triples(f)
	for i, tr := range trs {
		for _, s := range difftest.Seeds[tr.pair.Name] {
			f.Add(uint8(i), []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, tool uint8, raw []byte) {
		tr := trs[int(tool)%len(trs)]
		if msg := difftest.Compare(tr.pair, raw, propertyNames); msg != "" {
			t.Fatal(msg)
		}
		if tr.code == nil {
			return
		}
		if msg := difftest.CompareModes(tr.pair.Name, tr.pair.Generated, tr.code, raw); msg != "" {
			t.Fatal(msg)
		}
	})
}
