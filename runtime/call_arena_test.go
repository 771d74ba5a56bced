package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/toolcat/toolcat/runtime"
)

// TestCallArena checks the values of generated calls, whose arguments,
// strings and envelope share one allocation: every string a tool kept
// and every envelope a caller kept stay intact while other calls run,
// with envelopes of every size (small enough for the arena, too large
// for it) and a caller that appends to the envelopes it got.
func TestCallArena(t *testing.T) {
	type kept struct {
		query, env, envCopy string
		got                 []byte
	}
	var mu sync.Mutex
	queries := map[string]int{} // query → how many times the tool saw it
	r := runtime.New(runtime.WithLogger(quietLogger()))
	mustRegister(t, r, runtime.Tool{
		Meta:      searchMeta(),
		Validator: searchArticlesValidator,
		Execute: runtime.Bind(func(_ context.Context, a *SearchArticlesArgs) (*SearchArticlesResult, error) {
			mu.Lock()
			queries[a.Query]++
			mu.Unlock()
			res := &SearchArticlesResult{Total: int(a.MaxResults)}
			for i := range a.MaxResults {
				res.Articles = append(res.Articles, Article{ID: i, Title: a.Query})
			}
			return res, nil
		}),
	})
	const workers, calls = 4, 150
	var wg sync.WaitGroup
	results := make([][]kept, workers)
	for w := range workers {
		wg.Go(func() {
			for i := range calls {
				// Queries of 2 to 120 runes, some not ASCII, some escaped;
				// 1 to 20 results: envelopes of 60 bytes to several KB.
				q := fmt.Sprintf("w%d-%d-%s", w, i, strings.Repeat("é\\\"x", (i*7)%30))
				n := 1 + (i*13)%20
				if i%3 == 0 {
					n = 1
				}
				raw, _ := json.Marshal(map[string]any{"query": q, "max_results": n})
				res := r.Call(context.Background(), "search_articles", raw, runtime.CallOptions{})
				if !res.Success {
					t.Errorf("call %s: %s", raw, res.JSON())
					return
				}
				env := res.JSON()
				// A caller's appends must not reach another value, nor
				// each other.
				a1 := append(env, `,"one"`...)
				a2 := append(env, `,"two"`...)
				if string(a1[len(env):]) != `,"one"` || string(a2[len(env):]) != `,"two"` {
					t.Errorf("two appends to one envelope share memory: %s, %s", a1, a2)
				}
				results[w] = append(results[w], kept{query: q, env: string(env), got: env})
			}
		})
	}
	wg.Wait()
	for _, ks := range results {
		for _, k := range ks {
			if string(k.got) != k.env {
				t.Fatalf("an envelope changed after its call:\n got %s\nwant %s", k.got, k.env)
			}
			var e struct {
				Data SearchArticlesResult `json:"data"`
			}
			if err := json.Unmarshal(k.got, &e); err != nil {
				t.Fatalf("envelope %s: %v", k.got, err)
			}
			for _, a := range e.Data.Articles {
				if a.Title != k.query {
					t.Fatalf("envelope of %q holds title %q", k.query, a.Title)
				}
			}
		}
	}
	// The tool's strings: the keys of queries are the strings it got.
	if len(queries) != workers*calls {
		t.Fatalf("the tool saw %d distinct queries, want %d", len(queries), workers*calls)
	}
	for _, ks := range results {
		for _, k := range ks {
			if queries[k.query] != 1 {
				t.Fatalf("query %q: the tool kept it %d times, want once (a kept string changed)", k.query, queries[k.query])
			}
		}
	}
}

// TestCallAllocs checks the allocations of a generated call whose tool
// allocates its result and the result's slice: one more, the arena of the
// arguments, their strings and the envelope, and one for the deadline's
// context. It runs without the race detector (make test-race), under
// which sync.Pool drops what it is given at random.
func TestCallAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocations are counted without the race detector: make test-race runs this test so")
	}
	r := runtime.New(runtime.WithLogger(quietLogger()))
	mustRegister(t, r, benchTool(searchArticlesValidator))
	ctx := context.Background()
	call := func() {
		res := r.Call(ctx, "search_articles", benchArgs, runtime.CallOptions{})
		if !res.Success {
			t.Fatalf("call: %s", res.JSON())
		}
		_ = res.JSON()
	}
	call()
	allocs := 100.0
	for range 5 { // the fewest of five: another goroutine may allocate meanwhile
		allocs = min(allocs, testing.AllocsPerRun(200, call))
	}
	if allocs > 4 {
		t.Errorf("a generated call allocates %v times, want at most 4 (2 of them the tool's)", allocs)
	}
}
