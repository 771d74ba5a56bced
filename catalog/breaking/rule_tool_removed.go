package breaking

// ToolRemoved reports tools that the new catalog no longer has.
var ToolRemoved = &Rule{
	ID:       "TOOL_REMOVED",
	Category: Wire,
	Purpose:  "Reports tools removed or renamed: models and clients that call them get not_found. A renamed tool declares renamed_from with its old name.",
	Check: func(p *Pass) {
		for _, t := range p.Removed {
			p.Reportf(t.Name, t.Pos, "tool %s was removed; calls to it now fail with not_found; keep it, or name it in renamed_from of the tool that replaces it", t.Name)
		}
	},
}
