//go:build !race

package runtime_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tiktoken-go/tokenizer"

	"github.com/toolcat/toolcat/runtime"
)

// This file is left out of the race build: its test counts tokens on one
// goroutine, and building the tokenizer's vocabulary under the race
// detector would cost make test more than the whole test. make test-race
// runs it without the detector.

// TestUntrustedTokens checks that wrapping costs at most 100 tokens
// (o200k_base) per envelope, whatever its size.
func TestUntrustedTokens(t *testing.T) {
	codec, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	big := map[string]any{"text": strings.Repeat("Go is an open source programming language. ", 24000)}
	longURL := "web:https://example.com/" + strings.Repeat("a-long-path/", 20) + "?q=pgvector"
	cases := []struct {
		desc   string
		data   any
		err    error
		source string
	}{
		{"small", map[string]string{"title": "A page"}, nil, "web:example.com"},
		{"1.6 KB search result", searchResult(10), nil, "web:example.com"},
		{"1 MB page", big, nil, "web:example.com"},
		{"error", nil, runtime.ExternalError("the site answered 503 Service Unavailable"), "web:example.com"},
		{"long source", map[string]string{"title": "A page"}, nil, longURL},
	}
	for _, c := range cases {
		t.Run(c.desc, func(t *testing.T) {
			envs := map[bool]string{}
			for _, untrusted := range []bool{false, true} {
				r := runtime.New(runtime.WithLogger(quietLogger()))
				mustRegister(t, r, runtime.Tool{Meta: runtime.Meta{Name: "search_web", ReturnsUntrusted: untrusted, UntrustedSource: c.source},
					Execute: func(context.Context, any) (any, error) { return c.data, c.err }})
				envs[untrusted] = string(r.Call(context.Background(), "search_web", nil, runtime.CallOptions{}).JSON())
			}
			plain, _, _ := codec.Encode(envs[false])
			wrapped, _, _ := codec.Encode(envs[true])
			d := len(wrapped) - len(plain)
			t.Logf("%d bytes, %d tokens unwrapped; %d bytes, %d tokens wrapped: +%d bytes, +%d tokens",
				len(envs[false]), len(plain), len(envs[true]), len(wrapped), len(envs[true])-len(envs[false]), d)
			if d > 100 {
				t.Errorf("wrapping adds %d tokens, want at most 100", d)
			}
		})
	}
}
