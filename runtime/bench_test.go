package runtime_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/jsonscan"
)

// This file holds, written by hand, what toolcat generates for the
// search_articles tool of searchMeta: the typed Args and Result, the
// specialised one-pass validator and the typed adapter. The benchmarks
// compare a Call through it with the same work done by hand.

// SearchArticlesArgs are the arguments of search_articles.
type SearchArticlesArgs struct {
	Query      string `json:"query"`
	MaxResults int64  `json:"max_results"`
	Sort       string `json:"sort"`
}

// Article is one search hit.
type Article struct {
	ID    int64  `json:"id"`
	Title string `json:"title"`
}

// SearchArticlesResult is the data search_articles returns.
type SearchArticlesResult struct {
	Articles []Article `json:"articles"`
	Total    int       `json:"total"`
}

// searchImpl is the user's implementation.
type searchImpl struct{}

func (searchImpl) Execute(_ context.Context, a *SearchArticlesArgs) (*SearchArticlesResult, error) {
	n := min(int(a.MaxResults), 2)
	res := &SearchArticlesResult{Articles: make([]Article, n), Total: n}
	for i := range n {
		res.Articles[i] = Article{ID: int64(i + 1), Title: a.Query}
	}
	return res, nil
}

// searchArticlesValidator is the generated one-pass validator: it decodes
// into SearchArticlesArgs, applies the defaults and checks every keyword of
// the schema as it goes.
var searchArticlesValidator = runtime.OnePass(&searchArticlesObject, scanSearchArticlesArgs)

// The schemas searchArticlesValidator checks the arguments against.
var (
	searchArticlesObject           = runtime.Object{Names: []string{"max_results", "query", "sort"}, Required: []string{"query"}, Reject: true}
	searchArticlesQuerySchema      = runtime.StringSchema{Type: "string", MinLength: 2, MaxLength: 200}
	searchArticlesMaxResultsSchema = runtime.NumberSchema{Type: "integer", Bounds: &runtime.Bounds{Min: 1, HasMin: true, Max: 20, HasMax: true}}
	searchArticlesSortSchema       = runtime.StringSchema{Type: "string", MinLength: -1, MaxLength: -1, Enum: []string{"relevance", "date"}, Allowed: []any{"relevance", "date"}}
)

// scanSearchArticlesArgs reads the members of SearchArticlesArgs into out; d
// has read its '{'.
func scanSearchArticlesArgs(d *jsonscan.Decoder, at *runtime.Path, out *SearchArticlesArgs, defaults bool, late **runtime.ToolError) *runtime.ToolError {
	*out = SearchArticlesArgs{}
	var seen uint64
	ms := searchArticlesObject.Members(d, at)
	for ms.Next() {
		var te *runtime.ToolError
		switch string(ms.Key) {
		case "query":
			seen |= 1 << 0
			te = runtime.ReadString(d, at.Key("query"), &searchArticlesQuerySchema, &out.Query)
		case "max_results":
			seen |= 1 << 1
			te = runtime.ReadInt(d, at.Key("max_results"), &searchArticlesMaxResultsSchema, &out.MaxResults, late)
		case "sort":
			seen |= 1 << 2
			te = runtime.ReadString(d, at.Key("sort"), &searchArticlesSortSchema, &out.Sort)
		default:
			te = ms.Skip()
		}
		if te != nil {
			return te
		}
	}
	if te := ms.End(seen); te != nil {
		return te
	}
	if defaults {
		if seen&(1<<1) == 0 {
			out.MaxResults = 5
		}
		if seen&(1<<2) == 0 {
			out.Sort = "relevance"
		}
	}
	return nil
}

// searchTool is the generated registration of search_articles.
func searchTool(impl searchImpl, v runtime.Validator) runtime.Tool {
	return runtime.Tool{
		Meta:      searchMeta(),
		Validator: v,
		Execute:   runtime.Bind(impl.Execute),
	}
}

// searchArgsDesc is what toolcat gen --validators=data writes for
// search_articles instead of the validator above: a static descriptor.
var searchArgsDesc = runtime.StructDesc{Object: runtime.Object{Names: []string{"max_results", "query", "sort"}, Required: []string{"query"}, Reject: true}, Fields: []runtime.FieldDesc{
	{Key: "query", Kind: runtime.KindString, String: &runtime.StringSchema{Type: "string", MinLength: 2, MaxLength: 200}, Seen: 1 << 0},
	{Key: "max_results", Field: 1, Kind: runtime.KindInt, Number: &runtime.NumberSchema{Type: "integer", Bounds: &runtime.Bounds{Min: 1, HasMin: true, Max: 20, HasMax: true}}, Seen: 1 << 1, Default: "5"},
	{Key: "sort", Field: 2, Kind: runtime.KindString, String: &runtime.StringSchema{Type: "string", MinLength: -1, MaxLength: -1, Enum: []string{"relevance", "date"}, Allowed: []any{"relevance", "date"}}, Seen: 1 << 2, Default: `"relevance"`},
}}

