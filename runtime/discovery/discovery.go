// Package discovery finds the tools that fit a request in words, for
// agents with more tools than fit in a prompt: an in-memory lexical index
// (BM25F) over each tool's name, description, argument schema and example
// requests.
//
//	idx := discovery.New([]discovery.Doc{
//		{Name: "search_issues", Description: "Search issues by text.", Args: schemaJSON},
//		...
//	})
//	hits := idx.Search("find open bugs about login", 5) // best first
//
// Names split into words at _ - . / and camelCase; text is lower-cased
// and stop words are dropped. Each part of a tool (name words, first
// sentence, rest of the description, argument names, argument
// descriptions, enum values, example requests, category) is a field with
// its own weight and length normalisation. Query words also search their
// synonyms ("remove" finds delete_file) at a lower weight than the words
// themselves, and a question ("which channels ...") also searches the
// reading verbs (get, list, ...). Phrasal verbs are read as what they
// mean ("set up" as create). A tool's score then grows with the share of
// the request's words it matches, each weighing its rarity, and the share
// of its name's words the request says.
//
// NewHybrid adds a semantic signal that the host supplies: an Embedder
// (OpenAIEmbedder speaks the OpenAI-compatible embeddings API), whose
// ranking is fused with the lexical one.
//
// The package depends on the standard library only and on nothing else of
// toolcat, so it can index any tool set. An Index is immutable and safe for
// concurrent use.
package discovery

import (
	"math"
	"slices"
	"strings"
	"sync"
)

// Limits on what is indexed and searched. Longer input is cut, never
// refused.
const (
	// MaxQueryBytes is how much of a query Search reads.
	MaxQueryBytes = 1024
	// MaxQueryTerms is how many distinct terms of a query count, synonyms
	// not included.
	MaxQueryTerms = 32
	// MaxDescriptionBytes is how much of a description (the tool's, an
	// argument's, an example request, the category) is indexed.
	MaxDescriptionBytes = 8 << 10
	// MaxSchemaBytes is the largest argument schema read; a larger one is
	// not indexed (the rest of the tool is).
	MaxSchemaBytes = 256 << 10
	// MaxQueries is how many example requests of a tool are indexed.
	MaxQueries = 64
	// MaxFieldTerms is how many terms one field of one tool holds.
	MaxFieldTerms = 2048
	// SynonymWeight is the weight of a synonym of a query word, against 1
	// for the word itself.
	SynonymWeight = 0.35

	maxSchemaDepth = 16   // nesting of schemas within the argument schema
	maxSchemaNodes = 4096 // schemas read within the argument schema
	maxEnumBytes   = 256  // an argument name or enum value
)

// Ranking parameters. They are variables only so that the tuning
// benchmarks (tune_test.go) can vary them; nothing else changes them.
var (
	// k1 is BM25's saturation: how fast repeated occurrences stop adding
	// to a score.
	k1 float32 = 1.44

	// nameBoost is how much a tool's score grows when the query covers
	// all of its name's terms: ×(1 + nameBoost × share covered).
	nameBoost float32 = 1.5

	// synonymWeight is SynonymWeight.
	synonymWeight float32 = SynonymWeight
)

// Doc is what the index knows of one tool.
type Doc struct {
	// Name is the tool's name, such as "search_issues" or "getUser".
	// Tools without a name are not indexed; of tools with the same name,
	// the last one is.
	Name string
	// Description is the tool's description. Its first sentence (or
	// line) counts more than the rest.
	Description string
	// Args is the JSON Schema of the tool's arguments. Property names at
	// any depth, their descriptions and titles, and string enum and const
	// values are indexed. A schema that is not valid JSON, larger than
	// MaxSchemaBytes or nested deeper than the index reads is not indexed
	// (or only as far as it was read); the rest of the tool still is.
	Args []byte
	// Queries are example requests that this tool answers, as users
	// phrase them ("undo my last commit"). Optional; they weigh as much
	// as the description's first sentence.
	Queries []string
	// Category is an optional group name, such as "calendar".
	Category string
}

