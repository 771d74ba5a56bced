package discovery

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// evalSet is a set of requests with the tools that answer them, named for
// a table.
type evalSet struct {
	name string
	docs []Doc
	reqs []struct{ query, want string }
}

// ablationSets are the sets each feature is measured on: the evaluation
// set's two halves and the how-to set over the pool, then the dev set and,
// with $TOOLCAT_CORPUS, the corpus. The first three decide.
func ablationSets(b testing.TB) []evalSet {
	docs, _ := evalPool(b)
	var tune, held []struct{ query, want string }
	for _, r := range readEvalRequests(b) {
		q := struct{ query, want string }{r.Query, strings.Join(append([]string{r.Want}, r.Also...), "|")}
		if r.Half == "tune" {
			tune = append(tune, q)
		} else {
			held = append(held, q)
		}
	}
	var howto []struct{ query, want string }
	for _, r := range readHowtoRequests(b) {
		howto = append(howto, struct{ query, want string }{r.Query, strings.Join(append([]string{r.Want}, r.Also...), "|")})
	}
	sets := []evalSet{
		{"tuning half", docs, tune},
		{"held-out half", docs, held},
		{"how-to set", docs, howto},
		{"dev set", devDocs(false), devRequests},
	}
	if os.Getenv("TOOLCAT_CORPUS") != "" {
		sets = append(sets, evalSet{"corpus", corpusDocs(b), corpusRequests})
	}
	return sets
}

// decidingSets is how many of ablationSets decide whether a feature stays.
const decidingSets = 3

// BenchmarkAblation measures each ranking feature's worth: recall@1,
// recall@5 and MRR with every feature on, with each switched off in turn,
// and of the plain BM25 peer, on the sets of ablationSets. It prints a
// Markdown table, and for each feature whether switching it off costs
// recall@1 + recall@5 + MRR on every deciding set, at least what one
// request moving in or out of first place or the first five would (1/n):
// it pays on all of them (keep it), or not (drop it). It needs the pool:
//
//	TOOLCAT_DISCOVERY_POOL=dir go test -run '^$' -bench BenchmarkAblation -benchtime 1x -v ./runtime/discovery/
func BenchmarkAblation(b *testing.B) {
	sets := ablationSets(b)
	saved := disabled
	defer func() {
		disabled = saved
		buildTables()
	}()
	type row struct {
		label string
		q     []quality
	}
	run := func(label string, build func([]Doc) searcher) row {
		r := row{label: label}
		for _, s := range sets {
			r.q = append(r.q, measure(build(s.docs), s.reqs))
		}
		return r
	}
	index := func(docs []Doc) searcher { return New(docs) }
	var rows []row
	for b.Loop() {
		rows = rows[:0]
		disabled = saved
		buildTables()
		rows = append(rows, run("all features", index))
		for f := range numFeatures {
			if saved&(1<<f) != 0 {
				continue
			}
			disabled = saved | 1<<f
			buildTables()
			rows = append(rows, run("without "+featureNames[f], index))
		}
		disabled = saved
		buildTables()
		rows = append(rows, run("plain BM25", func(docs []Doc) searcher { return newPlainBM25(docs) }))
	}

	var head, rule strings.Builder
	head.WriteString("| |")
	rule.WriteString("|---|")
	for _, s := range sets {
		fmt.Fprintf(&head, " %s (%d) |", s.name, len(s.reqs))
		rule.WriteString("---|")
	}
	head.WriteString(" verdict |")
	rule.WriteString("---|")
	b.Log(head.String())
	b.Log(rule.String())
	sum := func(q quality) float64 { return q.recall1 + q.recall5 + q.mrr }
	for _, r := range rows {
		var line strings.Builder
		fmt.Fprintf(&line, "| %s |", r.label)
		for _, q := range r.q {
			fmt.Fprintf(&line, " %.3f / %.3f / %.3f |", q.recall1, q.recall5, q.mrr)
		}
		verdict := ""
		if strings.HasPrefix(r.label, "without ") {
			helps := true
			for i := range decidingSets {
				if sum(rows[0].q[i])-sum(r.q[i]) < 1/float64(rows[0].q[i].n)-1e-9 {
					helps = false
				}
			}
			verdict = map[bool]string{true: "helps on all: keep", false: "drop"}[helps]
		}
		fmt.Fprintf(&line, " %s |", verdict)
		b.Log(line.String())
	}
}
