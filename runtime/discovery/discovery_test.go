package discovery

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func devIndex() *Index {
	docs := make([]Doc, len(devTools))
	for i, t := range devTools {
		docs[i] = Doc{Name: t.name, Description: t.desc, Args: []byte(t.args), Category: t.category}
	}
	return New(docs)
}

// quality measures recall@1, recall@5 and the mean reciprocal rank (over
// the first 10 results) of requests against an index.
type quality struct {
	n                int
	recall1, recall5 float64
	mrr              float64
	misses           []string
}

func measure(ix *Index, requests []struct{ query, want string }) quality {
	var q quality
	for _, r := range requests {
		hits := ix.Search(r.query, 10)
		rank := slices.IndexFunc(hits, func(h Hit) bool { return h.Name == r.want })
		q.n++
		if rank == 0 {
			q.recall1++
		}
		if rank >= 0 && rank < 5 {
			q.recall5++
		}
		if rank >= 0 {
			q.mrr += 1 / float64(rank+1)
		}
		if rank != 0 {
			var top []string
			for _, h := range hits[:min(3, len(hits))] {
				top = append(top, fmt.Sprintf("%s %.2f", h.Name, h.Score))
			}
			q.misses = append(q.misses, fmt.Sprintf("%q: %s at rank %d; top: %s", r.query, r.want, rank+1, strings.Join(top, ", ")))
		}
	}
	q.recall1 /= float64(q.n)
	q.recall5 /= float64(q.n)
	q.mrr /= float64(q.n)
	return q
}

func TestDevSetQuality(t *testing.T) {
	if len(devRequests) < 60 || len(devTools) < 30 {
		t.Fatalf("dev set too small: %d requests, %d tools", len(devRequests), len(devTools))
	}
	names := map[string]bool{}
	for _, tool := range devTools {
		names[tool.name] = true
	}
	for _, r := range devRequests {
		if !names[r.want] {
			t.Fatalf("request %q wants unknown tool %q", r.query, r.want)
		}
	}
	q := measure(devIndex(), devRequests)
	t.Logf("dev set: %d requests over %d tools: recall@1 %.3f, recall@5 %.3f, MRR %.3f",
		q.n, len(devTools), q.recall1, q.recall5, q.mrr)
	for _, m := range q.misses {
		t.Log("  ", m)
	}
	if q.recall5 < 0.90 || q.recall1 < 0.75 || q.mrr < 0.80 {
		t.Errorf("recall@1 %.3f (floor 0.75), recall@5 %.3f (floor 0.90), MRR %.3f (floor 0.80)", q.recall1, q.recall5, q.mrr)
	}
}
