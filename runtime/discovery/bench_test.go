package discovery

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// syntheticDocs makes n tools like those of a large catalog: the dev set's
// tools, then names of a made-up service, a verb, a noun and often a
// qualifier (tobemi_list_invoice_pending), descriptions of
// two or three sentences with a "Use when:" line, and schemas of two to six
// described arguments, one of them an enum. Drawn from a fixed seed.
func syntheticDocs(n int) []Doc {
	verbs := strings.Fields("get list create update delete search find send cancel archive export import sync approve reject merge close open restart deploy schedule refund upload download convert")
	nouns := strings.Fields("user account invoice payment order customer ticket issue repository branch commit file folder event calendar meeting email message channel contact report dashboard metric alert incident service cluster database table record document page comment review release build job task project note reminder subscription plan quote product")
	quals := strings.Fields("by_id by_name for_team in_bulk draft recent archived shared public private pending")
	words := strings.Fields("the a of for with and to from in on current selected given all its their new old active open closed matching recent team workspace organisation owner status date time range limit page cursor filter sort order priority label tag name title id text body summary details history version region environment production staging amount currency total balance count size type kind format language timezone")
	rng := rand.New(rand.NewPCG(1, 2))
	sentence := func(min, max int) string {
		var b strings.Builder
		for i, n := 0, min+rng.IntN(max-min+1); i < n; i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[rng.IntN(len(words))])
		}
		return b.String()
	}
	docs := make([]Doc, 0, n)
	for _, t := range devTools {
		docs = append(docs, Doc{Name: t.name, Description: t.desc, Args: []byte(t.args), Category: t.category})
	}
	seen := map[string]bool{}
	for len(docs) < n {
		v, o := verbs[rng.IntN(len(verbs))], nouns[rng.IntN(len(nouns))]
		name := v + "_" + o
		if rng.IntN(3) > 0 {
			name += "_" + quals[rng.IntN(len(quals))]
		}
		// A made-up service name keeps names unique, as a vendor prefix
		// does in real tool sets.
		name = pseudoWord(rng) + "_" + name
		if seen[name] {
			continue
		}
		seen[name] = true
		desc := fmt.Sprintf("%s %s %s. %s.\nUse when: %s.", strings.ToUpper(v[:1])+v[1:], o, sentence(3, 8), sentence(5, 14), sentence(4, 10))
		var args strings.Builder
		args.WriteString(`{"type":"object","properties":{`)
		for a, na := 0, 2+rng.IntN(5); a < na; a++ {
			if a > 0 {
				args.WriteByte(',')
			}
			fmt.Fprintf(&args, `"%s_%s":{"type":"string","description":%q}`, words[rng.IntN(len(words))], words[rng.IntN(len(words))], sentence(2, 8))
		}
		fmt.Fprintf(&args, `,"mode":{"enum":[%q,%q]}}}`, words[rng.IntN(len(words))], words[rng.IntN(len(words))])
		docs = append(docs, Doc{Name: name, Description: desc, Args: []byte(args.String()), Category: nouns[rng.IntN(len(nouns))]})
	}
	return docs
}

// pseudoWord returns a pronounceable made-up word of two or three
// syllables, such as "tobemi".
func pseudoWord(rng *rand.Rand) string {
	const cons, vowels = "bdfgklmnprstvz", "aeiou"
	var b []byte
	for range 2 + rng.IntN(2) {
		b = append(b, cons[rng.IntN(len(cons))], vowels[rng.IntN(len(vowels))])
	}
	return string(b)
}

func BenchmarkNew5000(b *testing.B) {
	docs := syntheticDocs(5000)
	b.ReportAllocs()
	for b.Loop() {
		New(docs)
	}
}

// BenchmarkSearch5000 runs the dev set's requests in turn over 5,000
// synthetic tools, k = 5, through the index and through the plain BM25
// peer: ns/op is the mean of that mix; p50-ns and p99-ns are the median and
// 99th percentile of the searches' times.
func BenchmarkSearch5000(b *testing.B) {
	docs := syntheticDocs(5000)
	var queries []string
	for _, r := range devRequests {
		queries = append(queries, r.query)
	}
	benchSearch(b, docs, queries)
}

// BenchmarkSearchPool5000 does the same over 5,000 tools made from the
// pool ($TOOLCAT_DISCOVERY_POOL; see poolDocs5000) with the requests of
// the evaluation set and the how-to set in turn.
func BenchmarkSearchPool5000(b *testing.B) {
	docs := poolDocs5000(b)
	var queries []string
	for _, r := range readEvalRequests(b) {
		queries = append(queries, r.Query)
	}
	for _, r := range readHowtoRequests(b) {
		queries = append(queries, r.Query)
	}
	benchSearch(b, docs, queries)
}

func benchSearch(b *testing.B, docs []Doc, queries []string) {
	for _, c := range []struct {
		name  string
		build func([]Doc) searcher
	}{
		{"index", func(d []Doc) searcher { return New(d) }},
		{"plainBM25", func(d []Doc) searcher { return newPlainBM25(d) }},
	} {
		ix := c.build(docs)
		b.Run(c.name, func(b *testing.B) {
			times := make([]time.Duration, 0, 1<<16)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				start := time.Now()
				ix.Search(queries[i%len(queries)], 5)
				if len(times) < cap(times) {
					times = append(times, time.Since(start))
				}
				i++
			}
			slices.Sort(times)
			if n := len(times); n > 0 {
				b.ReportMetric(float64(times[n/2].Nanoseconds()), "p50-ns")
				b.ReportMetric(float64(times[n*99/100].Nanoseconds()), "p99-ns")
			}
		})
	}
}

// poolDocs5000 makes 5,000 tools of the pool: its own, then copies of
// them as other servers would publish them — the server under another
// name (gitlab-kobe/list_commits) and the description's sentences in
// another order — until there are 5,000.
func poolDocs5000(b testing.TB) []Doc {
	pool, _ := evalPool(b)
	docs := slices.Clone(pool)
	rng := rand.New(rand.NewPCG(3, 4))
	for copyN := 1; len(docs) < 5000; copyN++ {
		for _, d := range pool {
			if len(docs) == 5000 {
				break
			}
			server, tool, _ := strings.Cut(d.Name, "/")
			sentences := strings.SplitAfter(d.Description, ". ")
			rng.Shuffle(len(sentences), func(i, j int) { sentences[i], sentences[j] = sentences[j], sentences[i] })
			docs = append(docs, Doc{
				Name:        fmt.Sprintf("%s-%s%d/%s", server, pseudoWord(rng), copyN, tool),
				Description: strings.Join(sentences, " "),
				Args:        d.Args,
			})
		}
	}
	return docs
}

// TestSyntheticRecall checks that the dev set's tools are still found
// among 5,000 tools, and shows by how much the extra tools hurt.
func TestSyntheticRecall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 5,000-tool index")
	}
	q := measure(New(syntheticDocs(5000)), devRequests)
	t.Logf("dev requests over 5,000 tools: recall@1 %.3f, recall@5 %.3f, MRR %.3f", q.recall1, q.recall5, q.mrr)
	for _, m := range q.misses {
		t.Log("  ", m)
	}
	if q.recall5 < 0.75 {
		t.Errorf("recall@5 %.3f over 5,000 tools (floor 0.75)", q.recall5)
	}
}
