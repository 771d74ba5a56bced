package lint

import (
	"math"
	"slices"
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
		"Each tool is compared only with the tools that mention the rarest word of its name, so large catalogs stay fast.",
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

// checkToolConfusable reports every pair of tools whose word sets have a
// Jaccard similarity of at least the threshold and whose names do not tell
// them apart. It compares each tool only with candidates from an index of
// the words each tool mentions, so that it costs about linear time:
//
//   - Names tell two tools apart unless one tool's name words all appear
//     among the other's words; so a reported pair holds a tool whose
//     rarest name word the other mentions. A tool is compared with the
//     tools that mention its rarest name word, usually a handful.
//   - A tool without name words (a name of stop words only) may be
//     confused with any tool alike enough. Prefix filtering finds those:
//     two sets x and y with Jaccard ≥ th share at least ceil(th·|x|)
//     words, so y holds one of the |x| - ceil(th·|x|) + 1 rarest words
//     of x.
//
// The findings are exactly those of comparing every pair of tools.
func checkToolConfusable(p *Pass) {
	tools := append([]*catalog.Tool(nil), p.Catalog.Tools...)
	sort.SliceStable(tools, func(i, j int) bool { return tools[i].Pos.Before(tools[j].Pos) })
	th := p.Config.SimilarityThreshold
	n := len(tools)
	sets := make([][]string, n)
	members := make([]map[string]bool, n)
	// mention lists, for each word, the tools whose sets hold it, in order.
	mention := map[string][]int32{}
	for i, t := range tools {
		sets[i] = similarityWords(t)
		members[i] = make(map[string]bool, len(sets[i]))
		for _, w := range sets[i] {
			members[i][w] = true
			mention[w] = append(mention[w], int32(i))
		}
	}
	rarer := func(a, b string) bool {
		if da, db := len(mention[a]), len(mention[b]); da != db {
			return da < db
		}
		return a < b
	}
	// probe holds the words a tool is looked up by: the rarest of its name
	// words, or for a tool without name words the prefix of its set.
	probe := make([][]string, n)
	for i, t := range tools {
		if len(sets[i]) == 0 {
			continue // similarity 0 with every tool
		}
		if words := similarityWords(&catalog.Tool{Name: t.Name}); len(words) > 0 {
			r := words[0]
			for _, w := range words[1:] {
				if rarer(w, r) {
					r = w
				}
			}
			probe[i] = []string{r}
			continue
		}
		s := slices.Clone(sets[i])
		sort.Slice(s, func(a, b int) bool { return rarer(s[a], s[b]) })
		// The margin keeps the prefix long enough whatever the rounding
		// of th·|x|.
		prefix := len(s) - int(math.Ceil(th*float64(len(s))-1e-9)) + 1
		probe[i] = s[:min(max(prefix, 1), len(s))]
	}
	// found reports whether looking tool a up finds tool b.
	found := func(a, b int) bool {
		for _, w := range probe[a] {
			if members[b][w] {
				return true
			}
		}
		return false
	}
	seen := make([]int32, n) // seen[j] == i+1: j is already a candidate of i
	for i := range tools {
		for _, w := range probe[i] {
			for _, j32 := range mention[w] {
				j := int(j32)
				if j == i || seen[j] == int32(i+1) {
					continue
				}
				seen[j] = int32(i + 1)
				if j < i && found(j, i) {
					continue // the pair was checked when j was looked up
				}
				lo, hi := min(i, j), max(i, j)
				if sim := jaccard(members[lo], sets[hi], len(sets[lo])); sim >= th && !distinctNames(tools[hi], tools[lo], sets[hi], sets[lo]) {
					p.Reportf(tools[hi], tools[hi].Pos, "tools %q and %q are so alike (word similarity %.2f) that a model may confuse them; say in each name and description what sets it apart", tools[lo].Name, tools[hi].Name, sim)
				}
			}
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
