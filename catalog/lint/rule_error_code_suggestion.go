package lint

import (
	"strings"

	"github.com/toolcat/toolcat/catalog"
)

// ErrorCodeSuggestion checks that declared errors tell the model what next.
var ErrorCodeSuggestion = &Rule{
	ID:       "ERROR_CODE_SUGGESTION",
	Category: "safety",
	Purpose: "Checks that every error a tool declares carries a suggestion telling the model what to do next. " +
		"dependency_unavailable on a tool with a fallback_tool may leave it out, as the default suggestion names the fallback; a suggestion written for it must name the fallback too.",
	Check: forEachTool(checkErrorCodeSuggestion),
}

func checkErrorCodeSuggestion(p *Pass, t *catalog.Tool) {
	for _, e := range t.Errors {
		s := strings.TrimSpace(e.Suggestion)
		if !e.Pos.IsValid() {
			e.Pos = t.PosOf("errors")
		}
		if e.Code == "dependency_unavailable" && t.FallbackTool != "" {
			if s != "" && !strings.Contains(s, t.FallbackTool) {
				p.Reportf(t, e.Pos, "suggestion for dependency_unavailable does not name the fallback tool %q; mention it, or remove the suggestion to use the default, which does", t.FallbackTool)
			}
			continue
		}
		if s == "" {
			p.Reportf(t, e.Pos, "error %q has no suggestion; tell the model what to do next, such as which argument to change or which tool to call", e.Code)
		}
	}
}