func dataValidator(tb testing.TB) runtime.Validator {
	v, err := runtime.DataPass[SearchArticlesArgs](&searchArgsDesc)
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

func schemaTypedValidator(tb testing.TB) runtime.Validator {
	m := searchMeta()
	sv, err := runtime.NewSchemaValidator(&m)
	if err != nil {
		tb.Fatal(err)
	}
	return runtime.Typed[SearchArticlesArgs](sv)
}

var benchArgs = []byte(`{"query":"pgvector","max_results":3,"sort":"date"}`)

// benchTool is searchTool with a deadline of a minute instead of 200 ms: it
// is set up and checked the same way, and a loaded machine that stalls the
// benchmark for a moment does not fail the run with a timeout.
func benchTool(v runtime.Validator) runtime.Tool {
	t := searchTool(searchImpl{}, v)
	t.Meta.SLA = time.Minute
	return t
}

func BenchmarkCall(b *testing.B) {
	ctx := context.Background()
	b.Run("by_hand", func(b *testing.B) {
		impl := searchImpl{}
		b.ReportAllocs()
		for b.Loop() {
			var a SearchArticlesArgs
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
	call := func(b *testing.B, v runtime.Validator, opts runtime.CallOptions) {
		r := runtime.New(runtime.WithLogger(quietLogger()))
		mustRegister(b, r, benchTool(v))
		if res := r.Call(ctx, "search_articles", benchArgs, opts); !res.Success {
			b.Fatalf("call: %s", res.JSON())
		}
		b.ReportAllocs()
		for b.Loop() {
			res := r.Call(ctx, "search_articles", benchArgs, opts)
			if !res.Success {
				b.Fatalf("call failed: %s", res.JSON())
			}
			_ = res.JSON()
		}
	}
	b.Run("generated_validator", func(b *testing.B) {
		call(b, searchArticlesValidator, runtime.CallOptions{})
	})
	b.Run("data_validator", func(b *testing.B) {
		call(b, dataValidator(b), runtime.CallOptions{})
	})
	b.Run("schema_validator", func(b *testing.B) {
		call(b, schemaTypedValidator(b), runtime.CallOptions{})
	})
	apart := func(b *testing.B, opt runtime.Option) {
		r := runtime.New(runtime.WithLogger(quietLogger()), opt)
		mustRegister(b, r, benchTool(searchArticlesValidator))
		b.ReportAllocs()
		for b.Loop() {
			res := r.Call(ctx, "search_articles", benchArgs, runtime.CallOptions{})
			if !res.Success {
				b.Fatalf("call failed: %s", res.JSON())
			}
			_ = res.JSON()
		}
	}
	b.Run("generated_validator_detached", func(b *testing.B) { apart(b, runtime.WithDetachOnTimeout(true)) })
	b.Run("generated_validator_tool_goroutine", func(b *testing.B) { apart(b, runtime.WithToolGoroutine(true)) })
	b.Run("generated_validator_with_step", func(b *testing.B) {
		call(b, searchArticlesValidator, runtime.CallOptions{StepID: "step-1"})
	})
	b.Run("session_read_only", func(b *testing.B) {
		// The generated_validator call through a Session (memory store)
		// past its first turn: its state read, its turn as the step, its
		// record of the call.
		r := runtime.New(runtime.WithLogger(quietLogger()))
		mustRegister(b, r, benchTool(searchArticlesValidator))
		s := r.Session("bench")
		if err := s.EndTurn(ctx); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			res := s.Call(ctx, "search_articles", benchArgs, runtime.CallOptions{})
			if !res.Success {
				b.Fatalf("call failed: %s", res.JSON())
			}
			_ = res.JSON()
		}
	})
	b.Run("idempotent_replay_memory", func(b *testing.B) {
		call(b, searchArticlesValidator, runtime.CallOptions{IdempotencyKey: "bench-key"})
	})
	b.Run("untrusted_search_result", func(b *testing.B) {
		// A 1.6 KB result of 10 items with 3 strings each, from a tool
		// returning outside content.
		r := runtime.New(runtime.WithLogger(quietLogger()))
		data := searchResult(10)
		mustRegister(b, r, runtime.Tool{
			Meta:      runtime.Meta{Name: "search_web", ReturnsUntrusted: true, UntrustedSource: "web:example.com"},
			Validator: searchArticlesValidator,
			Execute:   func(context.Context, any) (any, error) { return data, nil },
		})
		var n int
		b.ReportAllocs()
		for b.Loop() {
			res := r.Call(ctx, "search_web", benchArgs, runtime.CallOptions{})
			if !res.Success {
				b.Fatal("call failed")
			}
			n = len(res.JSON())
		}
		b.ReportMetric(float64(n), "envelope-bytes")
	})
	b.Run("idempotent_first_call_memory", func(b *testing.B) {
		r := runtime.New(runtime.WithLogger(quietLogger()))
		mustRegister(b, r, benchTool(searchArticlesValidator))
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			res := r.Call(ctx, "search_articles", benchArgs, runtime.CallOptions{IdempotencyKey: "k" + strconv.Itoa(i)})
			if !res.Success || res.Replayed {
				b.Fatal("call failed")
			}
			_ = res.JSON()
		}
	})
}

// BenchmarkValidate isolates argument validation.
func BenchmarkValidate(b *testing.B) {
	b.Run("encoding_json_unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var a SearchArticlesArgs
			if err := json.Unmarshal(benchArgs, &a); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("generated", func(b *testing.B) {
		v := searchArticlesValidator
		b.ReportAllocs()
		for b.Loop() {
			if _, te := v.Validate(benchArgs); te != nil {
				b.Fatal(te)
			}
		}
	})
	b.Run("data", func(b *testing.B) {
		v := dataValidator(b)
		b.ReportAllocs()
		for b.Loop() {
			if _, te := v.Validate(benchArgs); te != nil {
				b.Fatal(te)
			}
		}
	})
	b.Run("schema_typed", func(b *testing.B) {
		v := schemaTypedValidator(b)
		b.ReportAllocs()
		for b.Loop() {
			if _, te := v.Validate(benchArgs); te != nil {
				b.Fatal(te)
			}
		}
	})
}

// BenchmarkDataPass times what building a registry costs a data-mode
// tool: DataPass on the descriptor of a tool of the synthetic catalog.
func BenchmarkDataPass(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := runtime.DataPass[synthArgs](&synthDesc); err != nil {
			b.Fatal(err)
		}
	}
}
