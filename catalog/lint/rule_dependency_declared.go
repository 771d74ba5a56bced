package lint

// DependencyDeclared checks that dependencies name something known.
var DependencyDeclared = &Rule{
	ID:       "DEPENDENCY_DECLARED",
	Category: "graph",
	Purpose:  "Checks that every name in dependencies is a service declared under services or a tool of the catalog, so health checks and fallbacks know what a tool relies on.",
	Check:    checkDependencyDeclared,
}

func checkDependencyDeclared(p *Pass) {
	c := p.Catalog
	known := toolNames(c)
	for _, s := range c.Services {
		known = append(known, s.Name)
	}
	for _, t := range c.Tools {
		for i, d := range t.Dependencies {
			if c.Service(d) == nil && c.Tool(d) == nil {
				hint := didYouMean(d, known)
				if hint == "" {
					hint = "; declare it under services"
				}
				p.Reportf(t, t.DependencyPosOf(i), "dependency %q is neither a service nor a tool%s", d, hint)
			}
		}
	}
}
