package discovery

import (
	"math"
	"slices"
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
	expandCoord bool

	// (b) latent vectors: by document and by term, rank r each; the top
	// rerankN are rescored × (1 + lambda × cosine).
	docVec, termVec [][]float32
	rerankN         int
	lambda          float32
	rrf             bool // fuse ranks instead: 1/(60+rank) of each

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
		if ok && e.expand != nil {
			for _, x := range e.expand[id] {
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
				r[d] += 1 / (60 + float32(i))
			}
			for i, d := range byCos {
				r[d] += e.lambda / (60 + float32(i))
			}
			floor := float32(0)
			if len(docs) > len(top) {
				floor = acc[docs[len(top)]].final
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
