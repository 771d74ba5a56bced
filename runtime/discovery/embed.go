package discovery

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Embedder turns texts into vectors: a model that places texts of like
// meaning near each other, which the host runs or reaches (an
// OpenAI-compatible server: OpenAIEmbedder). Embed returns one vector per
// text, in order, all of one dimension.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// ModelNamer is an Embedder that names its model. The name is part of the
// key its vectors are cached under, so that vectors of two models never
// mix in one cache.
type ModelNamer interface {
	EmbeddingModel() string
}

// VectorCache keeps tool vectors by the hash of what was embedded (the
// model's name and the text), so that a tool is embedded once, not at
// every build of an index. Implementations must be safe for concurrent
// use. A vector handed to Put is not changed afterwards, nor is one
// returned by Get.
type VectorCache interface {
	Get(key [32]byte) ([]float32, bool)
	Put(key [32]byte, vec []float32)
}

// HybridOptions configure a Hybrid index. The zero value, with an
// Embedder, is ready to use.
type HybridOptions struct {
	// Embedder gives the vectors. Required.
	Embedder Embedder
	// Cache keeps tool vectors between builds; nil: a MemoryVectorCache
	// of the index's own.
	Cache VectorCache
	// Depth is how many results of each ranking, lexical and semantic,
	// are fused; 0: 50.
	Depth int
	// RRFK is reciprocal rank fusion's constant: a result at rank r
	// (from 1) of a ranking scores 1 / (RRFK + r); 0: 60.
	RRFK float64
}

// Hybrid is an Index with a semantic signal: each tool's text is
// embedded when the index is built, a request when it is searched, and
// the tools nearest the request (by cosine) are fused with the lexical
// results by reciprocal rank. It is immutable and safe for concurrent
// use.
type Hybrid struct {
	lex   *Index
	ids   map[string]uint32 // by name: the tool's number in lex
	emb   Embedder
	vecs  []float32 // len(names) × dim, each of length 1
	dim   int
	depth int
	rrfk  float64
}

// NewHybrid builds the lexical index of docs (New) and embeds the tools
// whose vectors the cache does not have, in one call of the embedder.
// It fails when the embedder does, or gives vectors that are not one per
// text, of one dimension, finite and not zero.
func NewHybrid(ctx context.Context, docs []Doc, opts HybridOptions) (*Hybrid, error) {
	if opts.Embedder == nil {
		return nil, errors.New("discovery: NewHybrid needs an Embedder")
	}
	h := &Hybrid{lex: New(docs), emb: opts.Embedder, depth: opts.Depth, rrfk: opts.RRFK}
	if h.depth <= 0 {
		h.depth = 50
	}
	if h.rrfk <= 0 {
		h.rrfk = 60
	}
	cache := opts.Cache
	if cache == nil {
		cache = NewMemoryVectorCache(0)
	}
	model := ""
	if m, ok := opts.Embedder.(ModelNamer); ok {
		model = m.EmbeddingModel()
	}

	docs = uniqueByName(docs) // in the index's order
	h.ids = make(map[string]uint32, len(docs))
	for i, d := range docs {
		h.ids[d.Name] = uint32(i)
	}
	vecs := make([][]float32, len(docs))
	keys := make([][32]byte, len(docs))
	var missing []int
	var texts []string
	for i, d := range docs {
		text := EmbeddingText(d)
		keys[i] = VectorKey(model, text)
		if v, ok := cache.Get(keys[i]); ok {
			vecs[i] = v
			continue
		}
		missing = append(missing, i)
		texts = append(texts, text)
	}
	if len(texts) > 0 {
		got, err := opts.Embedder.Embed(ctx, texts)
		if err != nil {
			return nil, fmt.Errorf("discovery: embedding %d tools: %w", len(texts), err)
		}
		if len(got) != len(texts) {
			return nil, fmt.Errorf("discovery: embedding %d tools: the embedder gave %d vectors", len(texts), len(got))
		}
		for j, i := range missing {
			v, err := unit(got[j])
			if err != nil {
				return nil, fmt.Errorf("discovery: the vector of tool %q: %w", docs[i].Name, err)
			}
			vecs[i] = v
			cache.Put(keys[i], v)
		}
	}
	for i, v := range vecs {
		if i == 0 {
			h.dim = len(v)
			h.vecs = make([]float32, 0, len(vecs)*h.dim)
		}
		if len(v) != h.dim {
			return nil, fmt.Errorf("discovery: the vector of tool %q has %d dimensions, that of %q %d (a cache shared by two models?)",
				docs[i].Name, len(v), docs[0].Name, h.dim)
		}
		h.vecs = append(h.vecs, v...)
	}
	return h, nil
}

