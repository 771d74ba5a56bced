package lint

import (
	"fmt"
	"sort"

	"github.com/toolcat/toolcat/catalog"
)

// CatalogCoreTools keeps the tool list a model sees short.
var CatalogCoreTools = &Rule{
	ID:       "CATALOG_CORE_TOOLS",
	Category: "catalog",
	Purpose:  "Checks that no autonomy level offers the model more than max_core_tools core tools (a level offers the tools whose autonomy is at or below it): models choose worse among many tools, so the least central should be exposure: hidden and found through discovery.",
	Check:    checkCatalogCoreTools,
}

func checkCatalogCoreTools(p *Pass) {
	c := p.Catalog
	limit := p.Config.MaxCoreTools
	counts := make([]int, len(catalog.Autonomies))
	for _, t := range c.Tools {
		if t.Exposure == "hidden" {
			continue
		}
		for i := range catalog.Autonomies {
			if r := t.Autonomy.Rank(); r >= 0 && r <= i {
				counts[i]++
			}
		}
	}
	first := -1
	for i, n := range counts {
		if n > limit {
			first = i
			break
		}
	}
	if first < 0 {
		return
	}
	level := catalog.Autonomies[first]
	last := len(counts) - 1
	also := ""
	if last != first && counts[last] != counts[first] {
		also = fmt.Sprintf(" (%d at %s)", counts[last], catalog.Autonomies[last])
	}
	p.Reportf(nil, c.Pos, "autonomy level %s offers %d core tools%s, more than max_core_tools %d; set exposure: hidden on the least central ones, such as %s",
		level, counts[first], also, limit, quoteList(leastCentral(c, first, 3)))
}

// leastCentral picks up to n core tools offered at autonomy rank level that
// the model likely needs least often: those the fewest other tools name as
// fallback or dependency, then the riskiest, then the most specialised
// (the longest names).
func leastCentral(c *catalog.Catalog, level, n int) []string {
	refs := map[string]int{}
	for _, t := range c.Tools {
		if t.FallbackTool != "" {
			refs[t.FallbackTool]++
		}
		for _, d := range t.Dependencies {
			refs[d]++
		}
	}
	var cands []*catalog.Tool
	for _, t := range c.Tools {
		if r := t.Autonomy.Rank(); t.Exposure != "hidden" && r >= 0 && r <= level {
			cands = append(cands, t)
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if refs[a.Name] != refs[b.Name] {
			return refs[a.Name] < refs[b.Name]
		}
		if a.Autonomy.Rank() != b.Autonomy.Rank() {
			return a.Autonomy.Rank() > b.Autonomy.Rank()
		}
		if a.Risk.Rank() != b.Risk.Rank() {
			return a.Risk.Rank() > b.Risk.Rank()
		}
		if na, nb := len(nameWords(a.Name)), len(nameWords(b.Name)); na != nb {
			return na > nb // a longer name is a more specialised tool
		}
		return a.Name < b.Name
	})
	var out []string
	for _, t := range cands[:min(n, len(cands))] {
		out = append(out, t.Name)
	}
	return out
}
