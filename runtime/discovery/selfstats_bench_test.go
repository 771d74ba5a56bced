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
	syn        []Doc
	built      map[string]*Index // by set: indexes are immutable, so variants share them
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
func (s *selfSets) figures(v selfVariant, held, synthetic bool) selfFigures {
	var f selfFigures
	if s.built == nil {
		s.built = map[string]*Index{}
	}
	mk := func(key string, docs func() []Doc) searcher {
		ix, ok := s.built[key]
		d := docs()
		if !ok {
			ix = New(d)
			s.built[key] = ix
		}
		return v.make(ix, d)
	}
	pool := mk("pool", func() []Doc { return s.pool })
	f.tune = measure(pool, s.tune)
	if held {
		f.held = measure(pool, s.held)
		f.hasHeld = true
	}
	f.dev = counts(measure(mk("dev", func() []Doc { return devDocs(false) }), devRequests))
	f.devQ = counts(measure(mk("devq", func() []Doc { return devDocs(true) }), devRequests))
	if s.corpus != nil {
		f.cor = counts(measure(mk("corpus", func() []Doc { return s.corpus }), corpusRequests))
		f.hasCor = true
	}
	if synthetic {
		if s.syn == nil {
			s.syn = syntheticDocs(5000)
		}
		f.syn = counts(measure(mk("syn", func() []Doc { return s.syn }), devRequests))
	}
	return f
}

// BenchmarkSelfStats runs the experiments of the fourth round's "what the
// tools' own text says" on the tuning half (README.md). It needs the pool
// ($TOOLCAT_DISCOVERY_POOL) and skips without it; $TOOLCAT_CORPUS adds the
// corpus. SELFSTATS selects the variants by name prefix; SELFSTATS_HELD=1
// also measures the held-out half (figures only), SELFSTATS_SYN=1 the
// synthetic set, SELFSTATS_MISSES=1 lists the tuning half's misses, SELFSTATS_MOVES=1
// counts the tuning half's requests that rank higher and lower.
//
//	TOOLCAT_DISCOVERY_POOL=dir SELFSTATS=assoc go test -run '^$' -bench BenchmarkSelfStats -benchtime 1x -v ./runtime/discovery/
func BenchmarkSelfStats(b *testing.B) {
	s := loadSelfSets(b)
	sp := &s
	want := os.Getenv("SELFSTATS")
	held := os.Getenv("SELFSTATS_HELD") == "1"
	syn := os.Getenv("SELFSTATS_SYN") == "1"
	for _, v := range selfVariants() {
		if want != "" && !strings.HasPrefix(v.name, want+" ") && v.name != "base" {
			continue
		}
		f := sp.figures(v, held, syn)
		b.Logf("%-40s %s", v.name, f)
		if os.Getenv("SELFSTATS_MOVES") == "1" {
			up, down := rankMoves(sp.built["pool"], v.make(sp.built["pool"], s.pool), s.tune)
			b.Logf("    tuning half: %d requests rank higher, %d lower than now", up, down)
		}
		if os.Getenv("SELFSTATS_MISSES") == "1" {
			slices.Sort(f.tune.misses)
			for _, m := range f.tune.misses {
				b.Log("   ", m)
			}
		}
	}
}

// rankMoves counts the requests that rank their tool higher and lower
// with a variant than with the index as it is.
func rankMoves(ix *Index, v searcher, reqs []struct{ query, want string }) (up, down int) {
	rank := func(s searcher, r struct{ query, want string }) int {
		wants := strings.Split(r.want, "|")
		i := slices.IndexFunc(s.Search(r.query, 10), func(h Hit) bool { return slices.Contains(wants, h.Name) })
		if i < 0 {
			return 10
		}
		return i
	}
	for _, r := range reqs {
		a, b := rank(ix, r), rank(v, r)
		if b < a {
			up++
		} else if b > a {
			down++
		}
	}
	return up, down
}

