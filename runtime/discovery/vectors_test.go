package discovery

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Word vectors as soft matching, an experiment of the fourth round (README,
// "Word vectors"): vectors trained on documentation text that has nothing
// to do with the evaluated tools (internal/vectext writes it) give each
// query word its nearest index terms, searched at a low weight, or re-rank
// the first results by the cosine of a request's and a tool's mean
// vectors. BenchmarkVectors prints the tuning half, the dev sets, the
// corpus and the synthetic set for each setting; the held-out half only
// with VEC_HELD=1. It skips without $TOOLCAT_WORDVEC (a fastText .vec file).

// wordVecs are unit vectors by term.
type wordVecs struct {
	dim int
	vec map[string][]float32
}

func loadWordVecs(t testing.TB, path string) *wordVecs {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	w := &wordVecs{vec: map[string][]float32{}}
	first := true
	for {
		line, err := r.ReadString('\n')
		if line = strings.TrimSpace(line); line != "" {
			fs := strings.Fields(line)
			if first {
				first = false
				if len(fs) == 2 {
					w.dim, _ = strconv.Atoi(fs[1])
					continue
				}
			}
			if w.dim == 0 {
				w.dim = len(fs) - 1
			}
			if len(fs) == w.dim+1 {
				v := make([]float32, w.dim)
				var n float64
				for i, s := range fs[1:] {
					x, _ := strconv.ParseFloat(s, 32)
					v[i] = float32(x)
					n += x * x
				}
				if n > 0 {
					inv := float32(1 / math.Sqrt(n))
					for i := range v {
						v[i] *= inv
					}
					w.vec[fs[0]] = v
				}
			}
		}
		if err != nil {
			break
		}
	}
	return w
}

func dot(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// neighbour is an index term near a query term.
type neighbour struct {
	id  uint32
	cos float32
}

// vecIndex is an Index with the word vectors of its terms.
type vecIndex struct {
	ix    *Index
	wv    *wordVecs
	p     *vecParams
	ids   []uint32    // index terms with a vector
	vecs  [][]float32 // their vectors
	terms []string    // by term ID
	memo  map[string][]neighbour
	df    []int // by term ID
	tools map[string][]float32
}

type vecParams struct {
	k        int     // neighbours per query word
	tau      float32 // least cosine
	w        float32 // weight × cosine
	coord    bool    // a neighbour counts as matching the word in coordination
	maxDF    int     // only for query words in at most this many tools (-1: all)
	verbSafe bool    // no neighbour of another verb group than the word's
	noSyn    bool    // no neighbour that is already a synonym of the word
	rerankN  int     // re-rank the first N by the mean vectors (0: no)
	lambda   float32
	expand   bool // expansion on (else only re-ranking)
}

func newVecIndex(docs []Doc, wv *wordVecs, p *vecParams) *vecIndex {
	ix := New(docs)
	v := &vecIndex{ix: ix, wv: wv, p: p, memo: map[string][]neighbour{}}
	v.terms = make([]string, len(ix.idf))
	for t, id := range ix.termIDs {
		v.terms[id] = t
		if x, ok := wv.vec[t]; ok {
			v.ids = append(v.ids, id)
			v.vecs = append(v.vecs, x)
		}
	}
	v.df = make([]int, len(ix.postings))
	for id, ps := range ix.postings {
		v.df[id] = len(ps)
	}
	if p.rerankN > 0 {
		v.tools = map[string][]float32{}
		for _, d := range uniqueByName(docs) {
			var tx texts
			var buf []byte
			splitDescription(d.Description, &tx, &buf)
			text := d.Name + " " + strings.Join(tx[fieldSummary], " ")
			v.tools[d.Name] = v.meanVec(Terms(text))
		}
	}
	return v
}

// meanVec is the idf-weighted mean of the vectors of terms, as a unit vector.
func (v *vecIndex) meanVec(terms []string) []float32 {
	m := make([]float32, v.wv.dim)
	maxIDF := float32(math.Log(1 + (float64(len(v.ix.names))+0.5)/0.5))
	any := false
	for _, t := range terms {
		x, ok := v.wv.vec[t]
		if !ok {
			continue
		}
		w := maxIDF
		if id, ok := v.ix.termIDs[t]; ok {
			w = v.ix.idf[id]
		}
		for i := range m {
			m[i] += w * x[i]
		}
		any = true
	}
	if !any {
		return nil
	}
	var n float64
	for _, x := range m {
		n += float64(x * x)
	}
	inv := float32(1 / math.Sqrt(n))
	for i := range m {
		m[i] *= inv
	}
	return m
}

// neighbours returns the p.k index terms nearest to term with a cosine of
// at least p.tau, the term itself left out.
func (v *vecIndex) neighbours(term string) []neighbour {
	if n, ok := v.memo[term]; ok {
		return n
	}
	x, ok := v.wv.vec[term]
	var out []neighbour
	if ok {
		self, _ := v.ix.termIDs[term]
		hasSelf := false
		if _, ok := v.ix.termIDs[term]; ok {
			hasSelf = true
		}
		for i, y := range v.vecs {
			if hasSelf && v.ids[i] == self {
				continue
			}
			c := dot(x, y)
			if c < v.p.tau {
				continue
			}
			out = append(out, neighbour{v.ids[i], c})
		}
		slices.SortFunc(out, func(a, b neighbour) int {
			if a.cos != b.cos {
				if a.cos > b.cos {
					return -1
				}
				return 1
			}
			return int(a.id) - int(b.id)
		})
		// Filters before the cut to k.
		cls := verbClasses[term]
		kept := out[:0]
		for _, n := range out {
			t := v.terms[n.id]
			if v.p.verbSafe && cls != 0 && verbClasses[t] != 0 && verbClasses[t]&cls == 0 {
				continue
			}
			if v.p.noSyn && contains(synonyms[term], t) {
				continue
			}
			kept = append(kept, n)
		}
		out = kept[:min(len(kept), v.p.k)]
	}
	v.memo[term] = out
	return out
}

func (v *vecIndex) Search(query string, k int) []Hit {
	if v.p.rerankN > 0 {
		hits := v.search(query, max(k, v.p.rerankN))
		q := v.meanVec(Terms(query))
		if q != nil {
			for i := range hits {
				if t := v.tools[hits[i].Name]; t != nil {
					hits[i].Score *= 1 + float64(v.p.lambda*dot(q, t))
				}
			}
			slices.SortStableFunc(hits, func(a, b Hit) int {
				if a.Score != b.Score {
					if a.Score > b.Score {
						return -1
					}
					return 1
				}
				return strings.Compare(a.Name, b.Name)
			})
		}
		return hits[:min(k, len(hits))]
	}
	return v.search(query, k)
}

// search is Index.Search with the neighbours of each query word searched
// too.
func (v *vecIndex) search(query string, k int) []Hit {
	ix := v.ix
	if !v.p.expand {
		return ix.Search(query, k)
	}
	if k <= 0 || len(ix.names) == 0 {
		return nil
	}
	sc := ix.pool.Get().(*scratch)
	defer ix.pool.Put(sc)

	sc.terms = sc.terms[:0]
	sc.wordW = [MaxQueryTerms]float32{}
	sc.verbs = 0
	var extra []queryTerm // not counted in coordination
	words := 0
	query = clip(rewriteQuery(clip(query, MaxQueryBytes)), MaxQueryBytes)
	cut := contentStart(query)
	mult := float32(1)
	each := func(term []byte) {
		if words >= MaxQueryTerms {
			return
		}
		word := uint8(words)
		if word == 0 {
			sc.verbs = verbClasses[string(term)] | leadingVerbs[string(term)]
		}
		id, ok := ix.termIDs[string(term)]
		if ok {
			ix.addTerm(sc, id, mult, word, mult)
		}
		for _, syn := range synonyms[string(term)] {
			if id, ok := ix.termIDs[syn]; ok {
				ix.addTerm(sc, id, synonymWeight*mult, word, mult)
			}
		}
		df := 0
		if ok {
			df = v.df[id]
		}
		if v.p.maxDF < 0 || df <= v.p.maxDF {
			for _, n := range v.neighbours(string(term)) {
				w := v.p.w * n.cos * mult
				if v.p.coord {
					ix.addTerm(sc, n.id, w, word, mult)
				} else {
					extra = append(extra, queryTerm{n.id, w, word})
				}
			}
		}
		words++
	}
	sc.tok.tokens(query[:cut], each)
	mult = contentWeight
	sc.tok.tokens(query[cut:], each)
	if words > 0 && words < MaxQueryTerms && isQuestion(query) {
		sc.verbs = 1
		word := uint8(words)
		for _, t := range questionTerms {
			if id, ok := ix.termIDs[t]; ok {
				ix.addTerm(sc, id, synonymWeight, word, 1)
			}
		}
		words++
	}
	for _, qt := range sc.terms {
		bit := uint32(1) << qt.word
		ww := sc.wordW[qt.word]
		for _, p := range ix.postings[qt.id] {
			d := p.doc &^ inName
			a := &sc.acc[d]
			if a.score == 0 {
				sc.touched = append(sc.touched, d)
			}
			a.score += qt.weight * p.score
			if a.words&bit == 0 {
				a.words |= bit
				a.matched += ww
			}
			if p.doc&inName != 0 {
				a.nameHits += qt.weight
			}
		}
	}
	for _, qt := range extra {
		if slices.ContainsFunc(sc.terms, func(t queryTerm) bool { return t.id == qt.id }) {
			continue
		}
		for _, p := range ix.postings[qt.id] {
			d := p.doc &^ inName
			a := &sc.acc[d]
			if a.score == 0 {
				sc.touched = append(sc.touched, d)
			}
			a.score += qt.weight * p.score
		}
	}
	var total float32
	for _, w := range sc.wordW[:words] {
		total += w
	}
	hits := ix.topK(sc, k, 1/max(total, 1e-6))
	for _, d := range sc.touched {
		sc.acc[d] = docAcc{}
	}
	sc.touched = sc.touched[:0]
	return hits
}

// vecSets is what each setting is measured on.
type vecSets struct {
	pool, dev, devQ, corpus, synth []Doc
	tune, held                     []struct{ query, want string }
}

func (s *vecSets) measure(wv *wordVecs, p vecParams, held bool) string {
	cnt := func(q quality) string {
		return fmt.Sprintf("%d/%d", int(q.recall1*float64(q.n)+0.5), int(q.recall5*float64(q.n)+0.5))
	}
	pool := newVecIndex(s.pool, wv, &p)
	t := measure(pool, s.tune)
	out := fmt.Sprintf("tune %.3f/%.3f/%.3f", t.recall1, t.recall5, t.mrr)
	if held {
		h := measure(pool, s.held)
		out += fmt.Sprintf(" held %.3f/%.3f/%.3f", h.recall1, h.recall5, h.mrr)
	}
	out += " dev " + cnt(measure(newVecIndex(s.dev, wv, &p), devRequests))
	out += " devQ " + cnt(measure(newVecIndex(s.devQ, wv, &p), devRequests))
	if s.corpus != nil {
		out += " corpus " + cnt(measure(newVecIndex(s.corpus, wv, &p), corpusRequests))
	}
	if s.synth != nil {
		out += " synth " + cnt(measure(newVecIndex(s.synth, wv, &p), devRequests))
	}
	return out
}

func vecSetup(b *testing.B) (*vecSets, *wordVecs) {
	path := os.Getenv("TOOLCAT_WORDVEC")
	if path == "" {
		b.Skip("TOOLCAT_WORDVEC is not set: a fastText .vec file trained on internal/vectext's text")
	}
	docs, _ := evalPool(b)
	s := &vecSets{pool: docs, dev: devDocs(false), devQ: devDocs(true)}
	for _, r := range readEvalRequests(b) {
		e := struct{ query, want string }{r.Query, strings.Join(append([]string{r.Want}, r.Also...), "|")}
		if r.Half == "tune" {
			s.tune = append(s.tune, e)
		} else {
			s.held = append(s.held, e)
		}
	}
	if os.Getenv("TOOLCAT_CORPUS") != "" {
		s.corpus = corpusDocs(b)
	}
	if os.Getenv("VEC_SYNTH") != "" {
		s.synth = syntheticDocs(5000)
	}
	return s, loadWordVecs(b, path)
}

// BenchmarkVectors measures the settings given in $VEC_RUN (one per line:
// name=value pairs of vecParams, "base" for the index as it is), or a
// sweep of expansion settings:
//
//	TOOLCAT_DISCOVERY_POOL=dir TOOLCAT_WORDVEC=file.vec go test -run '^$' -bench BenchmarkVectors -benchtime 1x -v ./runtime/discovery/
func BenchmarkVectors(b *testing.B) {
	s, wv := vecSetup(b)
	held := os.Getenv("VEC_HELD") != ""
	b.Logf("%d vectors of %d dimensions", len(wv.vec), wv.dim)
	var runs []vecParams
	var labels []string
	if spec := os.Getenv("VEC_RUN"); spec != "" {
		for line := range strings.SplitSeq(spec, ";") {
			p, err := parseVecParams(line)
			if err != nil {
				b.Fatal(err)
			}
			runs = append(runs, p)
			labels = append(labels, strings.TrimSpace(line))
		}
	}
	for i, p := range runs {
		b.Logf("%-60s %s", labels[i], s.measure(wv, p, held))
	}
}

func parseVecParams(s string) (vecParams, error) {
	p := vecParams{k: 3, tau: 0.6, w: 0.2, maxDF: -1}
	for kv := range strings.FieldsSeq(s) {
		if kv == "base" {
			continue
		}
		k, val, ok := strings.Cut(kv, "=")
		if !ok {
			return p, fmt.Errorf("%q: want name=value", kv)
		}
		f, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return p, fmt.Errorf("%q: %v", kv, err)
		}
		switch k {
		case "k":
			p.k, p.expand = int(f), true
		case "tau":
			p.tau, p.expand = float32(f), true
		case "w":
			p.w, p.expand = float32(f), true
		case "coord":
			p.coord, p.expand = f != 0, true
		case "maxdf":
			p.maxDF, p.expand = int(f), true
		case "verbsafe":
			p.verbSafe = f != 0
		case "nosyn":
			p.noSyn = f != 0
		case "rerank":
			p.rerankN = int(f)
		case "lambda":
			p.lambda = float32(f)
		default:
			return p, fmt.Errorf("%q: unknown setting", k)
		}
	}
	return p, nil
}
