package discovery

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// BenchmarkTuneEval searches the ranking parameters (each field's weight
// and b, k1, the name boost and the synonym weight) by coordinate ascent on the tuning half of the
// evaluation set only: each parameter in turn takes the value, among a few
// multiples of its own, that ranks the tuning half best (recall@1 + recall@5
// + MRR), as long as the dev set and, when $TOOLCAT_CORPUS is set, the
// corpus lose at most one request @1 or @5. It prints each move and the
// parameters it ends with; it changes nothing in the package. The held-out
// half is never read. It needs the pool:
//
//	TOOLCAT_DISCOVERY_POOL=dir go test -run '^$' -bench BenchmarkTuneEval -benchtime 1x -v ./runtime/discovery/
func BenchmarkTuneEval(b *testing.B) {
	docs, _ := evalPool(b)
	var tune []struct{ query, want string }
	for _, r := range readEvalRequests(b) {
		if r.Half == "tune" {
			tune = append(tune, struct{ query, want string }{r.Query, strings.Join(append([]string{r.Want}, r.Also...), "|")})
		}
	}
	var corpus []Doc
	if os.Getenv("TOOLCAT_CORPUS") != "" {
		corpus = corpusDocs(b)
	}

	type param struct {
		name string
		p    *float32
		mult bool // tried as multiples of its value, else as the values in bs
	}
	names := [numFields]string{"name", "summary", "body", "argname", "argtext", "enum", "queries", "category"}
	var params []param
	for f := range numFields {
		params = append(params, param{names[f] + ".weight", &fieldParams[f].weight, true})
		params = append(params, param{names[f] + ".b", &fieldParams[f].b, false})
	}
	params = append(params,
		param{"k1", &k1, true}, param{"nameBoost", &nameBoost, true}, param{"synonymWeight", &synonymWeight, true})
	saved := make([]float32, len(params))
	for i, p := range params {
		saved[i] = *p.p
	}
	defer func() {
		for i, p := range params {
			*p.p = saved[i]
		}
	}()

	type result struct {
		obj                float64 // tuning half: hits@1 + hits@5 + reciprocal ranks
		t1, t5, tm         float64
		dev1, dev5         int
		corpus1, corpus5   int
		devText, corpusTxt string
	}
	count := func(q quality) (int, int) {
		return int(q.recall1*float64(q.n) + 0.5), int(q.recall5*float64(q.n) + 0.5)
	}
	eval := func() result {
		q := measure(New(docs), tune)
		r := result{obj: float64(q.n) * (q.recall1 + q.recall5 + q.mrr), t1: q.recall1, t5: q.recall5, tm: q.mrr}
		d := measure(New(devDocs(false)), devRequests)
		r.dev1, r.dev5 = count(d)
		r.devText = fmt.Sprintf("%.3f/%.3f", d.recall1, d.recall5)
		if corpus != nil {
			c := measure(New(corpus), corpusRequests)
			r.corpus1, r.corpus5 = count(c)
			r.corpusTxt = fmt.Sprintf("%.3f/%.3f", c.recall1, c.recall5)
		}
		return r
	}
	base := eval()
	ok := func(r result) bool {
		return r.dev1 >= base.dev1-1 && r.dev5 >= base.dev5-1 && r.corpus1 >= base.corpus1-1 && r.corpus5 >= base.corpus5-1
	}
	show := func(label string, r result) {
		b.Logf("%-28s tuning %.3f/%.3f/%.3f  dev %s  corpus %s", label, r.t1, r.t5, r.tm, r.devText, r.corpusTxt)
	}
	show("as is", base)
	cur := base
	for pass := 0; pass < 3; pass++ {
		moved := false
		for _, p := range params {
			orig := *p.p
			var tries []float32
			if p.mult {
				for _, m := range []float32{0.5, 0.7, 0.85, 0.93, 1.07, 1.2, 1.4, 2} {
					tries = append(tries, orig*m)
				}
			} else {
				for _, v := range []float32{0.1, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9} {
					if v != orig {
						tries = append(tries, v)
					}
				}
			}
			best, bestR := orig, cur
			for _, v := range tries {
				*p.p = v
				if r := eval(); r.obj > bestR.obj+1e-9 && ok(r) {
					best, bestR = v, r
				}
			}
			*p.p = best
			if best != orig {
				moved = true
				cur = bestR
				show(fmt.Sprintf("%s %.3g→%.3g", p.name, orig, best), cur)
			}
		}
		if !moved {
			break
		}
	}
	var out []string
	for _, p := range params {
		out = append(out, fmt.Sprintf("%s=%.3g", p.name, *p.p))
	}
	b.Logf("ends with: %s", strings.Join(out, " "))
}