func selfVariants() []selfVariant {
	vs := []selfVariant{
		{"base", func(ix *Index, _ []Doc) searcher { return ix }},
		{"copy", func(ix *Index, _ []Doc) searcher { return &expIndex{ix: ix} }},
	}
	short := []field{fieldName, fieldSummary, fieldUseWhen}
	all := []field{fieldName, fieldSummary, fieldBody, fieldUseWhen, fieldArgName, fieldArgText, fieldEnum, fieldQueries, fieldCategory}
	for _, fs := range []struct {
		name string
		f    []field
	}{{"short", short}, {"all", all}} {
		for _, m := range []string{"ppmi", "dice", "cond"} {
			for _, mc := range []int{2, 3} {
				for _, top := range []int{2, 3, 5} {
					for _, w := range []float32{0.05, 0.1, 0.2, 0.3} {
						for _, coord := range []bool{false, true} {
							vs = append(vs, assocVariant(fmt.Sprintf("assoc %s %s min%d top%d w%.2f coord=%v", fs.name, m, mc, top, w, coord),
								assocOpts{fields: fs.f, measure: m, minCount: mc, top: top, weight: w, coord: coord, maxDF: 0.05}))
						}
					}
				}
			}
		}
	}
	for _, m := range []string{"cond", "dice"} {
		for _, top := range []int{2, 3, 4} {
			for _, w := range []float32{0.02, 0.05} {
				for _, maxDF := range []float64{0.02, 0.05, 0.1} {
					vs = append(vs, assocVariant(fmt.Sprintf("fine %s top%d w%.2f maxdf%.2f", m, top, w, maxDF),
						assocOpts{fields: all, measure: m, minCount: 2, top: top, weight: w, coord: true, maxDF: maxDF}))
				}
			}
		}
	}
	vs = append(vs, assocVariant("A1 all cond min2 top3 w0.05 maxdf0.05 coord",
		assocOpts{fields: all, measure: "cond", minCount: 2, top: 3, weight: 0.05, coord: true, maxDF: 0.05}))
	for _, r := range []int{50, 100, 200} {
		for _, norm := range []bool{false, true} {
			dv := map[*Index][2][][]float32{} // one decomposition per index for all settings
			cached := func(ix *Index) ([][]float32, [][]float32) {
				if c, ok := dv[ix]; ok {
					return c[0], c[1]
				}
				d, t := latent(ix, r, 2, norm)
				dv[ix] = [2][][]float32{d, t}
				return d, t
			}
			for _, n := range []int{20, 30, 50} {
				for _, lambda := range []float32{0.1, 0.2, 0.3, 0.5, 1} {
					vs = append(vs, selfVariant{fmt.Sprintf("lsi r%d norm=%v n%d lambda%.1f", r, norm, n, lambda), func(ix *Index, _ []Doc) searcher {
						d, t := cached(ix)
						return &expIndex{ix: ix, docVec: d, termVec: t, rerankN: n, lambda: lambda}
					}})
				}
				for _, all := range []int{5, 10, 20} {
					for _, lambda := range []float32{0.3, 0.5, 1} {
						vs = append(vs, selfVariant{fmt.Sprintf("lsiall r%d norm=%v n%d all%d rrf%.1f", r, norm, n, all, lambda), func(ix *Index, _ []Doc) searcher {
							d, t := cached(ix)
							return &expIndex{ix: ix, docVec: d, termVec: t, rerankN: n, lambda: lambda, rrf: true, latentAll: all}
						}})
					}
				}
				for _, lambda := range []float32{0.5, 1} {
					vs = append(vs, selfVariant{fmt.Sprintf("lsi r%d norm=%v n%d rrf%.1f", r, norm, n, lambda), func(ix *Index, _ []Doc) searcher {
						d, t := cached(ix)
						return &expIndex{ix: ix, docVec: d, termVec: t, rerankN: n, lambda: lambda, rrf: true}
					}})
				}
			}
		}
	}
	vs = append(vs, latentVariant("B1 lsi r200 norm n20 lambda0.2", 200, 2, true, 20, 0.2, false))
	for _, n := range []int{5, 10, 20, 30} {
		for _, g := range []float32{0.25, 0.5, 1, 2} {
			vs = append(vs, selfVariant{fmt.Sprintf("local n%d gamma%.2f", n, g), func(ix *Index, _ []Doc) searcher {
				return &expIndex{ix: ix, localN: n, localGamma: g}
			}})
		}
	}
	for _, k := range []int{5, 10, 20} {
		for _, g := range []float32{0.25, 0.5, 1} {
			for _, nameOnly := range []bool{false, true} {
				for _, inNames := range []bool{false, true} {
					o := neighbourOpts{k: k, gamma: g, nameOnly: nameOnly, maxDF: 0.1, inNames: inNames}
					vs = append(vs, selfVariant{fmt.Sprintf("nbr k%d gamma%.2f nameOnly=%v inNames=%v", k, g, nameOnly, inNames), func(ix *Index, _ []Doc) searcher {
						return &expIndex{ix: ix, postings: neighbourPostings(ix, o)}
					}})
				}
			}
		}
	}
	for _, k := range []int{5, 10, 20, 40} {
		for _, g := range []float32{2, 4, 9} {
			for _, inNames := range []bool{false, true} {
				o := neighbourOpts{k: k, gamma: g, maxDF: 0.1, inNames: inNames}
				vs = append(vs, selfVariant{fmt.Sprintf("nbr2 k%d gamma%.2f inNames=%v", k, g, inNames), func(ix *Index, _ []Doc) searcher {
					return &expIndex{ix: ix, postings: neighbourPostings(ix, o)}
				}})
			}
		}
	}
	text := []field{fieldName, fieldSummary, fieldBody, fieldUseWhen, fieldArgText, fieldQueries}
	for _, win := range []int{2, 4} {
		for _, top := range []int{2, 3, 5} {
			for _, minSim := range []float64{0.1, 0.2, 0.3} {
				for _, w := range []float32{0.1, 0.2, 0.35} {
					for _, coord := range []bool{false, true} {
						o := distOpts{window: win, minCount: 3, minSim: minSim, top: top, weight: w, coord: coord, fields: text}
						vs = append(vs, selfVariant{fmt.Sprintf("dist win%d top%d sim%.1f w%.2f coord=%v", win, top, minSim, w, coord), func(ix *Index, docs []Doc) searcher {
							return &expIndex{ix: ix, expandFn: distributional(ix, docFieldTerms(ix, docs), o), expandCoord: coord}
						}})
					}
				}
			}
		}
	}
	for _, win := range []int{2, 4} {
		for _, minSim := range []float64{0.2, 0.3, 0.4, 0.5} {
			for _, w := range []float32{0.05, 0.1, 0.2} {
				for _, noVerbs := range []bool{false, true} {
					for _, coord := range []bool{false, true} {
						o := distOpts{window: win, minCount: 3, minSim: minSim, top: 2, weight: w, coord: coord, fields: text, noVerbs: noVerbs}
						vs = append(vs, selfVariant{fmt.Sprintf("dist2 win%d sim%.1f w%.2f noVerbs=%v coord=%v", win, minSim, w, noVerbs, coord), func(ix *Index, docs []Doc) searcher {
							return &expIndex{ix: ix, expandFn: distributional(ix, docFieldTerms(ix, docs), o), expandCoord: coord}
						}})
					}
				}
			}
		}
	}
	for _, w := range []float32{0.1, 0.2, 0.4, 0.7} {
		for _, top := range []int{2, 3} {
			ao := assocOpts{fields: all, measure: "cond", minCount: 2, top: top, maxDF: 0.05}
			vs = append(vs, selfVariant{fmt.Sprintf("docx assoc top%d w%.2f", top, w), func(ix *Index, docs []Doc) searcher {
				ft := docFieldTerms(ix, docs)
				as := associations(ix, ft, ao)
				return &expIndex{ix: ix, postings: docExpansion(ix, ft, func(id uint32) []expTerm { return as[id] }, w)}
			}})
		}
		for _, sim := range []float64{0.3, 0.5} {
			do := distOpts{window: 2, minCount: 3, minSim: sim, top: 2, fields: text}
			vs = append(vs, selfVariant{fmt.Sprintf("docx alike sim%.1f w%.2f", sim, w), func(ix *Index, docs []Doc) searcher {
				ft := docFieldTerms(ix, docs)
				return &expIndex{ix: ix, postings: docExpansion(ix, ft, distributional(ix, ft, do), w)}
			}})
		}
	}
	for _, fs := range []struct {
		name string
		f    []field
	}{{"name", []field{fieldName}}, {"name+summary", []field{fieldName, fieldSummary}}, {"name+summary+usewhen", []field{fieldName, fieldSummary, fieldUseWhen}}, {"args", []field{fieldArgName, fieldArgText, fieldEnum}}} {
		for _, alpha := range []float64{-0.5, 0.25, 0.5, 1, 2} {
			vs = append(vs, selfVariant{fmt.Sprintf("fidf %s alpha%.2f", fs.name, alpha), func(ix *Index, docs []Doc) searcher {
				return &expIndex{ix: ix, postings: fieldIdfPostings(ix, docFieldTerms(ix, docs), fs.f, alpha)}
			}})
		}
	}
	for _, sim := range []float64{0.3, 0.4, 0.5} {
		o := distOpts{window: 2, minCount: 3, minSim: sim, top: 2, weight: 0.05, coord: true, fields: []field{fieldName, fieldSummary, fieldUseWhen}}
		vs = append(vs, selfVariant{fmt.Sprintf("distshort sim%.1f", sim), func(ix *Index, docs []Doc) searcher {
			return &expIndex{ix: ix, expandFn: distributional(ix, docFieldTerms(ix, docs), o), expandCoord: true}
		}})
	}
	vs = append(vs,
		selfVariant{"C1 local n10 gamma0.25", func(ix *Index, _ []Doc) searcher {
			return &expIndex{ix: ix, localN: 10, localGamma: 0.25}
		}},
		selfVariant{"C2 nbr k20 gamma0.5 inNames", func(ix *Index, _ []Doc) searcher {
			return &expIndex{ix: ix, postings: neighbourPostings(ix, neighbourOpts{k: 20, gamma: 0.5, maxDF: 0.1, inNames: true})}
		}},
		selfVariant{"D1 dist win2 top2 sim0.5 w0.05 coord", func(ix *Index, docs []Doc) searcher {
			o := distOpts{window: 2, minCount: 3, minSim: 0.5, top: 2, weight: 0.05, coord: true, fields: text}
			return &expIndex{ix: ix, expandFn: distributional(ix, docFieldTerms(ix, docs), o), expandCoord: true}
		}})
	return vs
}