// Hit is one result of a search.
type Hit struct {
	Name  string
	Score float64
}

// Index is a search index over a set of tools. It is immutable once built
// and safe for concurrent use.
type Index struct {
	names    []string
	rank     []uint32             // by document: its name's place in the names sorted, for ties
	lookup   map[string]termEntry // what a query term searches
	question []uint32             // the IDs of questionTerms in the index
	postings [][]posting          // by term ID, ordered by document
	head     [][]posting          // the same from the name and the first sentence alone: what synonyms search
	invName  []float32            // by document: 1 / distinct terms in its name (or 1)
	idf      []float32            // by term ID
	pool     sync.Pool            // *scratch
}

// termEntry is what a query term searches: its own postings, when the
// index has the term, and its synonyms' postings.
type termEntry struct {
	id   int32    // -1: the term is not in the index
	syns []uint32 // the IDs of its synonyms in the index
}

// posting is the score contribution of one term to one document, computed
// at build time: idf × BM25F saturation of the weighted term frequency.
type posting struct {
	doc   uint32 // the document's number, with inName set when the term is in its name
	score float32
}

const inName = 1 << 31

// New builds an index over docs. It never fails: text is cut to the
// limits above and argument schemas that cannot be read are skipped.
func New(docs []Doc) *Index {
	docs = uniqueByName(docs)
	b := builder{
		termIDs: map[string]uint32{},
		memo:    map[string][]uint32{},
	}
	ix := &Index{names: make([]string, len(docs))}

	// First pass: term frequencies per field and field lengths.
	type docTerms struct {
		start, end int // of its terms in slab
		lens       [numFields]float32
	}
	all := make([]docTerms, len(docs))
	slab := make([]termFreq, 0, 64*len(docs))
	var sumLens [numFields]float64
	local := []int32{} // by term ID: its index in slab for the current document, or -1
	for d, doc := range docs {
		ix.names[d] = doc.Name
		var tx texts
		tx[fieldName] = []string{clip(doc.Name, maxEnumBytes)}
		splitDescription(doc.Description, &tx)
		schemaTexts(doc.Args, &tx)
		for i, q := range doc.Queries {
			if i >= MaxQueries {
				break
			}
			tx[fieldQueries] = append(tx[fieldQueries], clip(q, MaxDescriptionBytes))
		}
		if doc.Category != "" {
			tx[fieldCategory] = []string{clip(doc.Category, MaxDescriptionBytes)}
		}
		dt := docTerms{start: len(slab)}
		for f := range numFields {
			n := 0
			for _, s := range tx[f] {
				b.each(s, func(id uint32) {
					if n >= MaxFieldTerms {
						return
					}
					n++
					for int(id) >= len(local) {
						local = append(local, -1)
					}
					i := local[id]
					if i < 0 {
						i = int32(len(slab))
						local[id] = i
						slab = append(slab, termFreq{term: id})
					}
					if slab[i].tf[f] < math.MaxUint8 {
						slab[i].tf[f]++
					}
				})
			}
			dt.lens[f] = float32(n)
			sumLens[f] += float64(n)
		}
		dt.end = len(slab)
		for _, t := range slab[dt.start:dt.end] {
			local[t.term] = -1
		}
		all[d] = dt
	}

	// Second pass: weighted, length-normalised frequencies, then BM25.
	var avg [numFields]float32
	for f := range numFields {
		if len(docs) > 0 {
			avg[f] = float32(sumLens[f] / float64(len(docs)))
		}
	}
	df := make([]int, len(b.terms))
	dfHead := make([]int, len(b.terms))
	for _, t := range slab {
		df[t.term]++
		if t.tf[fieldName]+t.tf[fieldSummary] > 0 {
			dfHead[t.term]++
		}
	}
	// One array holds all postings, each term's a slice of it.
	ix.postings = make([][]posting, len(b.terms))
	all1 := make([]posting, len(slab))
	off := 0
	for id := range ix.postings {
		ix.postings[id] = all1[off : off : off+df[id]]
		off += df[id]
	}
	ix.head = make([][]posting, len(b.terms))
	nHead := 0
	for _, n := range dfHead {
		nHead += n
	}
	allHead := make([]posting, nHead)
	off = 0
	for id := range ix.head {
		ix.head[id] = allHead[off : off : off+dfHead[id]]
		off += dfHead[id]
	}
	n := float64(len(docs))
	idfs := make([]float32, len(df))
	for id, f := range df {
		idfs[id] = float32(math.Log(1 + (n-float64(f)+0.5)/(float64(f)+0.5)))
	}
	ix.invName = make([]float32, len(docs))
	for d, dt := range all {
		var norm [numFields]float32
		for f := range numFields {
			p := fieldParams[f]
			if !on(featFieldWeights) {
				p.weight, p.b = 1, 0.75
			}
			if avg[f] > 0 {
				norm[f] = p.weight / (1 - p.b + p.b*dt.lens[f]/avg[f])
			}
		}
		for _, t := range slab[dt.start:dt.end] {
			var tf float32
			for f := range numFields {
				tf += float32(t.tf[f]) * norm[f]
			}
			idf := idfs[t.term]
			p := posting{doc: uint32(d), score: idf * tf * (k1 + 1) / (k1 + tf)}
			if t.tf[fieldName] > 0 {
				p.doc |= inName
				ix.invName[d]++
			}
			ix.postings[t.term] = append(ix.postings[t.term], p)
			if t.tf[fieldName]+t.tf[fieldSummary] > 0 {
				tf := float32(t.tf[fieldName])*norm[fieldName] + float32(t.tf[fieldSummary])*norm[fieldSummary]
				ix.head[t.term] = append(ix.head[t.term], posting{doc: p.doc, score: idf * tf * (k1 + 1) / (k1 + tf)})
			}
		}
		ix.invName[d] = 1 / max(ix.invName[d], 1)
	}
	ix.lookup = make(map[string]termEntry, len(b.terms))
	for id, term := range b.terms {
		ix.lookup[term] = termEntry{id: int32(id)}
	}
	if on(featSynonyms) {
		for term, syns := range synonyms {
			e, ok := ix.lookup[term]
			if !ok {
				e.id = -1
			}
			for _, s := range syns {
				if id, ok := b.termIDs[s]; ok {
					e.syns = append(e.syns, id)
				}
			}
			if ok || len(e.syns) > 0 {
				ix.lookup[term] = e
			}
		}
	}
	for _, v := range questionTerms {
		if id, ok := b.termIDs[v]; ok {
			ix.question = append(ix.question, id)
		}
	}
	order := make([]uint32, len(docs))
	for d := range order {
		order[d] = uint32(d)
	}
	slices.SortFunc(order, func(a, b uint32) int { return strings.Compare(ix.names[a], ix.names[b]) })
	ix.rank = make([]uint32, len(docs))
	for r, d := range order {
		ix.rank[d] = uint32(r)
	}
	ix.idf = idfs
	ix.pool.New = func() any {
		return &scratch{
			acc: make([]docAcc, len(ix.names)),
		}
	}
	return ix
}

