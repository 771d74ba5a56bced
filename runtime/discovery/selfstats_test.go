package discovery

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// This file holds the experiments of the fourth round's "what the tools'
// own text says" (README.md): knowledge learned at build time from the
// indexed tools alone. expIndex searches as Index.Search does, with hooks
// for what an experiment adds; BenchmarkSelfStats (selfstats_bench_test.go)
// sweeps the settings on the tuning half of the evaluation set.

// expTerm is a term an experiment adds to a query word, at a weight.
type expTerm struct {
	id     uint32
	weight float32
}

// expIndex is an Index with what an experiment learned from its tools.
type expIndex struct {
	ix *Index

	// (a) query expansion: by term ID, associated terms and their weight
	// (already scaled); expandCoord counts a tool matched only by them as
	// matching the word.
	expand      [][]expTerm
	expandFn    func(id uint32) []expTerm // instead of expand: computed on demand
	expandCoord bool

	// (b) latent vectors: by document and by term, rank r each; the top
	// rerankN are rescored × (1 + lambda × cosine).
	docVec, termVec [][]float32
	rerankN         int
	lambda          float32
	rrf             bool // fuse ranks instead: 1/(60+rank) of each
	latentAll       int  // with rrf: the latent ranking's top latentAll of all tools join the candidates

	// (c) local idf among the top localN candidates: each query term's
	// contribution × (1 + localGamma × (1 − share of candidates having it)).
	localN     int
	localGamma float32
	// (c') neighbourhood-discriminative posting weights precomputed at
	// build time: by term ID, the scores replace ix.postings' when set.
	postings [][]posting
}

type expQueryTerm struct {
	id     uint32
	weight float32
	word   uint8
	coord  bool
}

type expAcc struct {
	docAcc
	final float32
}

