package lint

import (
	"regexp"

	"github.com/toolcat/toolcat/catalog"
)

// CapabilityFormat checks the spelling policies match capabilities by.
var CapabilityFormat = &Rule{
	ID:       "CAPABILITY_FORMAT",
	Category: "safety",
	Purpose:  "Checks that capability_required is domain:action[:scope] in lower case, such as db:read:articles, the form capability policies match on.",
	Check:    forEachTool(checkCapabilityFormat),
}

var capabilityRE = regexp.MustCompile(`^[a-z][a-z0-9_-]*:[a-z][a-z0-9_-]*(:[a-z0-9_*][a-z0-9_.*/-]*)?$`)

func checkCapabilityFormat(p *Pass, t *catalog.Tool) {
	if t.CapabilityRequired == "" || capabilityRE.MatchString(t.CapabilityRequired) {
		return
	}
	p.Reportf(t, t.PosOf("capability_required"), "capability %q is not domain:action[:scope] in lower case; write it such as \"db:read:articles\"", t.CapabilityRequired)
}