// TestAlikeShow prints, with the pool, the terms most alike to a few words
// (SELFSTATS_WORDS), to see what distributional similarity learns.
func TestAlikeShow(t *testing.T) {
	words := os.Getenv("SELFSTATS_WORDS")
	if words == "" {
		t.Skip("SELFSTATS_WORDS is not set")
	}
	docs, _ := evalPool(t)
	text := []field{fieldName, fieldSummary, fieldBody, fieldUseWhen, fieldArgText, fieldQueries}
	for _, w := range strings.Fields(words) {
		t.Logf("%s: %v", w, alike(docs, w, distOpts{window: 2, minCount: 3, minSim: 0, top: 8, weight: 1, fields: text}))
	}
}

// TestAlikeAll prints, with the pool, every expansion a distributional
// setting makes (SELFSTATS_ALL=1).
func TestAlikeAll(t *testing.T) {
	if os.Getenv("SELFSTATS_ALL") != "1" {
		t.Skip("SELFSTATS_ALL is not set")
	}
	docs, _ := evalPool(t)
	ix := New(docs)
	text := []field{fieldName, fieldSummary, fieldBody, fieldUseWhen, fieldArgText, fieldQueries}
	fn := distributional(ix, docFieldTerms(ix, docs), distOpts{window: 2, minCount: 3, minSim: 0.5, top: 2, weight: 0.05, fields: text})
	names := make([]string, len(ix.postings))
	for s, id := range ix.termIDs {
		names[id] = s
	}
	n := 0
	for id := range names {
		if xs := fn(uint32(id)); len(xs) > 0 {
			n++
			var out []string
			for _, x := range xs {
				out = append(out, names[x.id])
			}
			t.Logf("%s: %v", names[id], out)
		}
	}
	t.Logf("%d of %d terms expand", n, len(names))
}

