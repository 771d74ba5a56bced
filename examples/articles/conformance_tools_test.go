package articles

import (
	"context"
	"testing"
)

// conformanceTools returns the implementations that TestConformance
// checks, over an in-memory store and a fake web.
func conformanceTools(t *testing.T) Tools {
	store := NewStore(
		Article{ID: 42, Title: "pgvector in production", Tags: []string{"postgres", "retrieval augmented generation"}},
		Article{ID: 7, Title: "Retrieval augmented generation, explained", Tags: []string{"rag"}},
	)
	fetch := func(ctx context.Context, url string, maxChars int) (string, string, error) {
		return "Go documentation", "Documentation for the Go programming language.", nil
	}
	return New(store, fetch)
}