func (e *expIndex) Search(query string, k int) []Hit {
	ix := e.ix
	if k <= 0 || len(ix.names) == 0 {
		return nil
	}
	var tok tokenizer
	var terms []expQueryTerm
	var wordW [MaxQueryTerms]float32
	var verbs uint32
	words := 0
	add := func(id uint32, w float32, word uint8, mult float32, coord bool) {
		if coord {
			wordW[word] = max(wordW[word], mult*ix.idf[id])
		}
		for i := range terms {
			if terms[i].id == id {
				if w > terms[i].weight {
					terms[i].weight, terms[i].word = w, word
					terms[i].coord = terms[i].coord || coord
				}
				return
			}
		}
		terms = append(terms, expQueryTerm{id, w, word, coord})
	}
	query = clip(rewriteQuery(clip(query, MaxQueryBytes)), MaxQueryBytes)
	cut := contentStart(query)
	mult := float32(1)
	each := func(term []byte) {
		if words >= MaxQueryTerms {
			return
		}
		word := uint8(words)
		if word == 0 {
			verbs = verbClasses[string(term)] | leadingVerbs[string(term)]
		}
		id, ok := ix.termIDs[string(term)]
		if ok {
			add(id, mult, word, mult, true)
		}
		for _, syn := range synonyms[string(term)] {
			if id, ok := ix.termIDs[syn]; ok {
				add(id, synonymWeight*mult, word, mult, true)
			}
		}
		if ok && (e.expand != nil || e.expandFn != nil) {
			var xs []expTerm
			if e.expandFn != nil {
				xs = e.expandFn(id)
			} else {
				xs = e.expand[id]
			}
			for _, x := range xs {
				add(x.id, x.weight*mult, word, mult, e.expandCoord)
			}
		}
		words++
	}
	tok.tokens(query[:cut], each)
	mult = contentWeight
	tok.tokens(query[cut:], each)
	if words > 0 && words < MaxQueryTerms && isQuestion(query) {
		verbs = 1
		word := uint8(words)
		for _, v := range questionTerms {
			if id, ok := ix.termIDs[v]; ok {
				add(id, synonymWeight, word, 1, true)
			}
		}
		words++
	}

	postings := ix.postings
	if e.postings != nil {
		postings = e.postings
	}
	acc := map[uint32]*expAcc{}
	for _, qt := range terms {
		bit := uint32(1) << qt.word
		ww := wordW[qt.word]
		for _, p := range postings[qt.id] {
			d := p.doc &^ inName
			a := acc[d]
			if a == nil {
				a = &expAcc{}
				acc[d] = a
			}
			a.score += qt.weight * p.score
			if qt.coord && a.words&bit == 0 {
				a.words |= bit
				a.matched += ww
			}
			if p.doc&inName != 0 {
				a.nameHits += qt.weight
			}
		}
	}
	var total float32
	for _, w := range wordW[:words] {
		total += w
	}
	invTotal := 1 / max(total, 1e-6)
	final := func(d uint32, a *docAcc) float32 {
		s := a.score * (a.matched * invTotal) * (1 + nameBoost*min(1, a.nameHits*ix.invName[d]))
		if v := ix.verbs[d]; v != 0 && verbs != 0 && v&verbs == 0 {
			s *= verbMismatch
		}
		return s
	}
	docs := make([]uint32, 0, len(acc))
	for d, a := range acc {
		a.final = final(d, &a.docAcc)
		if a.final > 0 {
			docs = append(docs, d)
		}
	}
	order := func() {
		slices.SortFunc(docs, func(x, y uint32) int {
			if sx, sy := acc[x].final, acc[y].final; sx != sy {
				if sx > sy {
					return -1
				}
				return 1
			}
			if ix.names[x] < ix.names[y] {
				return -1
			}
			return 1
		})
	}
	order()

	// (c) local idf among the top candidates.
	if e.localN > 0 && len(docs) > 1 {
		top := docs[:min(e.localN, len(docs))]
		in := map[uint32]bool{}
		for _, d := range top {
			in[d] = true
		}
		fresh := map[uint32]*docAcc{}
		for _, d := range top {
			fresh[d] = &docAcc{}
		}
		for _, qt := range terms {
			n := 0
			for _, p := range postings[qt.id] {
				if in[p.doc&^inName] {
					n++
				}
			}
			if n == 0 {
				continue
			}
			f := 1 + e.localGamma*(1-float32(n)/float32(len(top)))
			bit := uint32(1) << qt.word
			ww := wordW[qt.word]
			for _, p := range postings[qt.id] {
				d := p.doc &^ inName
				a := fresh[d]
				if a == nil {
					continue
				}
				a.score += qt.weight * p.score * f
				if qt.coord && a.words&bit == 0 {
					a.words |= bit
					a.matched += ww
				}
				if p.doc&inName != 0 {
					a.nameHits += qt.weight
				}
			}
		}
		for _, d := range top {
			acc[d].final = final(d, fresh[d])
		}
		// Keep the candidates ahead of the rest: rescale so that the
		// worst candidate stays above the first non-candidate.
		if len(docs) > len(top) {
			floor := acc[docs[len(top)]].final
			for _, d := range top {
				acc[d].final = floor + acc[d].final + 1e-3
			}
		}
		order()
	}

	// (b) latent rerank of the top candidates.
	if e.docVec != nil && e.rerankN > 0 && len(docs) > 1 {
		q := make([]float32, len(e.termVec[0]))
		for _, qt := range terms {
			if !qt.coord {
				continue
			}
			for i, v := range e.termVec[qt.id] {
				q[i] += qt.weight * v
			}
		}
		top := docs[:min(e.rerankN, len(docs))]
		cos := make(map[uint32]float32, len(top))
		for _, d := range top {
			cos[d] = cosine(q, e.docVec[d])
		}
		if e.latentAll > 0 {
			all := make([]uint32, len(ix.names))
			allCos := make([]float32, len(ix.names))
			for d := range all {
				all[d] = uint32(d)
				allCos[d] = cosine(q, e.docVec[d])
			}
			slices.SortStableFunc(all, func(x, y uint32) int {
				if allCos[x] > allCos[y] {
					return -1
				}
				if allCos[x] < allCos[y] {
					return 1
				}
				return 0
			})
			top = slices.Clone(top)
			for _, d := range all[:min(e.latentAll, len(all))] {
				if _, ok := cos[d]; !ok {
					cos[d] = allCos[d]
					top = append(top, d)
					if acc[d] == nil {
						acc[d] = &expAcc{}
					}
					docs = append(docs, d)
				}
			}
		}
		if e.rrf {
			byCos := slices.Clone(top)
			slices.SortStableFunc(byCos, func(x, y uint32) int {
				if cos[x] > cos[y] {
					return -1
				}
				if cos[x] < cos[y] {
					return 1
				}
				return 0
			})
			r := map[uint32]float32{}
			for i, d := range top {
				if acc[d].final > 0 {
					r[d] += 1 / (60 + float32(i))
				}
			}
			for i, d := range byCos {
				r[d] += e.lambda / (60 + float32(i))
			}
			floor := float32(0)
			for _, d := range docs {
				if _, ok := cos[d]; !ok {
					floor = max(floor, acc[d].final)
				}
			}
			for _, d := range top {
				acc[d].final = floor + 1 + r[d]
			}
		} else {
			floor := float32(0)
			if len(docs) > len(top) {
				floor = acc[docs[len(top)]].final
			}
			for _, d := range top {
				acc[d].final = max(floor+1e-3, acc[d].final*(1+e.lambda*cos[d]))
			}
		}
		order()
	}

	docs = docs[:min(k, len(docs))]
	hits := make([]Hit, len(docs))
	for i, d := range docs {
		hits[i] = Hit{Name: ix.names[d], Score: float64(acc[d].final)}
	}
	return hits
}

