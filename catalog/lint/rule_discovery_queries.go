package lint

import (
	"slices"
	"strings"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/runtime/discovery"
)

// DiscoveryQueries checks that a tool's example requests find it.
var DiscoveryQueries = &Rule{
	ID:       "DISCOVERY_QUERIES",
	Category: "catalog",
	Purpose: "Checks that each of a tool's queries (example requests a user would type) finds the tool among the first " +
		"3 results of the discovery index (runtime/discovery) built over the whole catalog: names, descriptions, argument schemas, queries and categories. " +
		"A request that ranks other tools first means hidden tools are not found and search tools answer wrongly; tools without queries are not checked.",
	Check: checkDiscoveryQueries,
}

// discoveryTopK is how high a tool's own query must rank it.
const discoveryTopK = 3

func checkDiscoveryQueries(p *Pass) {
	tools := p.Catalog.Tools
	if !slices.ContainsFunc(tools, func(t *catalog.Tool) bool { return len(t.Queries) > 0 }) {
		return
	}
	// One index for the run, as the runtime would build it.
	docs := make([]discovery.Doc, len(tools))
	for i, t := range tools {
		docs[i] = discovery.Doc{Name: t.Name, Description: t.Description, Queries: t.Queries, Category: t.Category}
		if t.Args != nil {
			docs[i].Args = t.Args.JSON()
		}
	}
	idx := discovery.New(docs)
	for _, t := range tools {
		for i, q := range t.Queries {
			hits := idx.Search(q, discoveryTopK)
			found := false
			names := make([]string, len(hits))
			for j, h := range hits {
				names[j] = h.Name
				found = found || h.Name == t.Name
			}
			switch {
			case found:
			case len(hits) == 0:
				p.Reportf(t, t.QueryPosOf(i), "query %q finds no tool: %s; reword the query or the description so that they share words", q, termsOf(q))
			default:
				p.Reportf(t, t.QueryPosOf(i), "query %q finds other tools first: %s; reword the query or the description so that they share words", q, strings.Join(names, ", "))
			}
		}
	}
}

// termsOf says what a request becomes as search terms.
func termsOf(q string) string {
	if ts := discovery.Terms(q); len(ts) > 0 {
		return "no tool has its terms " + strings.Join(ts, ", ")
	}
	return "it has only stop words and numbers"
}