// Lexical returns the lexical index within h.
func (h *Hybrid) Lexical() *Index { return h.lex }

// Len returns the number of tools in the index.
func (h *Hybrid) Len() int { return h.lex.Len() }

// Search returns at most k tools for query, best first, by reciprocal
// rank fusion of the lexical ranking (Index.Search) and the ranking by
// cosine of the query's vector and the tools'. A hit's Score is its fused
// score. When the query cannot be embedded, Search returns the lexical
// results and the error, so that a host may log it and go on.
func (h *Hybrid) Search(ctx context.Context, query string, k int) ([]Hit, error) {
	if k <= 0 || h.lex.Len() == 0 {
		return nil, nil
	}
	depth := min(max(h.depth, k), h.lex.Len())
	lex := h.lex.Search(query, depth)
	qv, err := h.queryVector(ctx, query)
	if err != nil {
		return lex[:min(k, len(lex))], err
	}
	fused := make(map[uint32]float64, 2*depth)
	for r, hit := range lex {
		fused[h.ids[hit.Name]] += 1 / (h.rrfk + float64(r+1))
	}
	for r, id := range h.nearest(qv, depth) {
		fused[id] += 1 / (h.rrfk + float64(r+1))
	}
	hits := make([]Hit, 0, len(fused))
	for id, s := range fused {
		hits = append(hits, Hit{Name: h.lex.names[id], Score: s})
	}
	slices.SortFunc(hits, func(a, b Hit) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	return hits[:min(k, len(hits))], nil
}

func (h *Hybrid) queryVector(ctx context.Context, query string) ([]float32, error) {
	got, err := h.emb.Embed(ctx, []string{clip(query, MaxQueryBytes)})
	if err != nil {
		return nil, fmt.Errorf("discovery: embedding the query: %w", err)
	}
	if len(got) != 1 {
		return nil, fmt.Errorf("discovery: embedding the query: the embedder gave %d vectors", len(got))
	}
	if len(got[0]) != h.dim {
		return nil, fmt.Errorf("discovery: the query's vector has %d dimensions, the tools' %d", len(got[0]), h.dim)
	}
	return unit(got[0])
}

// nearest returns the n tools of highest cosine with the unit vector q,
// best first (equal cosines by name), kept in a heap of n whose root is the
// worst of them.
func (h *Hybrid) nearest(q []float32, n int) []uint32 {
	type scored struct {
		cos  float32
		rank uint32
		id   uint32
	}
	before := func(a, b scored) bool { return a.cos > b.cos || a.cos == b.cos && a.rank < b.rank }
	n = min(n, h.lex.Len())
	heap := make([]scored, 0, n)
	for i := range h.lex.Len() {
		v := h.vecs[i*h.dim : (i+1)*h.dim]
		var dot float32
		for j, x := range q {
			dot += x * v[j]
		}
		s := scored{dot, h.lex.rank[i], uint32(i)}
		if len(heap) < n {
			heap = append(heap, s)
			for c := len(heap) - 1; c > 0 && before(heap[(c-1)/2], heap[c]); c = (c - 1) / 2 {
				heap[c], heap[(c-1)/2] = heap[(c-1)/2], heap[c]
			}
			continue
		}
		if !before(s, heap[0]) {
			continue
		}
		heap[0] = s
		for p := 0; ; {
			c := 2*p + 1
			if c >= len(heap) {
				break
			}
			if c+1 < len(heap) && before(heap[c], heap[c+1]) {
				c++
			}
			if !before(heap[p], heap[c]) {
				break
			}
			heap[p], heap[c] = heap[c], heap[p]
			p = c
		}
	}
	slices.SortFunc(heap, func(a, b scored) int {
		if before(a, b) {
			return -1
		}
		return 1
	})
	out := make([]uint32, len(heap))
	for i, s := range heap {
		out[i] = s.id
	}
	return out
}

// unit returns v scaled to length 1, in a new slice. A vector of no
// dimension, zero length or with a value that is not finite is an error.
func unit(v []float32) ([]float32, error) {
	if len(v) == 0 {
		return nil, errors.New("a vector of no dimension")
	}
	var sum float64
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, errors.New("a vector with a value that is not a finite number")
		}
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return nil, errors.New("a vector of zero length")
	}
	inv := float32(1 / math.Sqrt(sum))
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = x * inv
	}
	return out, nil
}

