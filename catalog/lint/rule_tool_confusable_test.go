package lint

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/catalog/catalogtest"
)

// confusableAllPairs is TOOL_CONFUSABLE by its definition: every pair of
// tools, in position order, compared.
func confusableAllPairs(cat *catalog.Catalog, th float64) []Diagnostic {
	tools := append([]*catalog.Tool(nil), cat.Tools...)
	sort.SliceStable(tools, func(i, j int) bool { return tools[i].Pos.Before(tools[j].Pos) })
	sets := make([][]string, len(tools))
	members := make([]map[string]bool, len(tools))
	for i, t := range tools {
		sets[i] = similarityWords(t)
		members[i] = map[string]bool{}
		for _, w := range sets[i] {
			members[i][w] = true
		}
	}
	var out []Diagnostic
	for i := range tools {
		for j := range i {
			if sim := jaccard(members[j], sets[i], len(sets[j])); sim >= th && !distinctNames(tools[i], tools[j], sets[i], sets[j]) {
				out = append(out, Diagnostic{
					RuleID: ToolConfusable.ID, Severity: Warning, Pos: tools[i].Pos, Tool: tools[i].Name,
					Message: fmt.Sprintf("tools %q and %q are so alike (word similarity %.2f) that a model may confuse them; say in each name and description what sets it apart", tools[j].Name, tools[i].Name, sim),
				})
			}
		}
	}
	Sort(out)
	return out
}

// checkConfusableIndex asserts that the indexed rule finds exactly what
// comparing every pair finds, and returns how many findings there were.
func checkConfusableIndex(t *testing.T, desc string, cat *catalog.Catalog, th float64) int {
	t.Helper()
	cfg := DefaultConfig()
	cfg.SimilarityThreshold = th
	want := confusableAllPairs(cat, th)
	got := RunRule(ToolConfusable, cat, cfg)
	if diff := cmp.Diff(diagLines(want), diagLines(got)); diff != "" {
		t.Errorf("%s, threshold %v: indexed findings differ from all pairs (-want +got):\n%s", desc, th, diff)
	}
	return len(want)
}

// toolsAt makes a catalog of tools with names and descriptions, one a
// line in position order.
func toolsAt(nameDesc ...string) *catalog.Catalog {
	cat := &catalog.Catalog{}
	for i := 0; i+1 < len(nameDesc); i += 2 {
		cat.Tools = append(cat.Tools, &catalog.Tool{Name: nameDesc[i], Description: nameDesc[i+1], Pos: catalog.Pos{File: "c.yaml", Line: i/2 + 1, Col: 3}})
	}
	sort.Slice(cat.Tools, func(i, j int) bool { return cat.Tools[i].Name < cat.Tools[j].Name })
	return cat
}

func TestToolConfusableIndexHandMade(t *testing.T) {
	cat := toolsAt(
		"get_invoice", "Gets one invoice by its id.",
		"get_invoices", "Gets invoices by their id.",
		"fetch_invoice", "Gets one invoice by its id.",
		"update_issue_labels", "Updates the issue's labels.",
		"update_issue_assignees", "Updates the issue's assignees.",
		"do_it", "Gets one invoice by its id.", // no name words: any tool alike is confusable
		"a_the", "Gets one invoice by id.",
		"of_to", "",
		"it", "Ships the order to the customer.",
		"ship_order", "Ships the order to the customer.",
		"ship_orders", "Ships the order to the customer, now.",
		"send_order", "Ships the order to the customer.",
		"list_users", "Lists users.",
		"listUsers", "Lists the users.",
		"x", "Lists users.",
	)
	total := 0
	for _, th := range []float64{0.1, 0.3, 0.5, 0.6, 0.75, 0.8, 0.9, 1} {
		total += checkConfusableIndex(t, "hand-made", cat, th)
	}
	if total < 10 {
		t.Errorf("only %d findings in all: the catalog checks little", total)
	}
}

// Random catalogs from a small vocabulary have many near-duplicates,
// names without words of their own, plurals and stop words.
func TestToolConfusableIndexRandom(t *testing.T) {
	words := []string{"get", "list", "invoice", "invoices", "order", "orders", "user", "the", "of", "by", "id", "ship", "it", "a", "region", "team", "x"}
	total := 0
	for seed := range uint64(12) {
		r := rand.New(rand.NewPCG(seed, 7))
		var nd []string
		names := map[string]bool{}
		for len(nd) < 2*120 {
			var name []string
			for range 1 + r.IntN(3) {
				name = append(name, words[r.IntN(len(words))])
			}
			n := strings.Join(name, "_")
			if names[n] {
				continue
			}
			names[n] = true
			var desc []string
			for range r.IntN(9) {
				desc = append(desc, words[r.IntN(len(words))])
			}
			nd = append(nd, n, strings.Join(desc, " "))
		}
		cat := toolsAt(nd...)
		for _, th := range []float64{0.2, 0.5, 0.8, 1} {
			total += checkConfusableIndex(t, fmt.Sprintf("seed %d", seed), cat, th)
		}
	}
	if total < 300 {
		t.Errorf("only %d findings in all: the catalogs check little", total)
	}
}

// On a synthetic catalog, the tools without a number of their own are
// confusable with the tools 840 places further.
func TestToolConfusableIndexSynthetic(t *testing.T) {
	cat, err := catalog.LoadFiles(catalog.File{Name: "synthetic.yaml", Data: catalogtest.YAML(1000)})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, th := range []float64{0.8, 0.9} {
		total += checkConfusableIndex(t, "synthetic", cat, th)
	}
	if total < 10 {
		t.Errorf("only %d findings: the catalog checks little", total)
	}
}