func cosine(a, b []float32) float32 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return float32(ab / math.Sqrt(aa*bb))
}

// docFieldTerms gives, by document of ix (docs as given to New), the term
// IDs of each of its fields, as New reads them.
func docFieldTerms(ix *Index, docs []Doc) [][numFields][]uint32 {
	docs = uniqueByName(docs)
	out := make([][numFields][]uint32, len(docs))
	var tok tokenizer
	var buf []byte
	for d, doc := range docs {
		var tx texts
		tx[fieldName] = []string{clip(doc.Name, maxEnumBytes)}
		splitDescription(doc.Description, &tx, &buf)
		schemaTexts(doc.Args, &tx)
		tx[fieldQueries] = doc.Queries
		if doc.Category != "" {
			tx[fieldCategory] = []string{doc.Category}
		}
		for f := range numFields {
			for _, s := range tx[f] {
				tok.tokens(s, func(term []byte) {
					if id, ok := ix.termIDs[string(term)]; ok {
						out[d][f] = append(out[d][f], id)
					}
				})
			}
		}
	}
	return out
}

// assocOpts are the settings of experiment (a): term associations from
// co-occurrence within tools, used as query expansion.
type assocOpts struct {
	fields   []field // the fields whose terms co-occur
	measure  string  // "ppmi", "dice" or "cond" (P(b|a) × idf(b))
	minCount int     // tools both terms must share
	top      int     // associated terms per query term
	weight   float32 // their weight, against 1 for the word
	coord    bool    // counted in coordination
	maxDF    float64 // a term in more than this share of tools neither expands nor is added
}

// associations computes, by term ID, the terms most associated with each.
func associations(ix *Index, ft [][numFields][]uint32, o assocOpts) [][]expTerm {
	n := len(ft)
	df := make([]int32, len(ix.postings))
	pairs := map[uint64]int32{}
	set := []uint32{}
	seen := map[uint32]bool{}
	for _, d := range ft {
		set = set[:0]
		clear(seen)
		for _, f := range o.fields {
			for _, t := range d[f] {
				if !seen[t] {
					seen[t] = true
					set = append(set, t)
				}
			}
		}
		for _, t := range set {
			df[t]++
		}
		for i, a := range set {
			for _, b := range set[i+1:] {
				lo, hi := min(a, b), max(a, b)
				pairs[uint64(lo)<<32|uint64(hi)]++
			}
		}
	}
	type cand struct {
		id    uint32
		score float64
	}
	by := make([][]cand, len(ix.postings))
	limit := int32(o.maxDF * float64(n))
	for k, c := range pairs {
		if int(c) < o.minCount {
			continue
		}
		a, b := uint32(k>>32), uint32(k)
		if df[a] > limit || df[b] > limit {
			continue
		}
		ca, cb, cab := float64(df[a]), float64(df[b]), float64(c)
		score := func(x, y uint32, cx, cy float64) float64 {
			switch o.measure {
			case "dice":
				return 2 * cab / (cx + cy)
			case "cond":
				return cab / cx * float64(ix.idf[y])
			default:
				return math.Log(cab * float64(n) / (cx * cy))
			}
		}
		if s := score(a, b, ca, cb); s > 0 {
			by[a] = append(by[a], cand{b, s})
		}
		if s := score(b, a, cb, ca); s > 0 {
			by[b] = append(by[b], cand{a, s})
		}
	}
	out := make([][]expTerm, len(ix.postings))
	for t, cs := range by {
		slices.SortFunc(cs, func(x, y cand) int {
			if x.score != y.score {
				if x.score > y.score {
					return -1
				}
				return 1
			}
			return int(x.id) - int(y.id)
		})
		for _, c := range cs[:min(o.top, len(cs))] {
			out[t] = append(out[t], expTerm{c.id, o.weight})
		}
	}
	return out
}

func assocVariant(name string, o assocOpts) selfVariant {
	return selfVariant{name, func(ix *Index, docs []Doc) searcher {
		return &expIndex{ix: ix, expand: associations(ix, docFieldTerms(ix, docs), o), expandCoord: o.coord}
	}}
}