type termFreq struct {
	term uint32
	tf   [numFields]uint8 // saturates at 255, well past where BM25 does
}

type builder struct {
	tok     tokenizer
	termIDs map[string]uint32
	terms   []string
	memo    map[string][]uint32 // the terms of each word met
	ids     []uint32
}

// each calls add with the ID of each term of s. Building an index meets
// the same words again and again: the terms of each are kept.
func (b *builder) each(s string, add func(id uint32)) {
	b.tok.scan(s, func(w string) {
		ids, ok := b.memo[w]
		if !ok {
			b.ids = b.ids[:0]
			b.tok.word1(w, func(term []byte) { b.ids = append(b.ids, b.termID(term)) })
			ids = slices.Clone(b.ids)
			if ids == nil {
				ids = []uint32{}
			}
			b.memo[w] = ids
		}
		for _, id := range ids {
			add(id)
		}
	}, func(term []byte) { add(b.termID(term)) })
}

func (b *builder) termID(term []byte) uint32 {
	if id, ok := b.termIDs[string(term)]; ok {
		return id
	}
	s := string(term)
	id := uint32(len(b.terms))
	b.termIDs[s] = id
	b.terms = append(b.terms, s)
	return id
}

// uniqueByName drops docs without a name and all but the last of docs with
// the same name, keeping the order of the rest.
func uniqueByName(docs []Doc) []Doc {
	last := make(map[string]int, len(docs))
	for i, d := range docs {
		if d.Name != "" {
			last[d.Name] = i
		}
	}
	if len(last) == len(docs) {
		return docs
	}
	out := make([]Doc, 0, len(last))
	for i, d := range docs {
		if d.Name != "" && last[d.Name] == i {
			out = append(out, d)
		}
	}
	return out
}

