package lint

import (
	"github.com/toolcat/toolcat/catalog"
)

// DependencySLA checks that a tool allows its tool dependencies their time.
var DependencySLA = &Rule{
	ID:       "DEPENDENCY_SLA",
	Category: "graph",
	Purpose:  "Checks that a tool depending on other tools has an sla_ms at least as long as each dependency's, and sets one when a dependency does, or its deadline would cut its own calls short.",
	Check:    forEachTool(checkDependencySLA),
}

func checkDependencySLA(p *Pass, t *catalog.Tool) {
	for i, name := range t.Dependencies {
		d := p.Catalog.Tool(name)
		if d == nil || d == t || d.SLAms == 0 {
			continue
		}
		switch {
		case t.SLAms == 0:
			p.Reportf(t, t.DependencyPosOf(i), "dependency %q has sla_ms %d but this tool sets none; set sla_ms to at least %d", d.Name, d.SLAms, d.SLAms)
		case t.SLAms < d.SLAms:
			p.Reportf(t, t.PosOf("sla_ms"), "sla_ms %d is shorter than the %d of dependency %q; raise it to at least %d", t.SLAms, d.SLAms, d.Name, d.SLAms)
		}
	}
}
