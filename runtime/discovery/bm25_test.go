package discovery

import (
	"math"
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"
)

// plainBM25 is the peer that the index is measured against: Okapi BM25
// (k1 1.2, b 0.75) over one field holding a tool's name, description and
// argument names and descriptions, cut into lower-case words at anything
// but a letter or a digit and at camelCase humps, stop words (the index's
// list) dropped. No stemming, synonyms, fields or factors. It is built as the index is (scores
// computed when it is built, a search adds its terms' postings and keeps
// the k best in a heap), so that the two cost what their ranking costs.
type plainBM25 struct {
	names    []string
	termIDs  map[string]uint32
	postings [][]posting
	pool     sync.Pool // *plainScratch
}

type plainScratch struct {
	acc     []float32
	touched []uint32
	ids     []uint32
	heap    []uint32
	buf     []byte
}

func newPlainBM25(docs []Doc) *plainBM25 {
	docs = uniqueByName(docs)
	const k1, b = 1.2, 0.75
	ix := &plainBM25{names: make([]string, len(docs)), termIDs: map[string]uint32{}}
	type tf struct{ term, n uint32 }
	var perDoc [][]tf
	var lens []float64
	var sum float64
	var buf []byte
	for d, doc := range docs {
		ix.names[d] = doc.Name
		var tx texts
		schemaTexts(doc.Args, &tx)
		parts := append([]string{doc.Name, clip(doc.Description, MaxDescriptionBytes)}, tx[fieldArgName]...)
		parts = append(parts, tx[fieldArgText]...)
		counts := map[uint32]uint32{}
		n := 0
		for _, p := range parts {
			buf = plainWords(p, buf, func(w []byte) {
				id, ok := ix.termIDs[string(w)]
				if !ok {
					id = uint32(len(ix.termIDs))
					ix.termIDs[string(w)] = id
				}
				counts[id]++
				n++
			})
		}
		var list []tf
		for id, c := range counts {
			list = append(list, tf{id, c})
		}
		slices.SortFunc(list, func(a, b tf) int { return int(a.term) - int(b.term) })
		perDoc = append(perDoc, list)
		lens = append(lens, float64(n))
		sum += float64(n)
	}
	avg := sum / max(float64(len(docs)), 1)
	df := make([]int, len(ix.termIDs))
	for _, list := range perDoc {
		for _, t := range list {
			df[t.term]++
		}
	}
	ix.postings = make([][]posting, len(df))
	nd := float64(len(docs))
	for d, list := range perDoc {
		norm := 1 - b + b*lens[d]/max(avg, 1e-9)
		for _, t := range list {
			idf := math.Log(1 + (nd-float64(df[t.term])+0.5)/(float64(df[t.term])+0.5))
			f := float64(t.n)
			ix.postings[t.term] = append(ix.postings[t.term], posting{doc: uint32(d), score: float32(idf * f * (k1 + 1) / (f + k1*norm))})
		}
	}
	ix.pool.New = func() any { return &plainScratch{acc: make([]float32, len(docs))} }
	return ix
}

// plainWords calls emit with each lower-case word of s but stop words: runs
// of letters and digits, split where a lower-case letter meets an
// upper-case one.
func plainWords(s string, buf []byte, emit func([]byte)) []byte {
	buf = buf[:0]
	prevLower := false
	flush := func() {
		if len(buf) > 0 && len(buf) <= maxTokenBytes && !stopWords[string(buf)] {
			emit(buf)
		}
		buf = buf[:0]
	}
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.IsUpper(r) && prevLower {
				flush()
			}
			prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
		default:
			flush()
			prevLower = false
		}
	}
	flush()
	return buf
}

func (ix *plainBM25) Search(query string, k int) []Hit {
	if k <= 0 || len(ix.names) == 0 {
		return nil
	}
	sc := ix.pool.Get().(*plainScratch)
	defer ix.pool.Put(sc)
	sc.ids = sc.ids[:0]
	sc.buf = plainWords(clip(query, MaxQueryBytes), sc.buf, func(w []byte) {
		if id, ok := ix.termIDs[string(w)]; ok && !slices.Contains(sc.ids, id) && len(sc.ids) < MaxQueryTerms {
			sc.ids = append(sc.ids, id)
		}
	})
	for _, id := range sc.ids {
		for _, p := range ix.postings[id] {
			if sc.acc[p.doc] == 0 {
				sc.touched = append(sc.touched, p.doc)
			}
			sc.acc[p.doc] += p.score
		}
	}
	better := func(a, b uint32) bool {
		if sc.acc[a] != sc.acc[b] {
			return sc.acc[a] > sc.acc[b]
		}
		return ix.names[a] < ix.names[b]
	}
	h := sc.heap[:0]
	for _, d := range sc.touched {
		if len(h) < k {
			h = append(h, d)
			for i := len(h) - 1; i > 0; {
				p := (i - 1) / 2
				if !better(h[p], h[i]) {
					break
				}
				h[i], h[p] = h[p], h[i]
				i = p
			}
			continue
		}
		if better(d, h[0]) {
			h[0] = d
			for i := 0; ; {
				l := 2*i + 1
				if l >= len(h) {
					break
				}
				c := l
				if r := l + 1; r < len(h) && better(h[l], h[r]) {
					c = r
				}
				if !better(h[i], h[c]) {
					break
				}
				h[i], h[c] = h[c], h[i]
				i = c
			}
		}
	}
	slices.SortFunc(h, func(a, b uint32) int {
		if better(a, b) {
			return -1
		}
		return 1
	})
	hits := make([]Hit, len(h))
	for i, d := range h {
		hits[i] = Hit{Name: ix.names[d], Score: float64(sc.acc[d])}
	}
	for _, d := range sc.touched {
		sc.acc[d] = 0
	}
	sc.touched = sc.touched[:0]
	sc.heap = h
	return hits
}
