package lint

import (
	"github.com/toolcat/toolcat/catalog"
)

// DependencyAcyclic checks that tools do not depend on each other in a loop.
var DependencyAcyclic = &Rule{
	ID:       "DEPENDENCY_ACYCLIC",
	Category: "graph",
	Purpose:  "Checks that no tool depends on itself through its dependencies, which would make health checks and SLA budgets undefined; each cycle is reported once, with its path.",
	Check:    checkDependencyAcyclic,
}

func checkDependencyAcyclic(p *Pass) {
	c := p.Catalog
	cycles := findCycles(c, func(t *catalog.Tool) []*catalog.Tool {
		var out []*catalog.Tool
		for _, d := range t.Dependencies {
			if dt := c.Tool(d); dt != nil {
				out = append(out, dt)
			}
		}
		return out
	})
	for _, cyc := range cycles {
		p.Reportf(cyc[0], cyc[0].PosOf("dependencies"), "dependency cycle %s; break the loop", pathString(cyc))
	}
}