// latent computes rank-r latent vectors of the index's tool × term matrix
// (entries: the postings' BM25F scores, each tool's row scaled to length 1
// when norm is set) by a randomized SVD with power iterations: by document
// U×Σ, by term V, so that a query's vector is the sum of its terms' and
// its cosine with a document's is taken in the projected term space.
func latent(ix *Index, r, power int, norm bool) (docVec, termVec [][]float32) {
	m, n := len(ix.names), len(ix.postings)
	l := min(r+10, m, n)
	if l == 0 {
		return nil, nil
	}
	rowScale := make([]float64, m)
	for d := range rowScale {
		rowScale[d] = 1
	}
	if norm {
		sq := make([]float64, m)
		for _, ps := range ix.postings {
			for _, p := range ps {
				sq[p.doc&^inName] += float64(p.score) * float64(p.score)
			}
		}
		for d, s := range sq {
			if s > 0 {
				rowScale[d] = 1 / math.Sqrt(s)
			}
		}
	}
	// A·X (X: n×l) and Aᵀ·Y (Y: m×l), with matrices as flat row-major slices.
	mulA := func(x []float64) []float64 {
		y := make([]float64, m*l)
		for t, ps := range ix.postings {
			xt := x[t*l : t*l+l]
			for _, p := range ps {
				d := int(p.doc &^ inName)
				s := float64(p.score) * rowScale[d]
				yd := y[d*l : d*l+l]
				for j, v := range xt {
					yd[j] += s * v
				}
			}
		}
		return y
	}
	mulAT := func(y []float64) []float64 {
		x := make([]float64, n*l)
		for t, ps := range ix.postings {
			xt := x[t*l : t*l+l]
			for _, p := range ps {
				d := int(p.doc &^ inName)
				s := float64(p.score) * rowScale[d]
				yd := y[d*l : d*l+l]
				for j, v := range yd {
					xt[j] += s * v
				}
			}
		}
		return x
	}
	rng := rand.New(rand.NewPCG(1, 2))
	omega := make([]float64, n*l)
	for i := range omega {
		omega[i] = rng.NormFloat64()
	}
	q := orthonormalize(mulA(omega), m, l)
	for range power {
		z := orthonormalize(mulAT(q), n, l)
		q = orthonormalize(mulA(z), m, l)
	}
	bt := mulAT(q) // n×l: Bᵀ where B = Qᵀ A
	// B Bᵀ = btᵀ bt (l×l), eigen-decomposed.
	c := make([]float64, l*l)
	for t := range n {
		row := bt[t*l : t*l+l]
		for i, vi := range row {
			if vi == 0 {
				continue
			}
			for j := i; j < l; j++ {
				c[i*l+j] += vi * row[j]
			}
		}
	}
	for i := range l {
		for j := range i {
			c[i*l+j] = c[j*l+i]
		}
	}
	vals, vecs := jacobiEigen(c, l)
	order := make([]int, l)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if vals[a] > vals[b] {
			return -1
		}
		if vals[a] < vals[b] {
			return 1
		}
		return 0
	})
	r = min(r, l)
	docVec = make([][]float32, m)
	for d := range m {
		v := make([]float32, r)
		qd := q[d*l : d*l+l]
		for k := range r {
			e := order[k]
			var s float64
			for i, x := range qd {
				s += x * vecs[i*l+e]
			}
			v[k] = float32(s * math.Sqrt(max(vals[e], 0)))
		}
		docVec[d] = v
	}
	termVec = make([][]float32, n)
	for t := range n {
		v := make([]float32, r)
		bt := bt[t*l : t*l+l]
		for k := range r {
			e := order[k]
			sigma := math.Sqrt(max(vals[e], 0))
			if sigma == 0 {
				continue
			}
			var s float64
			for i, x := range bt {
				s += x * vecs[i*l+e]
			}
			v[k] = float32(s / sigma)
		}
		termVec[t] = v
	}
	return docVec, termVec
}

// orthonormalize makes the l columns of the rows×l matrix a orthonormal
// (modified Gram-Schmidt), in place.
func orthonormalize(a []float64, rows, l int) []float64 {
	for j := range l {
		for k := range j {
			var dot float64
			for i := range rows {
				dot += a[i*l+j] * a[i*l+k]
			}
			for i := range rows {
				a[i*l+j] -= dot * a[i*l+k]
			}
		}
		var nn float64
		for i := range rows {
			nn += a[i*l+j] * a[i*l+j]
		}
		if nn = math.Sqrt(nn); nn > 1e-12 {
			for i := range rows {
				a[i*l+j] /= nn
			}
		}
	}
	return a
}

