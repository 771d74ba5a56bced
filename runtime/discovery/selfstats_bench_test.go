package discovery

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// selfVariant is one setting of an experiment: it makes a searcher from an
// index and the docs it was built from.
type selfVariant struct {
	name string
	make func(ix *Index, docs []Doc) searcher
}

type selfFigures struct {
	tune, held          quality
	dev, devQ, syn, cor [2]int // requests @1, @5
	hasHeld, hasCor     bool
}

func counts(q quality) [2]int {
	return [2]int{int(q.recall1*float64(q.n) + 0.5), int(q.recall5*float64(q.n) + 0.5)}
}

func (f selfFigures) String() string {
	s := fmt.Sprintf("tuning %.3f / %.3f / %.3f", f.tune.recall1, f.tune.recall5, f.tune.mrr)
	if f.hasHeld {
		s += fmt.Sprintf("  held-out %.3f / %.3f / %.3f", f.held.recall1, f.held.recall5, f.held.mrr)
	}
	s += fmt.Sprintf("  dev %d / %d  with examples %d / %d", f.dev[0], f.dev[1], f.devQ[0], f.devQ[1])
	if f.hasCor {
		s += fmt.Sprintf("  corpus %d / %d", f.cor[0], f.cor[1])
	}
	if f.syn != [2]int{} {
		s += fmt.Sprintf("  synthetic %d / %d", f.syn[0], f.syn[1])
	}
	return s
}

type selfSets struct {
	pool       []Doc
	tune, held []struct{ query, want string }
	corpus     []Doc
}

func loadSelfSets(b testing.TB) selfSets {
	docs, _ := evalPool(b)
	s := selfSets{pool: docs}
	for _, r := range readEvalRequests(b) {
		q := struct{ query, want string }{r.Query, strings.Join(append([]string{r.Want}, r.Also...), "|")}
		if r.Half == "tune" {
			s.tune = append(s.tune, q)
		} else {
			s.held = append(s.held, q)
		}
	}
	if os.Getenv("TOOLCAT_CORPUS") != "" {
		s.corpus = corpusDocs(b)
	}
	return s
}

// figures measures a variant on the tuning half, the dev set (without and
// with example requests), the corpus when loaded, and, when asked, the
// synthetic set and the held-out half (figures only, never its misses).
func (s selfSets) figures(v selfVariant, held, synthetic bool) selfFigures {
	var f selfFigures
	mk := func(docs []Doc) searcher { return v.make(New(docs), docs) }
	f.tune = measure(mk(s.pool), s.tune)
	if held {
		f.held = measure(mk(s.pool), s.held)
		f.hasHeld = true
	}
	f.dev = counts(measure(mk(devDocs(false)), devRequests))
	f.devQ = counts(measure(mk(devDocs(true)), devRequests))
	if s.corpus != nil {
		f.cor = counts(measure(mk(s.corpus), corpusRequests))
		f.hasCor = true
	}
	if synthetic {
		f.syn = counts(measure(mk(syntheticDocs(5000)), devRequests))
	}
	return f
}

// BenchmarkSelfStats runs the experiments of the fourth round's "what the
// tools' own text says" on the tuning half (README.md). It needs the pool
// ($TOOLCAT_DISCOVERY_POOL) and skips without it; $TOOLCAT_CORPUS adds the
// corpus. SELFSTATS selects the variants by name prefix; SELFSTATS_HELD=1
// also measures the held-out half (figures only), SELFSTATS_SYN=1 the
// synthetic set, SELFSTATS_MISSES=1 lists the tuning half's misses.
//
//	TOOLCAT_DISCOVERY_POOL=dir SELFSTATS=assoc go test -run '^$' -bench BenchmarkSelfStats -benchtime 1x -v ./runtime/discovery/
func BenchmarkSelfStats(b *testing.B) {
	s := loadSelfSets(b)
	want := os.Getenv("SELFSTATS")
	held := os.Getenv("SELFSTATS_HELD") == "1"
	syn := os.Getenv("SELFSTATS_SYN") == "1"
	for _, v := range selfVariants() {
		if want != "" && !strings.HasPrefix(v.name, want) && v.name != "base" {
			continue
		}
		f := s.figures(v, held, syn)
		b.Logf("%-40s %s", v.name, f)
		if os.Getenv("SELFSTATS_MISSES") == "1" {
			slices.Sort(f.tune.misses)
			for _, m := range f.tune.misses {
				b.Log("   ", m)
			}
		}
	}
}

func selfVariants() []selfVariant {
	vs := []selfVariant{
		{"base", func(ix *Index, _ []Doc) searcher { return ix }},
		{"copy", func(ix *Index, _ []Doc) searcher { return &expIndex{ix: ix} }},
	}
	return vs
}
