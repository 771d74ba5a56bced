package discovery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// conceptEmbedder is a deterministic Embedder: a text's vector counts its
// terms, each hashed into one of 64 dimensions, after mapping the words of
// a concept onto one (altitude, elevation and height are one), which is
// what a model does and a lexical index cannot. It counts what it embeds.
type conceptEmbedder struct {
	mu    sync.Mutex
	calls int
	texts []string
	fail  error
}

var concepts = map[string]string{}

func init() {
	for _, g := range [][]string{
		{"elevation", "altitude", "height", "high", "tall"},
		{"weather", "rain", "forecast", "sunny"},
		{"fork", "copy"},
	} {
		for _, w := range g {
			for _, t := range Terms(w) {
				concepts[t] = g[0]
			}
		}
	}
}

func (e *conceptEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fail != nil {
		return nil, e.fail
	}
	e.calls++
	e.texts = append(e.texts, texts...)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 64)
		v[63] = 0.01 // never of zero length
		for _, term := range Terms(t) {
			if c, ok := concepts[term]; ok {
				term = c
			}
			h := fnv.New32a()
			h.Write([]byte(term))
			v[h.Sum32()%63]++
		}
		out[i] = v
	}
	return out, nil
}

func (e *conceptEmbedder) EmbeddingModel() string { return "concepts-v1" }

var hybridDocs = []Doc{
	{Name: "maps_elevation", Description: "Elevation of points on the earth."},
	{Name: "get_weather", Description: "Current conditions for a city."},
	{Name: "fork_repository", Description: "Fork a repository to your account."},
	{Name: "list_commits", Description: "List the commits of a repository."},
	{Name: "create_issue", Description: "Open an issue in a repository."},
}

