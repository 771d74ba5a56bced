package lint

import (
	"github.com/toolcat/toolcat/catalog"
)

// FallbackRisk keeps fallbacks from being more dangerous than the primary.
var FallbackRisk = &Rule{
	ID:       "FALLBACK_RISK",
	Category: "graph",
	Purpose:  "Checks that a fallback_tool is no riskier than its primary and has no side effects when the primary has none, since the runtime switches to it without asking.",
	Check:    forEachTool(checkFallbackRisk),
}

func checkFallbackRisk(p *Pass, t *catalog.Tool) {
	f := p.Catalog.Tool(t.FallbackTool)
	if f == nil || f == t {
		return
	}
	if f.Risk.Rank() > t.Risk.Rank() {
		p.Reportf(t, t.PosOf("fallback_tool"), "fallback %q is risk %s, riskier than this tool's %s; choose a fallback of risk at most %s", f.Name, f.Risk, t.Risk, t.Risk)
	}
	if f.HasSideEffects && !t.HasSideEffects {
		p.Reportf(t, t.PosOf("fallback_tool"), "fallback %q has side effects but this tool has none; a read must not fall back to a write", f.Name)
	}
}
