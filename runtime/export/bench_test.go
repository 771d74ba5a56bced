package export

import "testing"

// BenchmarkDeferHidden compares an export of deferMetas with hidden tools
// included plainly and deferred.
func BenchmarkDeferHidden(b *testing.B) {
	metas := deferMetas()
	for _, bc := range []struct {
		desc string
		fn   Exporter
		opts []Option
	}{
		{"anthropic/include", Anthropic, []Option{IncludeHidden()}},
		{"anthropic/defer", Anthropic, []Option{DeferHidden()}},
		{"openai_responses/include", OpenAIResponses, []Option{IncludeHidden()}},
		{"openai_responses/defer", OpenAIResponses, []Option{DeferHidden()}},
		{"openai_responses/namespaces", OpenAIResponses, []Option{DeferHidden(), NamespacesByCategory(billingSpace)}},
	} {
		b.Run(bc.desc, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.fn(metas, bc.opts...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
