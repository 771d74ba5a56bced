package discovery

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// The how-to set: a second evaluation set over the same pool, written from
// other material than the first (see testdata/README.md): tasks that the
// services' own documentation and their users' questions in public issue
// threads and Q&A pages ask how to do, phrased as requests, never with the
// tool's own description at hand. No weight, synonym or factor was chosen
// by reading it: it only measures.
const howtoRequestsFile = "testdata/howto_requests.jsonl"

// howtoRequest is one line of testdata/howto_requests.jsonl.
type howtoRequest struct {
	Query string   `json:"q"`
	Want  string   `json:"want"`
	Also  []string `json:"also,omitempty"`
	// Source says what the request was written from: a service's
	// documentation page ("docs: ...") or a kind of question users ask
	// ("issues: ...", "q&a: ...").
	Source string `json:"source"`
}

func readHowtoRequests(t testing.TB) []howtoRequest {
	b, err := os.ReadFile(howtoRequestsFile)
	if err != nil {
		t.Fatal(err)
	}
	var reqs []howtoRequest
	sc := bufio.NewScanner(bytes.NewReader(b))
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var r howtoRequest
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("%s:%d: %v", howtoRequestsFile, line, err)
		}
		if r.Query == "" || !strings.Contains(r.Want, "/") || r.Source == "" {
			t.Fatalf("%s:%d: want q, want as server/tool, and source", howtoRequestsFile, line)
		}
		reqs = append(reqs, r)
	}
	return reqs
}

// TestHowtoRequests checks the how-to set without the pool: its size, and
// that none of its requests is in it twice or in the evaluation set.
func TestHowtoRequests(t *testing.T) {
	reqs := readHowtoRequests(t)
	if len(reqs) < 300 {
		t.Errorf("%d requests; the how-to set needs at least 300", len(reqs))
	}
	eval := readEvalRequests(t)
	evalTerms := make([]map[string]bool, len(eval))
	for i, r := range eval {
		evalTerms[i] = termSet(r.Query)
	}
	mine := map[string]bool{}
	for _, r := range reqs {
		k := strings.ToLower(r.Query)
		if mine[k] {
			t.Errorf("request %q is there twice", r.Query)
		}
		mine[k] = true
		// Not the evaluation set's requests, nor near copies of them:
		// at most half of the terms of the two together in common.
		ts := termSet(r.Query)
		for i, et := range evalTerms {
			if j := jaccard(ts, et); j > 0.5 {
				t.Errorf("request %q is too like %q of the evaluation set (%.2f of their terms shared)", r.Query, eval[i].Query, j)
			}
		}
	}
}

func termSet(q string) map[string]bool {
	m := map[string]bool{}
	for _, t := range Terms(q) {
		m[t] = true
	}
	return m
}

// jaccard is the share of the terms of a and b together that both have.
func jaccard(a, b map[string]bool) float64 {
	both := 0
	for t := range a {
		if b[t] {
			both++
		}
	}
	if all := len(a) + len(b) - both; all > 0 {
		return float64(both) / float64(all)
	}
	return 0
}

// TestHowtoQuality measures the index and the plain BM25 peer on the how-to
// set over the pool, and how much of each set's wording the wanted tool's
// own text has: the share of a request's terms that are in the name or
// description of the tool it wants (a set written from the descriptions
// scores high there, and flatters a lexical index).
func TestHowtoQuality(t *testing.T) {
	docs, _ := evalPool(t)
	byName := map[string]Doc{}
	for _, d := range docs {
		byName[d.Name] = d
	}
	reqs := readHowtoRequests(t)
	var set []struct{ query, want string }
	var missing []string
	for _, r := range reqs {
		for _, w := range append([]string{r.Want}, r.Also...) {
			if _, ok := byName[w]; !ok {
				missing = append(missing, fmt.Sprintf("%q wants %s", r.Query, w))
			}
		}
		set = append(set, struct{ query, want string }{r.Query, strings.Join(append([]string{r.Want}, r.Also...), "|")})
	}
	if len(missing) > 0 {
		t.Fatalf("%d requests want tools that are not in the pool:\n%s", len(missing), strings.Join(missing, "\n"))
	}
	q := measure(New(docs), set)
	p := measure(newPlainBM25(docs), set)
	t.Logf("how-to set: %d requests over %d tools: index recall@1 %.3f, recall@5 %.3f, MRR %.3f; plain BM25 %.3f, %.3f, %.3f",
		q.n, len(docs), q.recall1, q.recall5, q.mrr, p.recall1, p.recall5, p.mrr)

	var eval []struct{ query, want string }
	for _, r := range readEvalRequests(t) {
		eval = append(eval, struct{ query, want string }{r.Query, r.Want})
	}
	t.Logf("share of a request's terms in its tool's name and description: evaluation set %.2f, how-to set %.2f",
		overlap(byName, eval), overlap(byName, set))
	if testing.Verbose() && os.Getenv("TOOLCAT_EVAL_SHOW_HELD") != "" {
		slices.Sort(q.misses)
		for _, m := range q.misses {
			t.Log("  ", m)
		}
	}
}

// overlap is the mean share of a request's distinct terms that are terms of
// the name or description of the (first) tool it wants.
func overlap(byName map[string]Doc, reqs []struct{ query, want string }) float64 {
	var sum float64
	n := 0
	for _, r := range reqs {
		d := byName[strings.Split(r.want, "|")[0]]
		have := map[string]bool{}
		var tk tokenizer
		tk.tokens(d.Name+" "+d.Description, func(term []byte) { have[string(term)] = true })
		terms := map[string]bool{}
		for _, term := range Terms(r.query) {
			terms[term] = true
		}
		if len(terms) == 0 {
			continue
		}
		in := 0
		for term := range terms {
			if have[term] {
				in++
			}
		}
		sum += float64(in) / float64(len(terms))
		n++
	}
	return sum / float64(max(n, 1))
}