// jacobiEigen returns the eigenvalues and eigenvectors (columns of a
// row-major n×n matrix) of the symmetric matrix a, by cyclic Jacobi.
func jacobiEigen(a []float64, n int) ([]float64, []float64) {
	a = slices.Clone(a)
	v := make([]float64, n*n)
	for i := range n {
		v[i*n+i] = 1
	}
	for sweep := 0; sweep < 50; sweep++ {
		var off float64
		for i := range n {
			for j := i + 1; j < n; j++ {
				off += a[i*n+j] * a[i*n+j]
			}
		}
		if off < 1e-18 {
			break
		}
		for p := range n {
			for q := p + 1; q < n; q++ {
				apq := a[p*n+q]
				if math.Abs(apq) < 1e-30 {
					continue
				}
				theta := (a[q*n+q] - a[p*n+p]) / (2 * apq)
				t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for k := range n {
					akp, akq := a[k*n+p], a[k*n+q]
					a[k*n+p] = c*akp - s*akq
					a[k*n+q] = s*akp + c*akq
				}
				for k := range n {
					apk, aqk := a[p*n+k], a[q*n+k]
					a[p*n+k] = c*apk - s*aqk
					a[q*n+k] = s*apk + c*aqk
				}
				for k := range n {
					vkp, vkq := v[k*n+p], v[k*n+q]
					v[k*n+p] = c*vkp - s*vkq
					v[k*n+q] = s*vkp + c*vkq
				}
			}
		}
	}
	vals := make([]float64, n)
	for i := range n {
		vals[i] = a[i*n+i]
	}
	return vals, v
}

func latentVariant(name string, r, power int, norm bool, n int, lambda float32, rrf bool) selfVariant {
	return selfVariant{name, func(ix *Index, _ []Doc) searcher {
		dv, tv := latent(ix, r, power, norm)
		return &expIndex{ix: ix, docVec: dv, termVec: tv, rerankN: n, lambda: lambda, rrf: rrf}
	}}
}

func TestLatentReconstructs(t *testing.T) {
	// A small index: a full-rank decomposition must give back each
	// document's own row, so a document's latent vector and the sum of its
	// terms' vectors (weighted by its scores) have cosine 1.
	ix := New(devDocs(false))
	dv, tv := latent(ix, len(ix.names), 3, false)
	for d := range ix.names {
		q := make([]float32, len(tv[0]))
		for t, ps := range ix.postings {
			for _, p := range ps {
				if int(p.doc&^inName) == d {
					for i, v := range tv[t] {
						q[i] += p.score * v
					}
				}
			}
		}
		if c := cosine(q, dv[d]); c < 0.999 {
			t.Errorf("%s: cosine %.4f of its row with its latent vector", ix.names[d], c)
		}
	}
}

// neighbourOpts are the settings of experiment (c'): a term's score for a
// tool grows with how well it tells the tool from its nearest neighbours
// (the k tools most like it, by cosine over the terms in at most maxDF of
// all tools): × (1 + gamma × (1 − share of the neighbours that have it)).
type neighbourOpts struct {
	k        int
	gamma    float32
	nameOnly bool    // only the terms of the tool's name are reweighed
	maxDF    float64 // terms in more tools than this share do not count in similarity
	inNames  bool    // a neighbour "has" a term when its name has it (else any field)
}

func neighbourPostings(ix *Index, o neighbourOpts) [][]posting {
	n := len(ix.names)
	type dt struct {
		t     uint32
		score float32
		name  bool
	}
	docTerms := make([][]dt, n)
	for t, ps := range ix.postings {
		for _, p := range ps {
			d := p.doc &^ inName
			docTerms[d] = append(docTerms[d], dt{uint32(t), p.score, p.doc&inName != 0})
		}
	}
	norm := make([]float64, n)
	limit := int(o.maxDF * float64(n))
	for d, ts := range docTerms {
		for _, x := range ts {
			if len(ix.postings[x.t]) <= limit {
				norm[d] += float64(x.score) * float64(x.score)
			}
		}
		norm[d] = math.Sqrt(norm[d])
	}
	// factor[d] by term: what each of d's terms is multiplied by.
	factor := make([]map[uint32]float32, n)
	sim := make([]float64, n)
	touched := []int{}
	count := make([]int, len(ix.postings))
	for d, ts := range docTerms {
		touched = touched[:0]
		for _, x := range ts {
			ps := ix.postings[x.t]
			if len(ps) > limit {
				continue
			}
			for _, p := range ps {
				e := int(p.doc &^ inName)
				if e == d {
					continue
				}
				if sim[e] == 0 {
					touched = append(touched, e)
				}
				sim[e] += float64(x.score) * float64(p.score)
			}
		}
		for _, e := range touched {
			sim[e] /= norm[d]*norm[e] + 1e-12
		}
		slices.SortFunc(touched, func(a, b int) int {
			if sim[a] != sim[b] {
				if sim[a] > sim[b] {
					return -1
				}
				return 1
			}
			return a - b
		})
		nb := touched[:min(o.k, len(touched))]
		for _, e := range nb {
			for _, y := range docTerms[e] {
				if !o.inNames || y.name {
					count[y.t]++
				}
			}
		}
		if len(nb) > 0 {
			factor[d] = map[uint32]float32{}
			for _, x := range ts {
				if o.nameOnly && !x.name {
					continue
				}
				factor[d][x.t] = 1 + o.gamma*(1-float32(count[x.t])/float32(len(nb)))
			}
		}
		for _, e := range nb {
			for _, y := range docTerms[e] {
				count[y.t] = 0
			}
		}
		for _, e := range touched {
			sim[e] = 0
		}
	}
	out := make([][]posting, len(ix.postings))
	for t, ps := range ix.postings {
		out[t] = slices.Clone(ps)
		for i, p := range out[t] {
			if f, ok := factor[p.doc&^inName][uint32(t)]; ok {
				out[t][i].score *= f
			}
		}
	}
	return out
}

