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

func validatorPairs(tb testing.TB) []validatorPair {
	tb.Helper()
	type entry struct {
		meta      runtime.Meta
		generated func(*runtime.Meta) (runtime.Validator, error)
		typed     func(*runtime.SchemaValidator) runtime.Validator
	}
	entries := []entry{
		{createEventMeta(), createEventValidator, runtime.Typed[CreateEventArgs]},
		{updateSettingsMeta(), updateSettingsValidator, runtime.Typed[UpdateSettingsArgs]},
		{logNoteMeta(), logNoteValidator, runtime.Typed[LogNoteArgs]},
		{pingHostMeta(), pingHostValidator, runtime.Typed[PingHostArgs]},
		{findContactMeta(), findContactValidator, runtime.Typed[FindContactArgs]},
		{assignTaskMeta(), assignTaskValidator, runtime.Typed[AssignTaskArgs]},
	}
	var out []validatorPair
	for _, e := range entries {
		p, err := difftest.NewPair(e.meta, e.generated, e.typed)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, p)
	}
	return out
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
