package runtime_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolcat/toolcat/runtime"
)

// FuzzCall sends arbitrary argument bytes to tools validated by the general
// and by the generated validator: every call must return an envelope that
// encodes to valid JSON, never panic.
func FuzzCall(f *testing.F) {
	for _, s := range []string{
		`{"query":"pgvector"}`, `{"query":"pg","max_results":50}`, `{"query":"pg","sort":"dat"}`,
		`{"query":"\u00e9\ud83d\ude00","max_results":1e1}`, `{"query":"pg","maxresults":3}`, `[]`, `null`, ``,
		`{"query":"pg",}`, `{"query":"pg"} x`, `{"a":{"b":[1,2,{"c":null}]}}`, `"\ud800"`, `-0.0e-7`,
		`{"query":"pg","max_results":0.33333333333333333333333333333333333333333333}`, `{"query":1e700}`, `{"query":"pg","max_results":1e1001}`,
	} {
		f.Add(uint8(0), []byte(s))
		f.Add(uint8(1), []byte(s))
	}
	r := runtime.New(runtime.WithLogger(quietLogger()))
	mustRegister(f, r,
		runtime.Tool{Meta: searchMeta(), Execute: echo},
		searchToolNamed("search_generated", searchArticlesValidator),
		runtime.Tool{Meta: runtime.Meta{Name: "fetch_page", ReturnsUntrusted: true, AdditionalArgs: runtime.AdditionalArgsAllow}, Execute: echo},
		runtime.Tool{Meta: runtime.Meta{Name: "crash_now", AdditionalArgs: runtime.AdditionalArgsAllow},
			Execute: func(_ context.Context, a any) (any, error) { panic(a) }},
	)
	tools := []string{"search_articles", "search_generated", "fetch_page", "crash_now", "no_such_tool"}
	f.Fuzz(func(t *testing.T, tool uint8, raw []byte) {
		name := tools[int(tool)%len(tools)]
		res := r.Call(context.Background(), name, raw, runtime.CallOptions{IdempotencyKey: string(raw[:min(len(raw), 8)])})
		b := res.JSON()
		var env map[string]any
		if err := json.Unmarshal(b, &env); err != nil {
			t.Fatalf("envelope is not JSON: %v: %s", err, b)
		}
		if res.Success {
			if _, ok := env["data"]; !ok {
				t.Fatalf("success without data: %s", b)
			}
			return
		}
		if res.Error == nil || !res.Error.Code.Valid() || res.Error.Suggestion == "" {
			t.Fatalf("bad error envelope: %s", b)
		}
	})
}

func searchToolNamed(name string, v runtime.Validator) runtime.Tool {
	tool := searchTool(searchImpl{}, v)
	tool.Meta.Name = name
	return tool
}

// FuzzValidators checks that the generated validator (bench_test.go) and the
// general one agree on every input: same verdict, same field, same
// arguments.
func FuzzValidators(f *testing.F) {
	for _, s := range []string{
		`{"query":"pgvector"}`, `{"query":"pg","max_results":50}`, `{"query":"pg","sort":"dat"}`,
		`{"query":"pg","max_results":2.0}`, `{"query":"pg","max_results":1e400}`, `{"query":"pg","query":"x"}`,
		`{"query":"\xff\xfe"}`, `{"query":"pg","max_results":-0}`, `{}`, `[]`, `{"query":null}`,
	} {
		f.Add([]byte(s))
	}
	m := searchMeta()
	sv, err := runtime.NewSchemaValidator(&m)
	if err != nil {
		f.Fatal(err)
	}
	gen := searchArticlesValidator
	f.Fuzz(func(t *testing.T, raw []byte) {
		a, te1 := sv.Validate(raw)
		g, te2 := gen.Validate(raw)
		if (te1 == nil) != (te2 == nil) {
			t.Fatalf("verdicts differ on %q:\n schema: %v\n generated: %v", raw, te1, te2)
		}
		if te1 != nil {
			// With several errors, each validator may report another first.
			return
		}
		am := a.(map[string]any)
		ga := g.(*SearchArticlesArgs)
		if am["query"] != ga.Query || am["max_results"] != float64(ga.MaxResults) || am["sort"] != ga.Sort {
			t.Fatalf("arguments differ on %q: schema %v, generated %+v", raw, am, ga)
		}
	})
}
