package discovery

import (
	"os"
	"testing"
)

func TestTune(t *testing.T) {
	if os.Getenv("TUNE") == "" {
		t.Skip()
	}
	base := fieldParams
	big := syntheticDocs(3000)
	try := func(label string) {
		a := measure(New(devDocs(false)), devRequests)
		b := measure(New(devDocs(true)), devRequests)
		c := measure(New(big), devRequests)
		t.Logf("%-28s plain %.3f/%.3f/%.3f  queries %.3f/%.3f/%.3f  big %.3f/%.3f/%.3f", label,
			a.recall1, a.recall5, a.mrr, b.recall1, b.recall5, b.mrr, c.recall1, c.recall5, c.mrr)
	}
	try("base")
	for f := range numFields {
		for _, m := range []float32{0.5, 2} {
			fieldParams = base
			fieldParams[f].weight *= m
			try(fmtF(f, "w", m))
		}
		for _, bb := range []float32{0.2, 0.9} {
			fieldParams = base
			fieldParams[f].b = bb
			try(fmtF(f, "b=", bb))
		}
	}
	fieldParams = base
}

func fmtF(f field, what string, v float32) string {
	names := []string{"name", "summary", "body", "usewhen", "argname", "argtext", "enum", "queries", "category"}
	return names[f] + " " + what + string(rune('0'+int(v))) + "." + string(rune('0'+int(v*10)%10))
}
