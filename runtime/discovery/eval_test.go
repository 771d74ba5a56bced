package discovery

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The evaluation set: requests written for a pool of public tool
// definitions that internal/discoverypool builds outside the repository
// (`make discovery-pool POOL=dir`), one JSON file per MCP server. Tools are
// indexed as a host mounts them, qualified by their server
// (gitlab/list_commits), since names repeat across servers.
const (
	evalRequestsFile = "testdata/eval_requests.jsonl"
	// Targets of the evaluation, on the whole set and on each half.
	evalTargetRecall1 = 0.75
	evalTargetRecall5 = 0.90
	// The pool must be at least this large for the figures to mean what
	// the README says.
	evalMinTools   = 1000
	evalMinServers = 15
)

// evalRequest is one line of testdata/eval_requests.jsonl.
type evalRequest struct {
	Query string `json:"q"`
	// Want is the tool that answers the request, as server/tool.
	Want string `json:"want"`
	// Also are tools that answer it as well (the same operation on two
	// servers of one service, say), counted as right.
	Also []string `json:"also,omitempty"`
	// Half is "tune", the requests read while choosing weights and
	// synonyms, or "held", those that were not.
	Half string `json:"half"`
}

// poolFile is what internal/discoverypool writes per server.
type poolFile struct {
	Server string `json:"server"`
	Tools  []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	} `json:"tools"`
}

// evalPool reads the pool in $TOOLCAT_DISCOVERY_POOL, which `make
// eval-discovery` sets: its docs, named server/tool, and its servers.
func evalPool(t testing.TB) ([]Doc, []string) {
	dir := os.Getenv("TOOLCAT_DISCOVERY_POOL")
	if dir == "" {
		t.Skip("TOOLCAT_DISCOVERY_POOL is not set: `make discovery-pool POOL=dir` builds the pool and `make eval-discovery POOL=dir` runs this test on it")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var docs []Doc
	var servers []string
	for _, f := range files {
		if filepath.Base(f) == "manifest.json" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var p poolFile
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if p.Server == "" || len(p.Tools) == 0 {
			t.Fatalf("%s: no server name or no tools", f)
		}
		servers = append(servers, p.Server)
		for _, tl := range p.Tools {
			docs = append(docs, Doc{Name: p.Server + "/" + tl.Name, Description: tl.Description, Args: tl.InputSchema})
		}
	}
	return docs, servers
}

func readEvalRequests(t testing.TB) []evalRequest {
	b, err := os.ReadFile(evalRequestsFile)
	if err != nil {
		t.Fatal(err)
	}
	var reqs []evalRequest
	sc := bufio.NewScanner(bytes.NewReader(b))
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var r evalRequest
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("%s:%d: %v", evalRequestsFile, line, err)
		}
		if r.Query == "" || !strings.Contains(r.Want, "/") || (r.Half != "tune" && r.Half != "held") {
			t.Fatalf("%s:%d: want q, want as server/tool, and half tune or held", evalRequestsFile, line)
		}
		reqs = append(reqs, r)
	}
	return reqs
}

// TestEvalRequests checks the request file without the pool: its size,
// its halves and that no request is there twice.
func TestEvalRequests(t *testing.T) {
	reqs := readEvalRequests(t)
	if len(reqs) < 300 {
		t.Errorf("%d requests; the evaluation needs at least 300", len(reqs))
	}
	halves := map[string]int{}
	seen := map[string]bool{}
	for _, r := range reqs {
		halves[r.Half]++
		k := strings.ToLower(r.Query)
		if seen[k] {
			t.Errorf("request %q is there twice", r.Query)
		}
		seen[k] = true
	}
	if d := halves["tune"] - halves["held"]; d < -len(reqs)/10 || d > len(reqs)/10 {
		t.Errorf("halves of %d and %d requests: not a split in two", halves["tune"], halves["held"])
	}
}

