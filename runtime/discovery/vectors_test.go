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
	near  map[string][]neighbour // nearest, shared by the indexes of one tool set
	df    []int                  // by term ID
	tools map[string][]float32
	soft  map[string]*softTool
}

// softTool is what soft coordination knows of a tool: the terms of its
// name and first sentence with vectors, and all of its terms.
type softTool struct {
	vecs [][]float32
	all  map[string]bool
}

type vecParams struct {
	k        int     // neighbours per query word
	tau      float32 // least cosine
	w        float32 // weight × cosine
	coord    bool    // a neighbour counts as matching the word in coordination
	maxDF    int     // only for query words in at most this many tools (-1: all)
	verbSafe bool    // no neighbour of another verb group than the word's
	noSyn    bool    // no neighbour that is already a synonym of the word
	mutual   int     // only neighbours that have the word among their this many nearest (0: any)
	rerankN  int     // re-rank the first N by the mean vectors (0: no)
	lambda   float32
	group    bool    // re-rank by the mean vector of the tool's server (server/tool), of all their text
	softN    int     // re-rank the first N by soft coordination (0: no)
	softTau  float32 // least cosine of a word and a tool's term that counts
	softL    float32 // ×(1 + softL × share of the query's idf matched softly)
	expand   bool    // expansion on (else only re-ranking)
}

func newVecIndex(docs []Doc, wv *wordVecs, p *vecParams, near map[string][]neighbour) *vecIndex {
	ix := New(docs)
	v := &vecIndex{ix: ix, wv: wv, p: p, memo: map[string][]neighbour{}, near: near}
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
	if p.rerankN > 0 && p.group {
		// The tools of one server (the part of the name before a slash,
		// or the tool alone) share one vector: the mean of all their
		// names' and descriptions' terms.
		sums := map[string][]float32{}
		for _, d := range uniqueByName(docs) {
			g := d.Name[:max(0, strings.IndexByte(d.Name, '/'))]
			if g == "" {
				g = d.Name
			}
			m := v.meanVec(Terms(d.Name + " " + clip(d.Description, MaxQueryBytes)))
			if m == nil {
				continue
			}
			if sums[g] == nil {
				sums[g] = make([]float32, wv.dim)
			}
			for i, x := range m {
				sums[g][i] += x
			}
		}
		for _, m := range sums {
			var n float64
			for _, x := range m {
				n += float64(x * x)
			}
			inv := float32(1 / math.Sqrt(n))
			for i := range m {
				m[i] *= inv
			}
		}
		v.tools = map[string][]float32{}
		for _, d := range uniqueByName(docs) {
			g := d.Name[:max(0, strings.IndexByte(d.Name, '/'))]
			if g == "" {
				g = d.Name
			}
			v.tools[d.Name] = sums[g]
		}
	} else if p.rerankN > 0 {
		v.tools = map[string][]float32{}
		for _, d := range uniqueByName(docs) {
			var tx texts
			var buf []byte
			splitDescription(d.Description, &tx, &buf)
			text := d.Name + " " + strings.Join(tx[fieldSummary], " ")
			v.tools[d.Name] = v.meanVec(Terms(text))
		}
	}
	if p.softN > 0 {
		v.soft = map[string]*softTool{}
		for _, d := range uniqueByName(docs) {
			var tx texts
			var buf []byte
			splitDescription(d.Description, &tx, &buf)
			schemaTexts(d.Args, &tx)
			st := &softTool{all: map[string]bool{}}
			for _, t := range Terms(d.Name + " " + strings.Join(tx[fieldSummary], " ")) {
				if x := wv.vec[t]; x != nil {
					st.vecs = append(st.vecs, x)
				}
			}
			for f := range numFields {
				for _, s := range tx[f] {
					for _, t := range Terms(s) {
						st.all[t] = true
					}
				}
			}
			for _, t := range Terms(d.Name) {
				st.all[t] = true
			}
			v.soft[d.Name] = st
		}
	}
	return v
}