// Len returns the number of tools in the index.
func (ix *Index) Len() int { return len(ix.names) }

// scratch is the per-search state, reused through the index's pool.
type scratch struct {
	tok     tokenizer
	acc     []docAcc // by document
	touched []uint32
	terms   []queryTerm
	heap    []ranked
	wordW   [MaxQueryTerms]float32 // by query word: the idf of its rarest term in the index
}

// docAcc is what a search gathers for one document.
type docAcc struct {
	score    float32
	nameHits float32 // weight of the query terms in its name
	words    uint32  // bit i set when it matches word i
	matched  float32 // the weights of the words it matches
}

type queryTerm struct {
	id     uint32
	weight float32
	word   uint8 // which word of the query it stands for
	head   bool  // searched in the name and first sentence only
}

// Search returns at most k tools for query, best first: those that share
// at least one term (or synonym) with it. Equal scores are ordered by name.
// The first MaxQueryBytes of the query and its first MaxQueryTerms terms
// are read. k ≤ 0 returns nil.
func (ix *Index) Search(query string, k int) []Hit {
	if k <= 0 || len(ix.names) == 0 {
		return nil
	}
	sc := ix.pool.Get().(*scratch)
	defer ix.pool.Put(sc)

	sc.terms = sc.terms[:0]
	sc.wordW = [MaxQueryTerms]float32{}
	words := 0
	query = clip(rewriteQuery(clip(query, MaxQueryBytes)), MaxQueryBytes)
	sc.tok.tokens(query, func(term []byte) {
		if words >= MaxQueryTerms {
			return
		}
		word := uint8(words)
		if e, ok := ix.lookup[string(term)]; ok {
			if e.id >= 0 {
				ix.addTerm(sc, uint32(e.id), 1, word, false)
			}
			for _, id := range e.syns {
				ix.addTerm(sc, id, synonymWeight, word, true)
			}
		}
		words++
	})
	// A question ("what is on my agenda", "which channels") asks to read:
	// it counts as a word whose terms are the reading verbs, at the weight
	// of synonyms.
	if words > 0 && words < MaxQueryTerms && on(featQuestion) && isQuestion(query) {
		word := uint8(words)
		for _, id := range ix.question {
			ix.addTerm(sc, id, synonymWeight, word, true)
		}
		words++
	}

	var total float32
	for _, w := range sc.wordW[:words] {
		total += w
	}
	invTotal := 1 / max(total, 1e-6)

	// The query's own terms first, then its synonyms and a question's
	// reading verbs (head lists): those re-rank the tools that the
	// request's own words find, and find tools of their own only when its
	// words find none. (Letting them find tools always ranked no request
	// of the deciding sets better, and touched twice the tools.)
	for _, qt := range sc.terms {
		if !qt.head {
			ix.accumulate(sc, qt, ix.postings[qt.id], false)
		}
	}
	known := len(sc.touched) > 0
	for _, qt := range sc.terms {
		if qt.head {
			ix.accumulate(sc, qt, ix.head[qt.id], known)
		}
	}
	hits := ix.topK(sc, k, invTotal)
	for _, d := range sc.touched {
		sc.acc[d] = docAcc{}
	}
	sc.touched = sc.touched[:0]
	return hits
}

