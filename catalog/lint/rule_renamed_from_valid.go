package lint

// RenamedFromValid checks that renamed_from names earlier names only.
var RenamedFromValid = &Rule{
	ID:       "RENAMED_FROM_VALID",
	Category: "graph",
	Purpose:  "Checks that renamed_from lists earlier names only: not the tool's own name, not a tool of the catalog, and not one claimed by two tools, so that toolcat breaking and the Go aliases know which tool an old name became.",
	Check:    checkRenamedFromValid,
}

func checkRenamedFromValid(p *Pass) {
	c := p.Catalog
	claimed := map[string]string{}
	for _, t := range c.Tools {
		for i, from := range t.RenamedFrom {
			pos := t.PosOf("renamed_from")
			if i < len(t.RenamedFromPos) && t.RenamedFromPos[i].IsValid() {
				pos = t.RenamedFromPos[i]
			}
			switch other, dup := claimed[from]; {
			case from == t.Name:
				p.Reportf(t, pos, "renamed_from names the tool itself; list only earlier names")
			case c.Tool(from) != nil:
				p.Reportf(t, pos, "renamed_from %q is a tool of the catalog; a renamed tool's old name must be gone, so remove it here or remove the tool", from)
			case dup && other != t.Name:
				p.Reportf(t, pos, "renamed_from %q is claimed by %s too; an old name can become one tool only", from, other)
			default:
				claimed[from] = t.Name
			}
		}
	}
}