// distOpts are the settings of experiment (d): distributional similarity
// learned from the tools' own text. Two terms are alike when the terms
// around them (within window positions, in any field's text) are alike:
// the cosine of their PPMI context vectors (context counts smoothed by
// ^0.75). A query term searches its top most alike terms of at least
// minSim, at weight, when it occurs minCount times or more.
type distOpts struct {
	window   int
	minCount int
	minSim   float64
	top      int
	weight   float32
	coord    bool
	fields   []field
	noVerbs  bool // terms of the verb groups neither expand nor are added
}

func distributional(ix *Index, ft [][numFields][]uint32, o distOpts) func(id uint32) []expTerm {
	nt := len(ix.postings)
	freq := make([]float64, nt)
	ctx := make([]map[uint32]float64, nt)
	for _, d := range ft {
		for _, f := range o.fields {
			seq := d[f]
			for i, a := range seq {
				freq[a]++
				for j := max(0, i-o.window); j < min(len(seq), i+o.window+1); j++ {
					if j == i || seq[j] == a {
						continue
					}
					if ctx[a] == nil {
						ctx[a] = map[uint32]float64{}
					}
					ctx[a][seq[j]]++
				}
			}
		}
	}
	// Context distribution, smoothed.
	cdist := make([]float64, nt)
	var total, ctotal float64
	for _, m := range ctx {
		for c, n := range m {
			cdist[c] += n
			total += n
		}
	}
	for c := range cdist {
		cdist[c] = math.Pow(cdist[c], 0.75)
		ctotal += cdist[c]
	}
	type cw struct {
		c uint32
		w float64
	}
	vec := make([][]cw, nt)
	norm := make([]float64, nt)
	inv := make([][]cw, nt) // by context: the terms having it (c holds the term)
	for a, m := range ctx {
		var rowSum float64
		for _, n := range m {
			rowSum += n
		}
		for c, n := range m {
			pmi := math.Log((n / total) / ((rowSum / total) * (cdist[c] / ctotal)))
			if pmi > 0 {
				vec[a] = append(vec[a], cw{c, pmi})
				norm[a] += pmi * pmi
				inv[c] = append(inv[c], cw{uint32(a), pmi})
			}
		}
		norm[a] = math.Sqrt(norm[a])
	}
	verb := make([]bool, nt)
	for term, id := range ix.termIDs {
		verb[id] = o.noVerbs && verbClasses[term] != 0
	}
	cache := map[uint32][]expTerm{}
	sim := make([]float64, nt)
	var touched []uint32
	return func(id uint32) []expTerm {
		if x, ok := cache[id]; ok {
			return x
		}
		var out []expTerm
		isVerb := func(t uint32) bool { return verb[t] }
		if freq[id] >= float64(o.minCount) && norm[id] > 0 && !isVerb(id) {
			touched = touched[:0]
			for _, x := range vec[id] {
				for _, y := range inv[x.c] {
					if y.c == id || freq[y.c] < float64(o.minCount) {
						continue
					}
					if sim[y.c] == 0 {
						touched = append(touched, y.c)
					}
					sim[y.c] += x.w * y.w
				}
			}
			for _, b := range touched {
				sim[b] /= norm[id] * norm[b]
			}
			slices.SortFunc(touched, func(a, b uint32) int {
				if sim[a] != sim[b] {
					if sim[a] > sim[b] {
						return -1
					}
					return 1
				}
				return int(a) - int(b)
			})
			if o.noVerbs {
				touched = slices.DeleteFunc(touched, func(b uint32) bool {
					if isVerb(b) {
						sim[b] = 0
						return true
					}
					return false
				})
			}
			for _, b := range touched[:min(o.top, len(touched))] {
				if sim[b] >= o.minSim {
					out = append(out, expTerm{b, o.weight})
				}
			}
			for _, b := range touched {
				sim[b] = 0
			}
		}
		cache[id] = out
		return out
	}
}

