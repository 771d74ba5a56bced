package lint

import (
	"slices"
	"strings"

	"github.com/toolcat/toolcat/catalog"
)

// ToolNameVerbNoun checks that a name says what the tool does to what.
var ToolNameVerbNoun = &Rule{
	ID:       "TOOL_NAME_VERB_NOUN",
	Category: "names",
	Purpose:  "Checks that tool names start with a verb (configurable: verbs, extra_verbs) and name their object, such as list_open_invoices, so the model can tell tools apart by name alone.",
	Check:    forEachTool(checkToolNameVerbNoun),
}

func checkToolNameVerbNoun(p *Pass, t *catalog.Tool) {
	words := nameWords(t.Name)
	if len(words) == 0 || isGenericName(p.Config, words) {
		return // TOOL_NAME_GENERIC says it better
	}
	if !slices.Contains(p.Config.Verbs, words[0]) {
		for i, w := range words[1:] {
			if slices.Contains(p.Config.Verbs, w) {
				rest := slices.Concat(words[:i+1], words[i+2:])
				p.Reportf(t, t.Pos, "tool name %q does not start with a verb; put the action first, such as %q", t.Name, w+"_"+strings.Join(rest, "_"))
				return
			}
		}
		p.Reportf(t, t.Pos, "tool name %q does not start with a verb; start with what it does, such as %q (if %q is a verb, add it to extra_verbs)", t.Name, "get_"+strings.Join(words, "_"), words[0])
		return
	}
	if len(words) < 2 {
		p.Reportf(t, t.Pos, "tool name %q names no object; add what it acts on, such as %q", t.Name, words[0]+"_"+objectHint(t))
	}
}

// objectHint guesses the object a tool acts on, for suggestions: its
// category, or a placeholder.
func objectHint(t *catalog.Tool) string {
	if c := snakeCase(t.Category); c != "" {
		return c
	}
	return "<object>"
}