// softRerank scales the score of each hit by 1 + softL × the share of the
// query's words (weighed by idf) that the tool does not have, directly or
// by a synonym, but that are near (cosine ≥ softTau) a term of its name or
// first sentence, each by how near.
func (v *vecIndex) softRerank(query string, hits []Hit) {
	terms := Terms(query)
	maxIDF := float32(math.Log(1 + (float64(len(v.ix.names))+0.5)/0.5))
	var total float32
	idf := make([]float32, len(terms))
	for i, t := range terms {
		idf[i] = maxIDF
		if id, ok := v.ix.termIDs[t]; ok {
			idf[i] = v.ix.idf[id]
		}
		total += idf[i]
	}
	if total == 0 {
		return
	}
	for i := range hits {
		st := v.soft[hits[i].Name]
		if st == nil {
			continue
		}
		var soft float32
		for j, t := range terms {
			if st.all[t] || slices.ContainsFunc(synonyms[t], func(s string) bool { return st.all[s] }) {
				continue
			}
			x := v.wv.vec[t]
			if x == nil {
				continue
			}
			best := float32(0)
			for _, y := range st.vecs {
				best = max(best, dot(x, y))
			}
			if best >= v.p.softTau {
				soft += idf[j] * (best - v.p.softTau) / (1 - v.p.softTau)
			}
		}
		hits[i].Score *= 1 + float64(v.p.softL*soft/total)
	}
	sortHits(hits)
}

func sortHits(hits []Hit) {
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
	all, ok := v.near[term]
	if !ok {
		all = v.nearest(term)
		v.near[term] = all
	}
	cls := verbClasses[term]
	var out []neighbour
	for _, n := range all {
		if len(out) >= v.p.k || n.cos < v.p.tau {
			break
		}
		t := v.terms[n.id]
		if v.p.verbSafe && cls != 0 && verbClasses[t] != 0 && verbClasses[t]&cls == 0 {
			continue
		}
		if v.p.noSyn && contains(synonyms[term], t) {
			continue
		}
		if v.p.mutual > 0 {
			nn, ok := v.near[t]
			if !ok {
				nn = v.nearest(t)
				v.near[t] = nn
			}
			if len(nn) >= v.p.mutual && nn[v.p.mutual-1].cos > n.cos {
				continue
			}
		}
		out = append(out, n)
	}
	v.memo[term] = out
	return out
}