// alike returns, for tests, the terms most alike to term by distributional
// similarity over docs.
func alike(docs []Doc, term string, o distOpts) []string {
	ix := New(docs)
	id, ok := ix.termIDs[term]
	if !ok {
		return nil
	}
	var names []string
	for _, x := range distributional(ix, docFieldTerms(ix, docs), o)(id) {
		names = append(names, termName(ix, x.id))
	}
	return names
}

func termName(ix *Index, id uint32) string {
	for s, i := range ix.termIDs {
		if i == id {
			return s
		}
	}
	return ""
}

// TestExpIndexMatchesSearch guards the experiments' harness: with nothing
// added, expIndex ranks as Index.Search does, so a difference an
// experiment shows is the experiment's.
func TestExpIndexMatchesSearch(t *testing.T) {
	for _, docs := range [][]Doc{devDocs(false), devDocs(true)} {
		ix := New(docs)
		e := &expIndex{ix: ix}
		for _, r := range devRequests {
			want, got := ix.Search(r.query, 10), e.Search(r.query, 10)
			if len(want) != len(got) {
				t.Fatalf("%q: %d hits, Search gives %d", r.query, len(got), len(want))
			}
			for i := range want {
				if want[i].Name != got[i].Name || math.Abs(want[i].Score-got[i].Score) > 1e-4*want[i].Score {
					t.Fatalf("%q: hit %d is %v, Search gives %v", r.query, i, got[i], want[i])
				}
			}
		}
	}
}

var selfTestDocs = []Doc{
	{Name: "upload_photo", Description: "Upload a photo as the profile image."},
	{Name: "resize_picture", Description: "Resize a photo or image to a width."},
	{Name: "crop_image", Description: "Crop an image to a box."},
	{Name: "list_folder", Description: "List the files of a folder."},
	{Name: "make_directory", Description: "Create a directory for files."},
	{Name: "delete_folder", Description: "Delete a folder and the files in it."},
	{Name: "send_invoice", Description: "Send an invoice to a customer by mail."},
}

func TestAssociationsCooccur(t *testing.T) {
	ix := New(selfTestDocs)
	ft := docFieldTerms(ix, selfTestDocs)
	as := associations(ix, ft, assocOpts{fields: []field{fieldName, fieldSummary}, measure: "ppmi", minCount: 2, top: 3, weight: 0.1, maxDF: 1})
	got := func(term string) []string {
		var out []string
		for _, x := range as[ix.termIDs[term]] {
			out = append(out, termName(ix, x.id))
		}
		return out
	}
	if g := got("photo"); !slices.Contains(g, "imag") {
		t.Errorf("photo is associated with %v; want imag among them (two tools say both)", g)
	}
	if g := got("invoic"); len(g) != 0 {
		t.Errorf("invoice is associated with %v; want none (its words meet in one tool only)", g)
	}
}

func TestNeighbourWeights(t *testing.T) {
	ix := New(selfTestDocs)
	ps := neighbourPostings(ix, neighbourOpts{k: 2, gamma: 1, maxDF: 1, inNames: false})
	score := func(pp [][]posting, term, doc string) float32 {
		d := uint32(slices.Index(ix.names, doc))
		for _, p := range pp[ix.termIDs[term]] {
			if p.doc&^inName == d {
				return p.score
			}
		}
		t.Fatalf("%s not in %s", term, doc)
		return 0
	}
	// delete_folder's neighbours are the two other folder tools: "file" is
	// in both (× 1), "delet" in neither (× 2).
	if r := score(ps, "file", "delete_folder") / score(ix.postings, "file", "delete_folder"); math.Abs(float64(r)-1) > 1e-6 {
		t.Errorf("file in delete_folder × %.3f; want × 1, its neighbours both have it", r)
	}
	if r := score(ps, "delet", "delete_folder") / score(ix.postings, "delet", "delete_folder"); math.Abs(float64(r)-2) > 1e-6 {
		t.Errorf("delet in delete_folder × %.3f; want × 2, no neighbour has it", r)
	}
}

func TestDistributionalAlike(t *testing.T) {
	docs := []Doc{
		{Name: "a", Description: "Copy the folder tree to the backup disk."},
		{Name: "b", Description: "Copy the directory tree to the backup disk."},
		{Name: "c", Description: "Print the folder tree on the screen."},
		{Name: "d", Description: "Print the directory tree on the screen."},
		{Name: "e", Description: "Send an invoice by mail to a customer."},
		{Name: "f", Description: "Print the invoice and mail it."},
	}
	o := distOpts{window: 1, minCount: 2, minSim: 0.5, top: 3, weight: 1, fields: []field{fieldSummary}}
	if got := alike(docs, "folder", o); !slices.Contains(got, "directori") {
		t.Errorf("folder is alike %v; want directori, said in the same places", got)
	}
	if got := alike(docs, "invoic", o); slices.Contains(got, "folder") || slices.Contains(got, "directori") {
		t.Errorf("invoice is alike %v; want neither folder nor directori", got)
	}
}

