package articles

import (
	"context"
	"maps"
	"testing"

	"github.com/toolcat/toolcat/conformance"
)

// conformanceTools returns the implementations that TestConformance checks,
// over an in-memory store and a fake web, and the options of the checks: a
// Probe over the store, and the read-only tools marked deterministic.
func conformanceTools(t *testing.T) (Tools, conformance.Options) {
	store := NewStore(
		Article{ID: 42, Title: "pgvector in production", Tags: []string{"postgres", "retrieval augmented generation"}},
		Article{ID: 7, Title: "Retrieval augmented generation, explained", Tags: []string{"rag"}},
	)
	fetch := func(ctx context.Context, url string, maxChars int) (string, string, error) {
		if err := ctx.Err(); err != nil {
			return "", "", err
		}
		return "Go documentation", "Documentation for the Go programming language.", nil
	}
	opts := conformance.Options{
		Probe: func(context.Context) (any, error) { return store.snapshot(), nil },
		Deterministic: []string{
			"fetch_web_page",
			"get_article_by_id",
			"search_articles_by_keyword",
		},
	}
	return New(store, fetch), opts
}

// snapshot copies the store's articles, for the conformance Probe.
func (s *Store) snapshot() map[int64]Article {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[int64]Article, len(s.articles))
	for id, a := range maps.All(s.articles) {
		out[id] = *a
	}
	return out
}
