package lint

import (
	"strings"

	"github.com/toolcat/toolcat/catalog"
)

// DescriptionLimits checks that a description says what the tool is not for.
var DescriptionLimits = &Rule{
	ID:       "DESCRIPTION_LIMITS",
	Category: "descriptions",
	Purpose:  "Checks that a tool description says what the tool does not do or when not to use it, with one of the phrases in avoid_markers (such as \"Do not use\"), so the model does not stretch it to near-miss tasks.",
	Check:    forEachTool(checkDescriptionLimits),
}

func checkDescriptionLimits(p *Pass, t *catalog.Tool) {
	if strings.TrimSpace(t.Description) == "" {
		return // DESCRIPTION_LENGTH reports it
	}
	if !containsAnyFold(t.Description, p.Config.AvoidMarkers) {
		p.Reportf(t, t.PosOf("description"), "description does not say when not to use the tool; add a line such as \"Do not use: to ...; use other_tool instead\"")
	}
}