// docExpansion is experiment (d2): the tool's side. Each tool also holds,
// as if said once at weight w, the terms that the terms of its name and
// first sentence are associated with (assoc) or alike (alike), when it
// does not have them already.
func docExpansion(ix *Index, ft [][numFields][]uint32, related func(id uint32) []expTerm, w float32) [][]posting {
	has := make([]map[uint32]bool, len(ft))
	for t, ps := range ix.postings {
		for _, p := range ps {
			d := p.doc &^ inName
			if has[d] == nil {
				has[d] = map[uint32]bool{}
			}
			has[d][uint32(t)] = true
		}
	}
	out := make([][]posting, len(ix.postings))
	for t, ps := range ix.postings {
		out[t] = slices.Clone(ps)
	}
	for d, f := range ft {
		added := map[uint32]bool{}
		for _, src := range [][]uint32{f[fieldName], f[fieldSummary]} {
			for _, t := range src {
				for _, x := range related(t) {
					if has[d][x.id] || added[x.id] {
						continue
					}
					added[x.id] = true
					out[x.id] = append(out[x.id], posting{doc: uint32(d), score: ix.idf[x.id] * w * (k1 + 1) / (k1 + w)})
				}
			}
		}
	}
	return out
}

// fieldIdfPostings is an experiment in the spirit of (c): a term's rarity
// in one field. The postings are scored again as New scores them, but an
// occurrence in a field of fields counts × (idf among that field's texts / idf)^alpha, so
// that a word rare in tool names and common elsewhere ("sync", said in many
// argument schemas) weighs more in a name. alpha 0 gives New's scores.
func fieldIdfPostings(ix *Index, ft [][numFields][]uint32, fields []field, alpha float64) [][]posting {
	n := len(ft)
	var avg [numFields]float64
	dff := make([][numFields]int, len(ix.postings))
	for _, d := range ft {
		for f := range numFields {
			avg[f] += float64(len(d[f]))
			seen := map[uint32]bool{}
			for _, t := range d[f] {
				if !seen[t] {
					seen[t] = true
					dff[t][f]++
				}
			}
		}
	}
	for f := range avg {
		avg[f] /= float64(max(n, 1))
	}
	ratio := make([][numFields]float32, len(ix.postings))
	for t := range ratio {
		for f := range numFields {
			ratio[t][f] = 1
		}
		for _, f := range fields {
			if dff[t][f] == 0 {
				continue
			}
			idfF := math.Log(1 + (float64(n)-float64(dff[t][f])+0.5)/(float64(dff[t][f])+0.5))
			ratio[t][f] = float32(math.Pow(idfF/float64(ix.idf[t]), alpha))
		}
	}
	out := make([][]posting, len(ix.postings))
	for d, df := range ft {
		var norm [numFields]float32
		for f := range numFields {
			p := fieldParams[f]
			if avg[f] > 0 {
				norm[f] = p.weight / (1 - p.b + p.b*float32(float64(len(df[f]))/avg[f]))
			}
		}
		tf := map[uint32]*[numFields]float32{}
		var order []uint32
		for f := range numFields {
			for _, t := range df[f] {
				x := tf[t]
				if x == nil {
					x = &[numFields]float32{}
					tf[t] = x
					order = append(order, t)
				}
				x[f]++
			}
		}
		for _, t := range order {
			var w float32
			for f := range numFields {
				w += tf[t][f] * norm[f] * ratio[t][f]
			}
			p := posting{doc: uint32(d), score: ix.idf[t] * w * (k1 + 1) / (k1 + w)}
			if tf[t][fieldName] > 0 {
				p.doc |= inName
			}
			out[t] = append(out[t], p)
		}
	}
	return out
}

func TestFieldIdfPostingsAsNew(t *testing.T) {
	// With alpha 0 the postings are New's: the experiment changes only
	// what it says it changes.
	docs := devDocs(true)
	ix := New(docs)
	ps := fieldIdfPostings(ix, docFieldTerms(ix, docs), []field{fieldName}, 0)
	for id := range ix.postings {
		want := map[uint32]float32{}
		for _, p := range ix.postings[id] {
			want[p.doc] = p.score
		}
		if len(ps[id]) != len(want) {
			t.Fatalf("term %d: %d postings, New has %d", id, len(ps[id]), len(want))
		}
		for _, p := range ps[id] {
			if w, ok := want[p.doc]; !ok || math.Abs(float64(w-p.score)) > 1e-4*float64(w) {
				t.Fatalf("term %d, doc %d: score %v, New gives %v", id, p.doc, p.score, w)
			}
		}
	}
}