func TestHybridFindsWhatWordsMiss(t *testing.T) {
	ctx := context.Background()
	h, err := NewHybrid(ctx, hybridDocs, HybridOptions{Embedder: &conceptEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	// No word of the request is in maps_elevation's text: the lexical
	// index alone does not find it, the fused ranking does.
	q := "altitude of mount everest"
	if hits := h.Lexical().Search(q, 5); slices.Contains(names(hits), "maps_elevation") {
		t.Fatalf("the lexical index finds maps_elevation for %q already (%v): the test shows nothing", q, hits)
	}
	hits, err := h.Search(ctx, q, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Name != "maps_elevation" {
		t.Errorf("%q: %v, want maps_elevation first", q, hits)
	}
	// Where both agree, the tool is first, with the highest fused score
	// a tool can have: first in both rankings.
	hits, err = h.Search(ctx, "list the commits of the repository", 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 / (60.0 + 1); len(hits) == 0 || hits[0].Name != "list_commits" || hits[0].Score != want {
		t.Errorf("list commits: %v, want list_commits first at %.5f", hits, want)
	}
	for i := 1; i < len(hits); i++ {
		if hits[i-1].Score < hits[i].Score {
			t.Errorf("hits out of order: %v", hits)
		}
	}
	if hits, err := h.Search(ctx, "anything", 0); hits != nil || err != nil {
		t.Errorf("k=0: %v, %v", hits, err)
	}
	// A k far above the number of tools allocates for the tools only.
	if hits, err := h.Search(ctx, "list the commits", 1<<40); err != nil || len(hits) != len(hybridDocs) {
		t.Errorf("k=2^40: %d hits, %v", len(hits), err)
	}
}

func TestHybridQueryErrorGivesLexical(t *testing.T) {
	ctx := context.Background()
	e := &conceptEmbedder{}
	h, err := NewHybrid(ctx, hybridDocs, HybridOptions{Embedder: e})
	if err != nil {
		t.Fatal(err)
	}
	e.fail = errors.New("model unavailable")
	hits, err := h.Search(ctx, "list the commits", 2)
	if err == nil || !strings.Contains(err.Error(), "model unavailable") {
		t.Errorf("err = %v, want the embedder's", err)
	}
	if want := h.Lexical().Search("list the commits", 2); !slices.Equal(hits, want) {
		t.Errorf("hits %v, want the lexical ones %v", hits, want)
	}
	if _, err := NewHybrid(ctx, hybridDocs, HybridOptions{Embedder: e}); err == nil || !strings.Contains(err.Error(), "model unavailable") {
		t.Errorf("NewHybrid with a failing embedder: %v", err)
	}
	if _, err := NewHybrid(ctx, hybridDocs, HybridOptions{}); err == nil {
		t.Error("NewHybrid without an embedder: no error")
	}
}

// badEmbedder gives what its function says.
type badEmbedder func(texts []string) [][]float32

func (f badEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	return f(texts), nil
}

func TestHybridBadVectors(t *testing.T) {
	for _, c := range []struct {
		desc, want string
		f          func([]string) [][]float32
	}{
		{"too few", "gave 1 vectors", func([]string) [][]float32 { return [][]float32{{1}} }},
		{"empty", "no dimension", func(ts []string) [][]float32 { return make([][]float32, len(ts)) }},
		{"zero", "zero length", func(ts []string) [][]float32 {
			out := make([][]float32, len(ts))
			for i := range out {
				out[i] = []float32{0, 0}
			}
			return out
		}},
		{"two dimensions", "dimensions", func(ts []string) [][]float32 {
			out := make([][]float32, len(ts))
			for i := range out {
				out[i] = make([]float32, 2+i%2)
				out[i][0] = 1
			}
			return out
		}},
	} {
		_, err := NewHybrid(context.Background(), hybridDocs, HybridOptions{Embedder: badEmbedder(c.f)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.desc, err, c.want)
		}
	}
}

func TestHybridCache(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		desc  string
		cache func(t *testing.T) VectorCache
	}{
		{"memory", func(*testing.T) VectorCache { return NewMemoryVectorCache(0) }},
		{"directory", func(t *testing.T) VectorCache { return DirVectorCache{Dir: filepath.Join(t.TempDir(), "vectors")} }},
	} {
		t.Run(c.desc, func(t *testing.T) {
			cache := c.cache(t)
			e := &conceptEmbedder{}
			if _, err := NewHybrid(ctx, hybridDocs, HybridOptions{Embedder: e, Cache: cache}); err != nil {
				t.Fatal(err)
			}
			if e.calls != 1 || len(e.texts) != len(hybridDocs) {
				t.Fatalf("first build: %d calls, %d texts", e.calls, len(e.texts))
			}
			// Built again with one tool changed: only that one is
			// embedded.
			docs := slices.Clone(hybridDocs)
			docs[1].Description = "Current conditions and the forecast for a city."
			e.calls, e.texts = 0, nil
			h, err := NewHybrid(ctx, docs, HybridOptions{Embedder: e, Cache: cache})
			if err != nil {
				t.Fatal(err)
			}
			if e.calls != 1 || len(e.texts) != 1 || !strings.HasPrefix(e.texts[0], "get_weather\n") {
				t.Errorf("second build: %d calls, texts %q; want one, get_weather's", e.calls, e.texts)
			}
			// The same texts under another model's name are not the same
			// vectors.
			if VectorKey("a", "x") == VectorKey("b", "x") || VectorKey("a", "x") == VectorKey("a", "y") {
				t.Error("VectorKey ignores the model or the text")
			}
			hits, err := h.Search(ctx, "will it rain tomorrow", 1)
			if err != nil || len(hits) != 1 || hits[0].Name != "get_weather" {
				t.Errorf("after a cached build: %v, %v", hits, err)
			}
		})
	}
}

func TestDirVectorCacheBadFiles(t *testing.T) {
	c := DirVectorCache{Dir: t.TempDir()}
	k := VectorKey("m", "t")
	c.Put(k, []float32{1, 2, 3})
	if v, ok := c.Get(k); !ok || !slices.Equal(v, []float32{1, 2, 3}) {
		t.Fatalf("Get = %v, %v", v, ok)
	}
	for _, b := range [][]byte{nil, {1}, {2, 0, 0, 0, 0, 0, 128, 63}, {0xff, 0xff, 0xff, 0xff}} {
		if err := os.WriteFile(c.path(k), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if v, ok := c.Get(k); ok {
			t.Errorf("file %v read as %v", b, v)
		}
	}
	m := NewMemoryVectorCache(2)
	for i := range 5 {
		m.Put(VectorKey("m", fmt.Sprint(i)), []float32{1})
	}
	if m.Len() != 2 {
		t.Errorf("a cache of 2 holds %d", m.Len())
	}
}

// embeddingsServer speaks the OpenAI embeddings API over
// conceptEmbedder, answering a batch's embeddings in reverse order (with
// their index) to check that they are put back in order.
func embeddingsServer(t *testing.T, requests *[]openAIRequest, mu *sync.Mutex) *httptest.Server {
	e := &conceptEmbedder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
			http.Error(w, `{"error":{"message":"no such route"}}`, http.StatusNotFound)
			return
		}
		if r.Header.Get("Authorization") != "Bearer sk-test" {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`)
			return
		}
		var req openAIRequest
		dec := json.NewDecoder(r.Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil || req.Model == "" || len(req.Input) == 0 {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		mu.Lock()
		*requests = append(*requests, req)
		mu.Unlock()
		vecs, _ := e.Embed(r.Context(), req.Input)
		type item struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []item
		for i := len(vecs) - 1; i >= 0; i-- {
			data = append(data, item{"embedding", i, vecs[i]})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model,
			"usage": map[string]int{"prompt_tokens": 1, "total_tokens": 1}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestOpenAIEmbedder(t *testing.T) {
	var mu sync.Mutex
	var requests []openAIRequest
	srv := embeddingsServer(t, &requests, &mu)
	ctx := context.Background()
	e := &OpenAIEmbedder{BaseURL: srv.URL + "/v1/", Model: "nomic-embed-text", APIKey: "sk-test", BatchSize: 2}

	texts := []string{"how high is it", "elevation of a point", "weather today", "fork it", "list commits"}
	got, err := e.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := (&conceptEmbedder{}).Embed(ctx, texts)
	for i := range texts {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("vector %d: %v, want %v", i, got[i], want[i])
		}
	}
	if len(requests) != 3 || len(requests[0].Input) != 2 || len(requests[2].Input) != 1 || requests[0].Model != "nomic-embed-text" {
		t.Errorf("requests: %+v, want batches of 2, 2 and 1 for the model", requests)
	}

	// Through a hybrid index, as a host would use it.
	requests = nil
	h, err := NewHybrid(ctx, hybridDocs, HybridOptions{Embedder: e})
	if err != nil {
		t.Fatal(err)
	}
	hits, err := h.Search(ctx, "altitude of mount everest", 1)
	if err != nil || len(hits) != 1 || hits[0].Name != "maps_elevation" {
		t.Errorf("hybrid over the endpoint: %v, %v", hits, err)
	}
	if len(requests) != 4 { // 5 tools in 3 batches, then the query
		t.Errorf("%d requests, want 4", len(requests))
	}
}

func TestOpenAIEmbedderErrors(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var requests []openAIRequest
	good := embeddingsServer(t, &requests, &mu)
	answer := func(status int, body string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(status)
			io.WriteString(w, body)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	// A server that answers only when the client has given up.
	stop := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // then the server sees the client go
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	t.Cleanup(hang.Close)
	t.Cleanup(func() { close(stop) }) // runs first

	for _, c := range []struct {
		desc string
		e    *OpenAIEmbedder
		want string
	}{
		{"no model", &OpenAIEmbedder{BaseURL: good.URL}, "required"},
		{"wrong key", &OpenAIEmbedder{BaseURL: good.URL + "/v1", Model: "m", APIKey: "nope"}, "401 Unauthorized: Incorrect API key provided"},
		{"wrong path", &OpenAIEmbedder{BaseURL: good.URL, Model: "m", APIKey: "sk-test"}, "404 Not Found: no such route"},
		{"not json", &OpenAIEmbedder{BaseURL: answer(200, "<html>"), Model: "m"}, "not an embeddings response"},
		{"error text", &OpenAIEmbedder{BaseURL: answer(503, "model loading"), Model: "m"}, "503 Service Unavailable: model loading"},
		{"too few", &OpenAIEmbedder{BaseURL: answer(200, `{"data":[{"index":0,"embedding":[1]}]}`), Model: "m"}, "gave 1 embeddings for 2 texts"},
		{"repeated index", &OpenAIEmbedder{BaseURL: answer(200, `{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[1]}]}`), Model: "m"}, "out of range or repeated"},
		{"empty vector", &OpenAIEmbedder{BaseURL: answer(200, `{"data":[{"embedding":[1]},{"embedding":[]}]}`), Model: "m"}, "empty embedding for text 2"},
		{"too large", &OpenAIEmbedder{BaseURL: answer(200, `{"data":[`+strings.Repeat(" ", 2000)+`]}`), Model: "m", MaxResponseBytes: 1000}, "larger than 1000 bytes"},
		{"timeout", &OpenAIEmbedder{BaseURL: hang.URL, Model: "m", Timeout: 20 * time.Millisecond}, "deadline exceeded"},
		{"no server", &OpenAIEmbedder{BaseURL: "http://127.0.0.1:1", Model: "m"}, "connect"},
	} {
		_, err := c.e.Embed(ctx, []string{"a", "b"})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.desc, err, c.want)
		}
	}
}

func TestHybridNearest(t *testing.T) {
	// The heap's n best are those of a full sort, ties by name.
	var docs []Doc
	for i := range 300 {
		docs = append(docs, Doc{Name: fmt.Sprintf("tool_%03d", (i*7)%300), Description: fmt.Sprintf("w%d", i%13)})
	}
	h, err := NewHybrid(context.Background(), docs, HybridOptions{Embedder: &conceptEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	q, _ := unit((&conceptEmbedder{}).mustEmbed("w5 w7"))
	type scored struct {
		cos  float32
		name string
		id   uint32
	}
	var all []scored
	for i := range h.Len() {
		var dot float32
		for j, x := range q {
			dot += x * h.vecs[i*h.dim+j]
		}
		all = append(all, scored{dot, h.lex.names[i], uint32(i)})
	}
	slices.SortFunc(all, func(a, b scored) int {
		if a.cos != b.cos {
			if a.cos > b.cos {
				return -1
			}
			return 1
		}
		return strings.Compare(a.name, b.name)
	})
	for _, n := range []int{1, 10, 300, 400} {
		got := h.nearest(q, n)
		if len(got) != min(n, 300) {
			t.Fatalf("n=%d: %d results", n, len(got))
		}
		for i, id := range got {
			if id != all[i].id {
				t.Fatalf("n=%d: result %d is %s, want %s", n, i, h.lex.names[id], all[i].name)
			}
		}
	}
}

func (e *conceptEmbedder) mustEmbed(text string) []float32 {
	v, _ := e.Embed(context.Background(), []string{text})
	return v[0]
}