// EmbeddingText is what a tool is embedded as: its name, its description
// and its arguments' names, one line each.
func EmbeddingText(d Doc) string {
	var b strings.Builder
	b.WriteString(clip(d.Name, maxEnumBytes))
	if d.Description != "" {
		b.WriteByte('\n')
		b.WriteString(clip(d.Description, MaxDescriptionBytes))
	}
	var tx texts
	schemaTexts(d.Args, &tx)
	if names := tx[fieldArgName]; len(names) > 0 {
		b.WriteString("\nArguments: ")
		b.WriteString(strings.Join(names[:min(len(names), 64)], ", "))
	}
	return b.String()
}

// VectorKey is the key a vector of text by model is cached under: the
// SHA-256 of the model's name, a zero byte and the text.
func VectorKey(model, text string) [32]byte {
	h := sha256.New()
	h.Write([]byte(model))
	h.Write([]byte{0})
	h.Write([]byte(text))
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// MemoryVectorCache is a VectorCache in memory.
type MemoryVectorCache struct {
	mu  sync.Mutex
	max int
	m   map[[32]byte][]float32
}

// NewMemoryVectorCache returns a cache of at most maxVectors vectors (0:
// 100,000); when full, it drops an arbitrary vector for each new one.
func NewMemoryVectorCache(maxVectors int) *MemoryVectorCache {
	if maxVectors <= 0 {
		maxVectors = 100_000
	}
	return &MemoryVectorCache{max: maxVectors, m: map[[32]byte][]float32{}}
}

func (c *MemoryVectorCache) Get(key [32]byte) ([]float32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[key]
	return v, ok
}

func (c *MemoryVectorCache) Put(key [32]byte, vec []float32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[key]; !ok && len(c.m) >= c.max {
		for k := range c.m {
			delete(c.m, k)
			break
		}
	}
	c.m[key] = vec
}

// Len returns the number of vectors held.
func (c *MemoryVectorCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// DirVectorCache is a VectorCache in a directory: one file per vector,
// named by its key in hex, holding its dimension and values as
// little-endian 32-bit numbers. Files are written whole (to a temporary
// name, then renamed), so a crash leaves no half vector; a file that
// cannot be read as a vector is a miss. Errors writing are ignored: the
// vector is embedded again next time.
type DirVectorCache struct {
	Dir string
}

// maxCachedDim bounds the dimension of a vector read from a DirVectorCache.
const maxCachedDim = 1 << 16

func (c DirVectorCache) path(key [32]byte) string {
	return filepath.Join(c.Dir, fmt.Sprintf("%x.vec", key))
}

func (c DirVectorCache) Get(key [32]byte) ([]float32, bool) {
	b, err := os.ReadFile(c.path(key))
	if err != nil || len(b) < 4 {
		return nil, false
	}
	n := binary.LittleEndian.Uint32(b)
	if n == 0 || n > maxCachedDim || len(b) != 4+4*int(n) {
		return nil, false
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4+4*i:]))
	}
	return v, true
}

func (c DirVectorCache) Put(key [32]byte, vec []float32) {
	if len(vec) == 0 || len(vec) > maxCachedDim {
		return
	}
	b := make([]byte, 4+4*len(vec))
	binary.LittleEndian.PutUint32(b, uint32(len(vec)))
	for i, x := range vec {
		binary.LittleEndian.PutUint32(b[4+4*i:], math.Float32bits(x))
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return
	}
	f, err := os.CreateTemp(c.Dir, ".vec-*")
	if err != nil {
		return
	}
	_, werr := f.Write(b)
	cerr := f.Close()
	if werr != nil || cerr != nil || os.Rename(f.Name(), c.path(key)) != nil {
		os.Remove(f.Name())
	}
}
