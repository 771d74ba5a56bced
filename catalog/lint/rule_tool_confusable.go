package lint

import (
	"math"
	"sort"
	"strings"
	"unicode"

	"github.com/toolcat/toolcat/catalog"
)

// ToolConfusable flags tools a model will mix up.
var ToolConfusable = &Rule{
	ID:       "TOOL_CONFUSABLE",
	Category: "catalog",
	Purpose: "Checks that no two tools are so alike in name and description that a model will confuse them: " +
		"the Jaccard similarity of their word sets (name words plus description words, lower-cased, without stop words, plurals folded) must stay below similarity_threshold. " +
		"Two tools whose names each hold a word the other tool never mentions (update_issue_labels, update_issue_assignees) are told apart by name and not reported. " +
		"Candidate pairs come from a prefix-filtered index of rare words, so large catalogs stay fast.",
	Check: checkToolConfusable,
}

// stopWords carry no meaning for telling tools apart.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or but of to in on at by for with from into onto as is are was were be been
		this that these those it its it's you your we our they their he she his her i me my
		can could may might will would should must do does did done not no yes if then else when
		use used using uses which what who whom whose where how why than so such any all each every
		some more most other only also just very there here about over under up down out e.g i.e eg ie`) {
		stopWords[w] = true
	}
}

// similarityWords returns the set of words that describe a tool.
func similarityWords(t *catalog.Tool) []string {
	set := map[string]bool{}
	add := func(w string) {
		w = strings.ToLower(w)
		if len(w) < 2 || stopWords[w] {
			return
		}
		if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = strings.TrimSuffix(w, "s")
		}
		set[w] = true
	}
	for _, w := range nameWords(t.Name) {
		add(w)
	}
	for _, w := range strings.FieldsFunc(t.Description, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' }) {
		add(w)
	}
	out := make([]string, 0, len(set))
	for w := range set {
		out = append(out, w)
	}
	return out
}

func checkToolConfusable(p *Pass) {
	tools := append([]*catalog.Tool(nil), p.Catalog.Tools...)
	sort.SliceStable(tools, func(i, j int) bool { return tools[i].Pos.Before(tools[j].Pos) })
	th := p.Config.SimilarityThreshold
	sets := make([][]string, len(tools))
	df := map[string]int{}
	for i, t := range tools {
		sets[i] = similarityWords(t)
		for _, w := range sets[i] {
			df[w]++
		}
	}
	// Prefix filtering: order each set rarest word first; two sets with
	// Jaccard ≥ th share a word within the first |x| - ceil(th·|x|) + 1.
	index := map[string][]int{}
	members := make([]map[string]bool, len(sets))
	for i, s := range sets {
		members[i] = make(map[string]bool, len(s))
		for _, w := range s {
			members[i][w] = true
		}
		sort.Slice(s, func(a, b int) bool {
			if df[s[a]] != df[s[b]] {
				return df[s[a]] < df[s[b]]
			}
			return s[a] < s[b]
		})
		if len(s) == 0 {
			continue
		}
		prefix := len(s) - int(math.Ceil(th*float64(len(s)))) + 1
		seen := map[int]bool{}
		for _, w := range s[:min(max(prefix, 1), len(s))] {
			for _, j := range index[w] {
				if seen[j] {
					continue
				}
				seen[j] = true
				// Jaccard is at most the ratio of the set sizes.
				if a, b := len(sets[i]), len(sets[j]); float64(min(a, b)) < th*float64(max(a, b)) {
					continue
				}
				if sim := jaccard(members[j], sets[i], len(sets[j])); sim >= th && !distinctNames(tools[i], tools[j], sets[i], sets[j]) {
					p.Reportf(tools[i], tools[i].Pos, "tools %q and %q are so alike (word similarity %.2f) that a model may confuse them; say in each name and description what sets it apart", tools[j].Name, tools[i].Name, sim)
				}
			}
			index[w] = append(index[w], i)
		}
	}
}

// jaccard is |a ∩ b| / |a ∪ b| for a set a (as a map) of size na and b.
func jaccard(a map[string]bool, b []string, na int) float64 {
	common := 0
	for _, w := range b {
		if a[w] {
			common++
		}
	}
	if u := na + len(b) - common; u > 0 {
		return float64(common) / float64(u)
	}
	return 0
}

// distinctNames reports whether each tool's name holds a word that the
// other tool's words lack: the names alone tell the tools apart.
func distinctNames(a, b *catalog.Tool, wa, wb []string) bool {
	return hasWordOutside(a, wb) && hasWordOutside(b, wa)
}

func hasWordOutside(t *catalog.Tool, other []string) bool {
	in := make(map[string]bool, len(other))
	for _, w := range other {
		in[w] = true
	}
	for _, w := range similarityWords(&catalog.Tool{Name: t.Name}) {
		if !in[w] {
			return true
		}
	}
	return false
}
