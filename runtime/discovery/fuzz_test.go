package discovery

import (
	"strings"
	"testing"
)

// FuzzSearch indexes drawn tools and searches them with a drawn query:
// no panic, at most k results, each a tool of the index, scores positive
// and in order (equal scores by name).
func FuzzSearch(f *testing.F) {
	f.Add("search_issues", "Search issues.\nUse when: the user asks.", `{"properties":{"q":{"enum":["a"]}}}`, "find open bugs", 5)
	f.Add("getUserHTTP2", "Do not use: ever. use when", `[[[[`, "https://x.y/z a@b.c notes.txt", 1)
	f.Add("天気", "天気予報", `{"properties":{"p":{"properties":{"q":{}}}}}`, "天気 ÄNDERN İ", 3)
	f.Add("", "", "", "", 0)
	f.Fuzz(func(t *testing.T, name, desc, args, query string, k int) {
		docs := []Doc{
			{Name: name, Description: desc, Args: []byte(args), Queries: []string{query}},
			{Name: name + "_2", Description: query, Category: desc},
			{Name: "list_" + desc, Description: name + " " + args},
		}
		ix := New(docs)
		known := map[string]bool{}
		for _, d := range docs {
			if d.Name != "" {
				known[d.Name] = true
			}
		}
		k = k % 8
		for _, q := range []string{query, name, desc, strings.ToUpper(query)} {
			hits := ix.Search(q, k)
			if len(hits) > max(k, 0) {
				t.Fatalf("%d hits for k=%d", len(hits), k)
			}
			for i, h := range hits {
				if !known[h.Name] || !(h.Score > 0) {
					t.Fatalf("hit %d: %+v", i, h)
				}
				if i > 0 {
					p := hits[i-1]
					if p.Score < h.Score || p.Score == h.Score && p.Name >= h.Name {
						t.Fatalf("hits out of order: %+v before %+v", p, h)
					}
				}
			}
		}
	})
}
