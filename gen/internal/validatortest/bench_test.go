package validatortest

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	"github.com/toolcat/toolcat/runtime"
)

var benchArgs = []byte(`{"query":"pgvector","max_results":3,"sort":"date"}`)

// BenchmarkCall compares a call of search_notes through the registry, with
// its generated validator and with the general one, to the same work done
// by hand: json.Unmarshal into the Args struct, the method call and
// json.Marshal of the result, without validation.
func BenchmarkCall(b *testing.B) {
	ctx := context.Background()
	b.Run("by_hand", func(b *testing.B) {
		impl := &searchNotes{}
		b.ReportAllocs()
		for b.Loop() {
			var a SearchNotesArgs
			if err := json.Unmarshal(benchArgs, &a); err != nil {
				b.Fatal(err)
			}
			res, err := impl.Execute(ctx, &a)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(res); err != nil {
				b.Fatal(err)
			}
		}
	})
	call := func(b *testing.B, general bool) {
		tool, _, err := searchNotesTool(&Tools{SearchNotes: &searchNotes{}})
		if err != nil {
			b.Fatal(err)
		}
		if general {
			sv, err := runtime.NewSchemaValidator(&tool.Meta)
			if err != nil {
				b.Fatal(err)
			}
			tool.Validator = runtime.Typed[SearchNotesArgs](sv)
		}
		reg := runtime.New(runtime.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
		if err := reg.Register(tool); err != nil {
			b.Fatal(err)
		}
		if res := reg.Call(ctx, "search_notes", benchArgs, runtime.CallOptions{}); !res.Success {
			b.Fatalf("call: %s", res.JSON())
		}
		b.ReportAllocs()
		for b.Loop() {
			res := reg.Call(ctx, "search_notes", benchArgs, runtime.CallOptions{})
			if !res.Success {
				b.Fatal("call failed")
			}
			_ = res.JSON()
		}
	}
	b.Run("generated_validator", func(b *testing.B) { call(b, false) })
	b.Run("general_validator", func(b *testing.B) { call(b, true) })
}

// BenchmarkValidate isolates argument validation.
func BenchmarkValidate(b *testing.B) {
	b.Run("encoding_json_unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var a SearchNotesArgs
			if err := json.Unmarshal(benchArgs, &a); err != nil {
				b.Fatal(err)
			}
		}
	})
	m := searchNotesMeta()
	gen, err := searchNotesValidator(&m)
	if err != nil {
		b.Fatal(err)
	}
	sv, err := runtime.NewSchemaValidator(&m)
	if err != nil {
		b.Fatal(err)
	}
	for _, v := range []struct {
		name string
		v    runtime.Validator
	}{{"generated", gen}, {"general", runtime.Typed[SearchNotesArgs](sv)}} {
		b.Run(v.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, te := v.v.Validate(benchArgs); te != nil {
					b.Fatal(te)
				}
			}
		})
	}
}