// addTerm adds a query term, keeping the larger weight of a term met twice
// (a word and a synonym of another word, or a word repeated).
func (ix *Index) addTerm(sc *scratch, id uint32, w float32, word uint8, head bool) {
	sc.wordW[word] = max(sc.wordW[word], ix.idf[id])
	for i := range sc.terms {
		if sc.terms[i].id == id {
			if w > sc.terms[i].weight {
				sc.terms[i] = queryTerm{id, w, word, head}
			}
			return
		}
	}
	sc.terms = append(sc.terms, queryTerm{id, w, word, head})
}

// accumulate adds the postings of a query term to the documents' sums;
// with known, only to documents that have a sum already.
func (ix *Index) accumulate(sc *scratch, qt queryTerm, list []posting, known bool) {
	bit := uint32(1) << qt.word
	ww := sc.wordW[qt.word]
	for _, p := range list {
		d := p.doc &^ inName
		a := &sc.acc[d]
		if a.score == 0 {
			if known {
				continue
			}
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

// final is the score of a document from what a search gathered for it.
func (ix *Index) final(a *docAcc, d uint32, invTotal float32, coord, names bool) float32 {
	// Coordination: a tool that matches more of the query's words ranks
	// above one that matches a few of them strongly.
	c := float32(1)
	if coord {
		c = a.matched * invTotal
	}
	// Name coverage: a tool whose name's words the request all says
	// (list_branches for "list the branches") ranks up.
	nc := float32(0)
	if names {
		nc = min(1, a.nameHits*ix.invName[d])
	}
	return a.score * (c * (1 + nameBoost*nc))
}

// ranked is a document in the top k: its final score and its name's rank.
type ranked struct {
	score float32
	rank  uint32
	doc   uint32
}

// before reports whether a ranks before b: a higher score, or the same
// and a name that sorts first.
func (a ranked) before(b ranked) bool {
	return a.score > b.score || a.score == b.score && a.rank < b.rank
}

// topK gives each touched document its final score and selects the k
// best with a heap whose root is the worst of those kept. invTotal is 1 /
// the sum of the query words' weights.
func (ix *Index) topK(sc *scratch, k int, invTotal float32) []Hit {
	h := sc.heap[:0]
	coord, names := on(featCoord), on(featNameCoverage)
	for _, d := range sc.touched {
		r := ranked{ix.final(&sc.acc[d], d, invTotal, coord, names), ix.rank[d], d}
		if !(r.score > 0) {
			continue
		}
		if len(h) < k {
			h = append(h, r)
			for i := len(h) - 1; i > 0; {
				p := (i - 1) / 2
				if !h[p].before(h[i]) {
					break
				}
				h[i], h[p] = h[p], h[i]
				i = p
			}
			continue
		}
		if !r.before(h[0]) {
			continue
		}
		h[0] = r
		for i := 0; ; {
			l := 2*i + 1
			if l >= len(h) {
				break
			}
			c := l
			if r := l + 1; r < len(h) && h[l].before(h[r]) {
				c = r
			}
			if !h[i].before(h[c]) {
				break
			}
			h[i], h[c] = h[c], h[i]
			i = c
		}
	}
	slices.SortFunc(h, func(a, b ranked) int {
		if a.before(b) {
			return -1
		}
		return 1
	})
	hits := make([]Hit, len(h))
	for i, r := range h {
		hits[i] = Hit{Name: ix.names[r.doc], Score: float64(r.score)}
	}
	sc.heap = h
	return hits
}

// Terms returns the terms that text is indexed or searched as, in order:
// what a tool's name or a request becomes after splitting and dropping
// stop words. Useful to see why a tool is or is not found.
func Terms(text string) []string {
	var t tokenizer
	var out []string
	t.tokens(clip(text, MaxQueryBytes), func(term []byte) { out = append(out, string(term)) })
	return out
}
