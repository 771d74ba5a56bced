package discovery

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func devIndex() *Index { return New(devDocs(false)) }

// quality measures recall@1, recall@5 and the mean reciprocal rank (over
// the first 10 results) of requests against an index.
type quality struct {
	n                int
	recall1, recall5 float64
	mrr              float64
	misses           []string
}

// searcher is what measure searches: an Index, or one whose names are
// mapped.
type searcher interface {
	Search(query string, k int) []Hit
}

func measure(ix searcher, requests []struct{ query, want string }) quality {
	var q quality
	for _, r := range requests {
		hits := ix.Search(r.query, 10)
		wants := strings.Split(r.want, "|") // any of them
		rank := slices.IndexFunc(hits, func(h Hit) bool { return slices.Contains(wants, h.Name) })
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
	if q.recall5 < 0.85 || q.recall1 < 0.75 || q.mrr < 0.80 {
		t.Errorf("recall@1 %.3f (floor 0.75), recall@5 %.3f (floor 0.85), MRR %.3f (floor 0.80)", q.recall1, q.recall5, q.mrr)
	}

	// With example requests for some tools, written apart from the
	// requests measured.
	plain := q
	q = measure(New(devDocs(true)), devRequests)
	t.Logf("with example requests for %d tools: recall@1 %.3f, recall@5 %.3f, MRR %.3f", len(devQueries), q.recall1, q.recall5, q.mrr)
	for _, m := range q.misses {
		t.Log("  ", m)
	}
	if q.recall5 < plain.recall5 || q.mrr < plain.mrr {
		t.Errorf("example requests made it worse: recall@5 %.3f, MRR %.3f (without: %.3f, %.3f)", q.recall5, q.mrr, plain.recall5, plain.mrr)
	}
}

func TestFieldWeights(t *testing.T) {
	// The same word in the name beats it in the description, the
	// description's first sentence beats its rest, the rest beats an
	// argument's description.
	// Every tool has each field, of about the same length, so that the
	// fields' weights decide.
	doc := func(name, summary, body, argText string) Doc {
		return Doc{Name: name, Description: summary + ". " + body + ".",
			Args: []byte(`{"properties":{"kind":{"type":"string","description":"` + argText + `"}}}`)}
	}
	ix := New([]Doc{
		doc("list_things", "Lists many things", "Works for invoices too", "such as rows"),
		doc("list_invoices", "Lists what was sent", "Works for everyone here", "such as rows"),
		doc("list_records", "Lists records of invoices", "Works for everyone here", "such as rows"),
		doc("list_rows", "Lists many rows", "Works for everyone here", "such as invoices"),
		doc("list_nothing", "Lists nothing at all", "Works for everyone here", "such as rows"),
	})
	got := names(ix.Search("invoices", 10))
	want := []string{"list_invoices", "list_records", "list_things", "list_rows"}
	if !slices.Equal(got, want) {
		t.Errorf("invoices: %q, want %q", got, want)
	}
	// Example requests are indexed.
	ix = New([]Doc{
		{Name: "get_weather", Description: "Current conditions for a city.", Queries: []string{"will it rain in Oslo tomorrow"}},
		{Name: "search_articles", Description: "Search articles."},
	})
	if got := names(ix.Search("rain expected later", 5)); !slices.Equal(got, []string{"get_weather"}) {
		t.Errorf("rain expected later: %q, want only get_weather", got)
	}
}

func TestCoordination(t *testing.T) {
	// Matching both words, even weakly, gains on matching one word
	// strongly: coordination scales a score by the share of the words
	// matched.
	docs := []Doc{
		{Name: "send_message", Description: "Send a message to a channel."},
		{Name: "notify_billing", Description: "Tell the billing team.", Args: []byte(`{"properties":{"note":{"description":"What to send them, such as an invoice number"}}}`)},
		{Name: "get_weather", Description: "Weather of a city."},
		{Name: "create_invoice", Description: "Create an invoice."},
	}
	ratio := func() float64 {
		s := map[string]float64{}
		for _, h := range New(docs).Search("send invoice", 5) {
			s[h.Name] = h.Score
		}
		return s["notify_billing"] / s["send_message"]
	}
	with := ratio()
	defer func() { disabled = 0 }()
	disabled = featCoord
	if without := ratio(); !(with > without*1.2) {
		t.Errorf("notify_billing / send_message: %.3f with coordination, %.3f without", with, without)
	}
}

func TestQuestion(t *testing.T) {
	// A question asks to read: the reading verbs count for it.
	ix := New([]Doc{
		{Name: "post_to_channel", Description: "Post to a channel of the team; any channel."},
		{Name: "list_channels", Description: "Names and topics of the team's channels."},
		{Name: "get_weather", Description: "Weather of a city."},
	})
	for _, q := range []string{"which channels does the team have", "channels of the team?"} {
		if got := names(ix.Search(q, 5)); len(got) == 0 || got[0] != "list_channels" {
			t.Errorf("%s: %q, want list_channels first", q, got)
		}
	}
	for q, want := range map[string]bool{
		"what is on my agenda": true, "Which files?": true, "How much": true, "do I have mail": true,
		"list files": false, "create a question": false, "": false, "   ": false, "whatever happened": false,
	} {
		if got := isQuestion(q); got != want {
			t.Errorf("isQuestion(%q) = %v, want %v", q, got, want)
		}
	}
}

func TestNameCoverage(t *testing.T) {
	// A tool whose name's words the request all says ranks above one
	// whose text repeats them.
	ix := New([]Doc{
		{Name: "get_refs", Description: "List branches, list branches and tags. Lists branches by name: branch list."},
		{Name: "list_branches", Description: "Returns them."},
		{Name: "x_y", Description: "Other words of other tools."},
		{Name: "z_w", Description: "More text here, for tags."},
	})
	if got := names(ix.Search("list branches", 5)); len(got) != 2 || got[0] != "list_branches" {
		t.Errorf("list branches: %q, want list_branches first", got)
	}
}

func names(hits []Hit) []string {
	out := []string{}
	for _, h := range hits {
		out = append(out, h.Name)
	}
	return out
}

func TestSearchEdges(t *testing.T) {
	ix := New([]Doc{
		{Name: "b_tool", Description: "Same words."},
		{Name: "a_tool", Description: "Same words."},
		{Name: "", Description: "No name: not indexed."},
		{Name: "c_tool", Description: "First version."},
		{Name: "c_tool", Description: "Second version, the one kept."},
	})
	if ix.Len() != 3 {
		t.Errorf("Len = %d, want 3 (nameless dropped, duplicate kept once)", ix.Len())
	}
	// Ties are broken by name.
	if got := names(ix.Search("same words", 5)); !slices.Equal(got, []string{"a_tool", "b_tool"}) {
		t.Errorf("ties: %q", got)
	}
	if got := names(ix.Search("first", 5)); len(got) != 0 {
		t.Errorf("first: %q, want nothing (the duplicate replaced it)", got)
	}
	if got := names(ix.Search("second", 5)); !slices.Equal(got, []string{"c_tool"}) {
		t.Errorf("second: %q", got)
	}
	for _, k := range []int{0, -1} {
		if hits := ix.Search("same", k); hits != nil {
			t.Errorf("k=%d: %v, want nil", k, hits)
		}
	}
	if hits := ix.Search("same words", 1); len(hits) != 1 || hits[0].Name != "a_tool" {
		t.Errorf("k=1: %v", hits)
	}
	for _, q := range []string{"", "   ", "the of and", "zzzz unknown"} {
		if hits := ix.Search(q, 5); len(hits) != 0 {
			t.Errorf("%q: %v, want nothing", q, hits)
		}
	}
	if hits := New(nil).Search("anything", 5); hits != nil {
		t.Errorf("empty index: %v", hits)
	}
}

func TestDeterministic(t *testing.T) {
	a, b := devIndex(), devIndex()
	for _, r := range devRequests {
		ha, hb := a.Search(r.query, 10), b.Search(r.query, 10)
		if !slices.Equal(ha, hb) {
			t.Fatalf("%q: two builds differ:\n%v\n%v", r.query, ha, hb)
		}
		if again := a.Search(r.query, 10); !slices.Equal(ha, again) {
			t.Fatalf("%q: two searches differ:\n%v\n%v", r.query, ha, again)
		}
		// The first k of a longer list are the list for k.
		if h3 := a.Search(r.query, 3); !slices.Equal(h3, ha[:min(3, len(ha))]) {
			t.Fatalf("%q: k=3 %v is not the head of k=10 %v", r.query, h3, ha)
		}
	}
}

func TestConcurrentSearch(t *testing.T) {
	ix := devIndex()
	want := make([][]Hit, len(devRequests))
	for i, r := range devRequests {
		want[i] = ix.Search(r.query, 5)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range 200 {
				i := (g*31 + n) % len(devRequests)
				if got := ix.Search(devRequests[i].query, 5); !slices.Equal(got, want[i]) {
					errs <- fmt.Sprintf("%q: %v, want %v", devRequests[i].query, got, want[i])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestBoundedInput(t *testing.T) {
	huge := strings.Repeat("payment refund invoice ", 1<<20) // 23 MiB
	deep := []byte(strings.Repeat("[", 1<<20))
	ix := New([]Doc{
		{Name: "refund_payment", Description: huge, Args: deep, Queries: []string{huge, huge}, Category: huge},
		{Name: strings.Repeat("x_", 1<<16), Description: "Refunds."},
		{Name: "get_invoice", Description: "Gets an invoice.", Args: []byte(`{"properties":{"id":`)},
	})
	if ix.Len() != 3 {
		t.Fatalf("Len = %d", ix.Len())
	}
	start := time.Now()
	hits := ix.Search(huge, 5)
	if d := time.Since(start); d > 50*time.Millisecond {
		t.Errorf("a 23 MiB query took %v", d)
	}
	if len(hits) == 0 || hits[0].Name != "refund_payment" {
		t.Errorf("huge query: %v", hits)
	}
	if hits := ix.Search("invoice", 5); len(hits) == 0 {
		t.Errorf("a tool whose schema is not JSON is still indexed by its description: %v", hits)
	}
	// Queries are read up to MaxQueryTerms words: the 40th word counts for
	// nothing.
	var words []string
	for i := range 40 {
		words = append(words, fmt.Sprintf("term%c%c", 'a'+i/26, 'a'+i%26))
	}
	ix = New([]Doc{{Name: "last_word", Description: words[39]}, {Name: "first_word", Description: words[0]}})
	if got := names(ix.Search(strings.Join(words, " "), 5)); !slices.Equal(got, []string{"first_word"}) {
		t.Errorf("long query: %q, want only first_word", got)
	}
}
