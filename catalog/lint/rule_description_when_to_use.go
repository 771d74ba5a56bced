package lint

import (
	"strings"

	"github.com/toolcat/toolcat/catalog"
)

// DescriptionWhenToUse checks that a description says when to call the tool.
var DescriptionWhenToUse = &Rule{
	ID:       "DESCRIPTION_WHEN_TO_USE",
	Category: "descriptions",
	Purpose:  "Checks that a tool description says when to use the tool, with one of the phrases in use_markers (such as \"Use when\"), case-insensitive.",
	Check:    forEachTool(checkDescriptionWhenToUse),
}

func checkDescriptionWhenToUse(p *Pass, t *catalog.Tool) {
	if strings.TrimSpace(t.Description) == "" {
		return // DESCRIPTION_LENGTH reports it
	}
	if !containsAnyFold(t.Description, p.Config.UseMarkers) {
		p.Reportf(t, t.PosOf("description"), "description does not say when to use the tool; add a line such as \"Use when: the user asks for ...\"")
	}
}

// containsAnyFold reports whether s contains one of the phrases, ignoring
// case and runs of white space.
func containsAnyFold(s string, phrases []string) bool {
	s = " " + strings.Join(strings.Fields(strings.ToLower(s)), " ")
	for _, ph := range phrases {
		ph = strings.Join(strings.Fields(strings.ToLower(ph)), " ")
		if ph != "" && strings.Contains(s, ph) {
			return true
		}
	}
	return false
}
