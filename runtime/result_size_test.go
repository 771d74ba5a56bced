package runtime_test

import (
	"context"
	"encoding/json"
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/runtime"
)

// TestMaxResultBytesAllocation: a result far above its cap is refused
// without being encoded whole: the call allocates a bounded multiple of
// the cap, not of the result (encoding a 64 MiB result whole allocates
// about 4 times its size).
func TestMaxResultBytesAllocation(t *testing.T) {
	const size, limit = 16 << 20, 256 << 10
	big := strings.Repeat("x", size)
	items := make([]string, size/100)
	for i := range items {
		items[i] = big[:100]
	}
	type embedded struct{ Text string }
	type withEmbedded struct {
		embedded
		Name string `json:"name"`
	}
	for _, c := range []struct {
		desc string
		data any
	}{
		{"one large string", &struct {
			Content string `json:"content"`
		}{big}},
		{"many small strings", &itemPage{Items: items}},
		{"bytes", &struct{ B []byte }{[]byte(big)}},
		{"a map", map[string]any{"a": map[string]string{"b": big}}},
		{"an embedded struct", &withEmbedded{embedded: embedded{Text: big}}},
		{"raw JSON", json.RawMessage(`"` + big + `"`)},
	} {
		for _, path := range []string{"call", "call with an idempotency key", "revert"} {
			for _, untrusted := range []bool{false, true} {
				m := searchMeta()
				m.MaxResultBytes = limit
				m.ReturnsUntrusted = untrusted
				m.Revertible = path == "revert"
				r := runtime.New(runtime.WithLogger(quietLogger()))
				data := c.data
				tool := runtime.Tool{Meta: m, Execute: func(context.Context, any) (any, error) { return data, nil }}
				if m.Revertible {
					tool.Revert = func(context.Context, any, json.RawMessage) (any, error) { return data, nil }
				}
				mustRegister(t, r, tool)
				n := 0
				call := func() runtime.Result {
					args := []byte(`{"query":"pgvector"}`)
					switch n++; path {
					case "revert":
						return r.Revert(context.Background(), m.Name, args, json.RawMessage(`{}`), runtime.CallOptions{})
					case "call with an idempotency key":
						return r.Call(context.Background(), m.Name, args, runtime.CallOptions{IdempotencyKey: "k" + strconv.Itoa(n)})
					}
					return r.Call(context.Background(), m.Name, args, runtime.CallOptions{})
				}
				call() // warm up
				var before, after goruntime.MemStats
				goruntime.GC()
				goruntime.ReadMemStats(&before)
				res := call()
				goruntime.ReadMemStats(&after)
				if res.Success || res.Error.Code != runtime.CodeUnsupported {
					t.Errorf("%s, %s: %.300s", c.desc, path, res.JSON())
					continue
				}
				if got := after.TotalAlloc - before.TotalAlloc; got > 4*limit {
					t.Errorf("%s, %s (untrusted %v): refusing a %d MiB result allocated %.1f MiB, above 4 times the %d KiB cap", c.desc, path, untrusted, size>>20, float64(got)/(1<<20), limit>>10)
				}
			}
		}
	}
}