// BenchmarkSelfStatsCost measures what each experiment adds to building
// an index, the index itself not included: over the 5,000 tools of
// BenchmarkNew5000 (syn-) and, with $TOOLCAT_DISCOVERY_POOL, over the
// pool's 1,698 (pool-): the co-occurrence associations (a), the latent
// vectors (b), the neighbours' discriminative weights (c') and the
// distributional similarities of every term (d). New is the index alone.
//
//	TOOLCAT_DISCOVERY_POOL=dir go test -run '^$' -bench BenchmarkSelfStatsCost -benchtime 3x ./runtime/discovery/
func BenchmarkSelfStatsCost(b *testing.B) {
	all := []field{fieldName, fieldSummary, fieldBody, fieldUseWhen, fieldArgName, fieldArgText, fieldEnum, fieldQueries, fieldCategory}
	text := []field{fieldName, fieldSummary, fieldBody, fieldUseWhen, fieldArgText, fieldQueries}
	sets := []struct {
		name string
		docs []Doc
	}{{"syn", syntheticDocs(5000)}}
	if os.Getenv("TOOLCAT_DISCOVERY_POOL") != "" {
		pool, _ := evalPool(b)
		sets = append(sets, struct {
			name string
			docs []Doc
		}{"pool", pool})
	}
	for _, set := range sets {
		docs := set.docs
		ix := New(docs)
		ft := docFieldTerms(ix, docs)
		run := func(name string, f func()) {
			b.Run(set.name+"-"+name, func(b *testing.B) {
				for b.Loop() {
					f()
				}
			})
		}
		run("New", func() { New(docs) })
		run("assoc", func() {
			associations(ix, ft, assocOpts{fields: all, measure: "cond", minCount: 2, top: 3, weight: 0.05, coord: true, maxDF: 0.05})
		})
		run("latent100", func() { latent(ix, 100, 2, true) })
		if set.name == "pool" {
			run("latent200", func() { latent(ix, 200, 2, true) })
		}
		run("neighbours", func() { neighbourPostings(ix, neighbourOpts{k: 20, gamma: 0.5, maxDF: 0.1, inNames: true}) })
		run("distributional", func() {
			fn := distributional(ix, ft, distOpts{window: 2, minCount: 3, minSim: 0.5, top: 2, weight: 0.05, coord: true, fields: text})
			for id := range ix.postings {
				fn(uint32(id))
			}
		})
	}
}

