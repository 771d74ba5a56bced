package lint

import (
	"github.com/toolcat/toolcat/catalog"
)

// FallbackValid checks that fallback_tool leads somewhere.
var FallbackValid = &Rule{
	ID:       "FALLBACK_VALID",
	Category: "graph",
	Purpose:  "Checks that fallback_tool names another tool of the catalog and that following fallbacks never loops back, so the runtime always ends at a tool that answers.",
	Check:    checkFallbackValid,
}

func checkFallbackValid(p *Pass) {
	c := p.Catalog
	names := toolNames(c)
	for _, t := range c.Tools {
		switch {
		case t.FallbackTool == "":
		case t.FallbackTool == t.Name:
			p.Reportf(t, t.PosOf("fallback_tool"), "tool names itself as fallback_tool; name another tool or remove it")
		case c.Tool(t.FallbackTool) == nil:
			p.Reportf(t, t.PosOf("fallback_tool"), "fallback_tool %q is not a tool of the catalog%s", t.FallbackTool, didYouMean(t.FallbackTool, names))
		}
	}
	cycles := findCycles(c, func(t *catalog.Tool) []*catalog.Tool {
		if f := c.Tool(t.FallbackTool); f != nil && f != t {
			return []*catalog.Tool{f}
		}
		return nil
	})
	for _, cyc := range cycles {
		p.Reportf(cyc[0], cyc[0].PosOf("fallback_tool"), "fallback_tool loop %s; the last fallback must be a tool without one", pathString(cyc))
	}
}
