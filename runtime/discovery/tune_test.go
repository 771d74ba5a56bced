package discovery

import (
	"fmt"
	"testing"
)

// BenchmarkTune prints recall@1/recall@5/MRR of the dev set (without and with
// example requests, and among 3,000 synthetic tools) for the field
// parameters as they are and with each one halved, doubled or its length
// normalisation changed: a sensitivity check for anyone changing
// fieldParams. It takes seconds, so it runs once:
//
//	go test -run '^$' -bench BenchmarkTune -benchtime 1x -v ./runtime/discovery/
func BenchmarkTune(t *testing.B) {
	base := fieldParams
	defer func() { fieldParams = base }()
	big := syntheticDocs(3000)
	try := func(label string) {
		a := measure(New(devDocs(false)), devRequests)
		b := measure(New(devDocs(true)), devRequests)
		c := measure(New(big), devRequests)
		t.Logf("%-20s plain %.3f/%.3f/%.3f  queries %.3f/%.3f/%.3f  3000 tools %.3f/%.3f/%.3f", label,
			a.recall1, a.recall5, a.mrr, b.recall1, b.recall5, b.mrr, c.recall1, c.recall5, c.mrr)
	}
	names := [numFields]string{"name", "summary", "body", "argname", "argtext", "enum", "queries", "category"}
	try("as is")
	for f := range numFields {
		for _, m := range []float32{0.5, 2} {
			fieldParams = base
			fieldParams[f].weight *= m
			try(fmt.Sprintf("%s weight×%.1f", names[f], m))
		}
		for _, b := range []float32{0.2, 0.9} {
			fieldParams = base
			fieldParams[f].b = b
			try(fmt.Sprintf("%s b=%.1f", names[f], b))
		}
	}
}