// TestSelfStatsMissWords counts, over the tuning half's misses (the
// held-out half is not read), the request's terms that the wanted tool
// does not have: how many of them the pool has elsewhere, where the
// tools' own statistics could relate them, and how many no tool has
// (SELFSTATS_WORDS_MISSES=1).
func TestSelfStatsMissWords(t *testing.T) {
	if os.Getenv("SELFSTATS_WORDS_MISSES") != "1" {
		t.Skip("SELFSTATS_WORDS_MISSES is not set")
	}
	s := loadSelfSets(t)
	ix := New(s.pool)
	byName := map[string]uint32{}
	for d, n := range ix.names {
		byName[n] = uint32(d)
	}
	has := func(d uint32, id uint32) bool {
		for _, p := range ix.postings[id] {
			if p.doc&^inName == d {
				return true
			}
		}
		return false
	}
	var misses, missing, elsewhere, nowhere int
	for _, r := range s.tune {
		hits := ix.Search(r.query, 1)
		wants := strings.Split(r.want, "|")
		if len(hits) > 0 && slices.Contains(wants, hits[0].Name) {
			continue
		}
		misses++
		var absent, none []string
		for _, term := range Terms(r.query) {
			id, ok := ix.termIDs[term]
			if !ok {
				none = append(none, term)
				continue
			}
			if !slices.ContainsFunc(wants, func(w string) bool { return has(byName[w], id) }) {
				absent = append(absent, term)
			}
		}
		if len(absent)+len(none) > 0 {
			missing++
		}
		elsewhere += len(absent)
		nowhere += len(none)
		t.Logf("%q: not in the tool but in the pool %v; in no tool %v", r.query, absent, none)
	}
	t.Logf("%d misses @1; %d with a request term the tool lacks: %d such terms in other tools, %d in none", misses, missing, elsewhere, nowhere)
}
