package validatortest

import (
	"testing"

	"github.com/toolcat/toolcat/gen/internal/validatortest/difftest"
	"github.com/toolcat/toolcat/runtime"
)

// The differential test: for every tool of the catalog, the generated
// validator and the general one must agree (see package difftest) on the
// seeds of difftest.Seeds and on what the fuzzer makes of them.

type validatorPair = difftest.Pair

// validatorPairs are the validators of every tool of the catalog, in the
// order of Metas (by name).
func validatorPairs(tb testing.TB) []validatorPair {
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
	generated := Validators()
	var out []validatorPair
	for _, m := range Metas() {
		if typed[m.Name] == nil {
			tb.Fatalf("%s: no typed validator listed", m.Name)
		}
		p, err := difftest.NewPair(m, generated[m.Name], typed[m.Name])
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, p)
	}
	if len(out) != len(typed) {
		tb.Fatalf("%d tools, %d typed validators listed", len(out), len(typed))
	}
	return out
}

// pairOf is the pair of the tool called name.
func pairOf(tb testing.TB, pairs []validatorPair, name string) validatorPair {
	tb.Helper()
	for _, p := range pairs {
		if p.Name == name {
			return p
		}
	}
	tb.Fatalf("no tool %s", name)
	return validatorPair{}
}

func FuzzDifferential(f *testing.F) {
	pairs := validatorPairs(f)
	for i, p := range pairs {
		for _, s := range difftest.Seeds[p.Name] {
			f.Add(uint8(i), []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, tool uint8, raw []byte) {
		compareValidators(t, pairs[int(tool)%len(pairs)], raw)
	})
}

func compareValidators(t *testing.T, p validatorPair, in []byte) {
	t.Helper()
	if msg := difftest.Compare(p, in, propertyNames); msg != "" {
		t.Fatal(msg)
	}
}

// propertyNames are the property names of every schema of the catalog.
var propertyNames = difftest.PropertyNames(Metas())