// TestEvalQuality measures the index on the evaluation set: recall@1,
// recall@5 and MRR, on each half and on the whole, with the tuning half's
// misses (the held-out half's too when $TOOLCAT_EVAL_SHOW_HELD is set). It
// fails below the targets.
func TestEvalQuality(t *testing.T) {
	docs, servers := evalPool(t)
	if len(docs) < evalMinTools || len(servers) < evalMinServers {
		t.Fatalf("pool has %d tools from %d servers; the evaluation needs at least %d from %d: build it with `make discovery-pool`",
			len(docs), len(servers), evalMinTools, evalMinServers)
	}
	names := map[string]bool{}
	for _, d := range docs {
		names[d.Name] = true
	}
	reqs := readEvalRequests(t)
	var missing []string
	for _, r := range reqs {
		for _, w := range append([]string{r.Want}, r.Also...) {
			if !names[w] {
				missing = append(missing, fmt.Sprintf("%q wants %s", r.Query, w))
			}
		}
	}
	if len(missing) > 0 {
		t.Fatalf("%d requests want tools that are not in the pool (an older or partial pool?):\n%s", len(missing), strings.Join(missing, "\n"))
	}
	ix := New(docs)
	t.Logf("pool: %d tools from %d servers", ix.Len(), len(servers))
	bare, qualified := bareNames(docs)
	bareIx := New(bare)
	for _, half := range []string{"tune", "held", ""} {
		var set []struct{ query, want string }
		for _, r := range reqs {
			if half == "" || r.Half == half {
				set = append(set, struct{ query, want string }{r.Query, strings.Join(append([]string{r.Want}, r.Also...), "|")})
			}
		}
		label := map[string]string{"tune": "tuning half", "held": "held-out half", "": "all"}[half]
		q := measure(ix, set)
		t.Logf("%s: %d requests: recall@1 %.3f, recall@5 %.3f, MRR %.3f", label, q.n, q.recall1, q.recall5, q.mrr)
		qb := measure(renamed{bareIx, qualified}, set)
		t.Logf("%s, names qualified only where they clash: recall@1 %.3f, recall@5 %.3f, MRR %.3f", label, qb.recall1, qb.recall5, qb.mrr)
		// The held-out half's misses are not shown unless asked for: what
		// is read while tuning is no longer held out.
		if testing.Verbose() && (half == "tune" || half == "held" && os.Getenv("TOOLCAT_EVAL_SHOW_HELD") != "") {
			slices.Sort(q.misses)
			for _, m := range q.misses {
				t.Log("  ", m)
			}
		}
		if q.recall1 < evalTargetRecall1 || q.recall5 < evalTargetRecall5 {
			t.Errorf("%s: recall@1 %.3f, recall@5 %.3f (targets %.2f and %.2f)", label, q.recall1, q.recall5, evalTargetRecall1, evalTargetRecall5)
		}
	}
}

// bareNames renames the pool's tools as a host that qualifies a name by
// its server only when two servers have a tool of that name would: bare
// (list_pipelines), or server/tool (github/list_commits). It returns the
// renamed docs and, by new name, the qualified one.
func bareNames(docs []Doc) ([]Doc, map[string]string) {
	count := map[string]int{}
	for _, d := range docs {
		count[d.Name[strings.IndexByte(d.Name, '/')+1:]]++
	}
	out := make([]Doc, len(docs))
	qualified := make(map[string]string, len(docs))
	for i, d := range docs {
		out[i] = d
		if bare := d.Name[strings.IndexByte(d.Name, '/')+1:]; count[bare] == 1 {
			out[i].Name = bare
		}
		qualified[out[i].Name] = d.Name
	}
	return out, qualified
}

// renamed is an index whose hits are renamed back to server/tool.
type renamed struct {
	ix        *Index
	qualified map[string]string
}

func (r renamed) Search(q string, k int) []Hit {
	hits := r.ix.Search(q, k)
	for i := range hits {
		hits[i].Name = r.qualified[hits[i].Name]
	}
	return hits
}
