package validatortest

import (
	"testing"

	code "github.com/toolcat/toolcat/gen/internal/validatortest"
	"github.com/toolcat/toolcat/runtime"
)

// BenchmarkModes times the validators that toolcat generates for the same
// tools in code mode (the package above) and in data mode (this one), on
// one valid call each.
func BenchmarkModes(b *testing.B) {
	calls := []struct{ tool, args string }{
		{"search_notes", `{"query":"pgvector","max_results":3,"sort":"date"}`},
		{"list_invoices", `{"account_id":"acc_42","status":"open","max_results":50,"filter":{"created_after":"2026-01-02T09:00:00Z","amount_range":{"min":10}},"tags":["a","b"]}`},
	}
	metas := map[string]runtime.Meta{}
	for _, m := range Metas() {
		metas[m.Name] = m
	}
	for _, c := range calls {
		for _, mode := range []struct {
			name string
			v    map[string]func(*runtime.Meta) (runtime.Validator, error)
		}{{"code", code.Validators()}, {"data", Validators()}} {
			m := metas[c.tool]
			v, err := mode.v[c.tool](&m)
			if err != nil {
				b.Fatal(err)
			}
			raw := []byte(c.args)
			b.Run(c.tool+"/"+mode.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, te := v.Validate(raw); te != nil {
						b.Fatal(te)
					}
				}
			})
		}
	}
}
