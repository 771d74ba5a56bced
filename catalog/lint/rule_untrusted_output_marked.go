package lint

import (
	"strings"

	"github.com/toolcat/toolcat/catalog"
)

// UntrustedOutputMarked checks that outside content is wrapped as data.
var UntrustedOutputMarked = &Rule{
	ID:       "UNTRUSTED_OUTPUT_MARKED",
	Category: "safety",
	Purpose:  "Checks that tools whose capability_required reads outside content (net:*, web:*, fs:read*, shell:*, email:read*...; configurable: untrusted_capabilities), or that depend on a tool returning untrusted output (whose content the runtime then wraps in their result), set returns_untrusted, so their output is wrapped as untrusted data and cannot inject instructions.",
	Check:    forEachTool(checkUntrustedOutputMarked),
}

func checkUntrustedOutputMarked(p *Pass, t *catalog.Tool) {
	if t.ReturnsUntrusted {
		return
	}
	for _, d := range t.Dependencies {
		if dt := p.Catalog.Tool(d); dt != nil && dt.ReturnsUntrusted {
			p.Reportf(t, t.PosOf("dependencies"), "depends on %s, which returns untrusted output: the runtime wraps this tool's result as untrusted too; set returns_untrusted: true so the catalog says so", d)
			return
		}
	}
	if t.CapabilityRequired == "" {
		return
	}
	for _, pat := range p.Config.UntrustedCapabilities {
		if capabilityMatches(pat, t.CapabilityRequired) {
			p.Reportf(t, t.PosOf("capability_required"), "capability %q reads outside content (matches %q); set returns_untrusted: true so the result is wrapped as untrusted data", t.CapabilityRequired, pat)
			return
		}
	}
}

// capabilityMatches matches a capability against a pattern: a trailing *
// matches any rest; otherwise the pattern matches itself and its
// sub-capabilities ("net" matches "net:fetch").
func capabilityMatches(pat, capability string) bool {
	if prefix, ok := strings.CutSuffix(pat, "*"); ok {
		return strings.HasPrefix(capability, prefix)
	}
	return capability == pat || strings.HasPrefix(capability, pat+":")
}