// nearest returns the 50 index terms nearest to term with a cosine of at
// least 0.3, best first.
func (v *vecIndex) nearest(term string) []neighbour {
	x, ok := v.wv.vec[term]
	if !ok {
		return nil
	}
	self, hasSelf := v.ix.termIDs[term]
	var out []neighbour
	for i, y := range v.vecs {
		if hasSelf && v.ids[i] == self {
			continue
		}
		if c := dot(x, y); c >= 0.3 {
			out = append(out, neighbour{v.ids[i], c})
		}
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
	return out[:min(len(out), 50)]
}

func (v *vecIndex) Search(query string, k int) []Hit {
	if v.p.softN > 0 {
		hits := v.search(query, max(k, v.p.softN))
		v.softRerank(query, hits)
		return hits[:min(k, len(hits))]
	}
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
	near                           [5]map[string][]neighbour
}

func (s *vecSets) measure(wv *wordVecs, p vecParams, held bool) string {
	cnt := func(q quality) string {
		return fmt.Sprintf("%d/%d", int(q.recall1*float64(q.n)+0.5), int(q.recall5*float64(q.n)+0.5))
	}
	pool := newVecIndex(s.pool, wv, &p, s.near[0])
	t := measure(pool, s.tune)
	out := fmt.Sprintf("tune %.3f/%.3f/%.3f", t.recall1, t.recall5, t.mrr)
	if held {
		h := measure(pool, s.held)
		out += fmt.Sprintf(" held %.3f/%.3f/%.3f", h.recall1, h.recall5, h.mrr)
	}
	out += " dev " + cnt(measure(newVecIndex(s.dev, wv, &p, s.near[1]), devRequests))
	out += " devQ " + cnt(measure(newVecIndex(s.devQ, wv, &p, s.near[2]), devRequests))
	if s.corpus != nil {
		out += " corpus " + cnt(measure(newVecIndex(s.corpus, wv, &p, s.near[3]), corpusRequests))
	}
	if s.synth != nil {
		out += " synth " + cnt(measure(newVecIndex(s.synth, wv, &p, s.near[4]), devRequests))
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
	for i := range s.near {
		s.near[i] = map[string][]neighbour{}
	}
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

// BenchmarkVectors measures the settings given in $VEC_RUN (separated by
// semicolons: name=value pairs, "base" for the index as it is), and every
// combination of the lists in $VEC_SWEEP ("k=1,3 tau=0.5,0.6"). Names:
// expansion k, tau, w, coord (0/1), maxdf (-1: every word), verbsafe,
// nosyn, mutual; re-ranking rerank (N), lambda, group (by server); soft
// coordination soft (N), stau, sl. $VEC_MISSES prints the tuning half's
// misses, $VEC_COS cosines of a:b pairs, $VEC_NEAR nearest pool terms,
// $VEC_HELD adds the held-out half, $VEC_SYNTH the synthetic set:
//
//	TOOLCAT_DISCOVERY_POOL=dir TOOLCAT_WORDVEC=file.vec go test -run '^$' -bench BenchmarkVectors -benchtime 1x -v ./runtime/discovery/
func BenchmarkVectors(b *testing.B) {
	s, wv := vecSetup(b)
	held := os.Getenv("VEC_HELD") != ""
	// search is a copy of Index.Search: with no neighbours it must rank
	// as Index.Search does, or the figures are of something else.
	same := newVecIndex(s.dev, &wordVecs{dim: 1, vec: map[string][]float32{}}, &vecParams{expand: true, maxDF: -1}, map[string][]neighbour{})
	for _, r := range devRequests {
		if a, c := same.Search(r.query, 10), same.ix.Search(r.query, 10); !slices.Equal(a, c) {
			b.Fatalf("%q: vecIndex.search gives %v, Index.Search %v: bring the copy up to date", r.query, a, c)
		}
	}
	pv := newVecIndex(s.pool, wv, &vecParams{}, nil)
	b.Logf("%d vectors of %d dimensions; %d of the pool's %d terms have one", len(wv.vec), wv.dim, len(pv.ids), len(pv.terms))
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
	// $VEC_SWEEP: every combination of its name=v1,v2,... lists.
	if spec := os.Getenv("VEC_SWEEP"); spec != "" {
		lines := []string{""}
		for kv := range strings.FieldsSeq(spec) {
			k, vals, _ := strings.Cut(kv, "=")
			var next []string
			for _, l := range lines {
				for v := range strings.SplitSeq(vals, ",") {
					next = append(next, strings.TrimSpace(l+" "+k+"="+v))
				}
			}
			lines = next
		}
		for _, l := range lines {
			p, err := parseVecParams(l)
			if err != nil {
				b.Fatal(err)
			}
			runs = append(runs, p)
			labels = append(labels, l)
		}
	}
	for i, p := range runs {
		b.Logf("%-60s %s", labels[i], s.measure(wv, p, held))
		if os.Getenv("VEC_MISSES") != "" { // the tuning half's only
			for _, m := range measure(newVecIndex(s.pool, wv, &p, s.near[0]), s.tune).misses {
				b.Log("  ", m)
			}
		}
	}
	// $VEC_COS: the cosine of each of its a:b pairs of words.
	for pair := range strings.FieldsSeq(os.Getenv("VEC_COS")) {
		a, c, _ := strings.Cut(pair, ":")
		ta, tc := Terms(a), Terms(c)
		if len(ta) == 1 && len(tc) == 1 {
			x, y := wv.vec[ta[0]], wv.vec[tc[0]]
			if x != nil && y != nil {
				b.Logf("%s %s %.2f", ta[0], tc[0], dot(x, y))
				continue
			}
		}
		b.Logf("%s: no vectors", pair)
	}
	// $VEC_NEAR: the nearest pool terms of each of its words.
	if near := os.Getenv("VEC_NEAR"); near != "" {
		p := vecParams{k: 8, tau: 0.3, maxDF: -1}
		v := newVecIndex(s.pool, wv, &p, map[string][]neighbour{})
		for _, w := range strings.Fields(near) {
			for _, t := range Terms(w) {
				var out []string
				for _, n := range v.neighbours(t) {
					out = append(out, fmt.Sprintf("%s %.2f", v.terms[n.id], n.cos))
				}
				b.Logf("%s: %s", t, strings.Join(out, ", "))
			}
		}
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
		case "mutual":
			p.mutual = int(f)
		case "nosyn":
			p.noSyn = f != 0
		case "rerank":
			p.rerankN = int(f)
		case "lambda":
			p.lambda = float32(f)
		case "group":
			p.group = f != 0
		case "soft":
			p.softN = int(f)
		case "stau":
			p.softTau = float32(f)
		case "sl":
			p.softL = float32(f)
		default:
			return p, fmt.Errorf("%q: unknown setting", k)
		}
	}
	return p, nil
}
