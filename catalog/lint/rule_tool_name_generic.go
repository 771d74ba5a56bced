package lint

import (
	"slices"
	"strings"

	"github.com/toolcat/toolcat/catalog"
)

// ToolNameGeneric flags names that could mean anything.
var ToolNameGeneric = &Rule{
	ID:       "TOOL_NAME_GENERIC",
	Category: "names",
	Purpose:  "Checks that tool names are not generic (search, run, get_data, process...; configurable: generic_names): a name that fits any tool tells the model nothing about when to call it.",
	Check:    forEachTool(checkToolNameGeneric),
}

func checkToolNameGeneric(p *Pass, t *catalog.Tool) {
	words := nameWords(t.Name)
	if !isGenericName(p.Config, words) {
		return
	}
	verb := words[0]
	if !slices.Contains(p.Config.Verbs, verb) {
		verb = "get"
	}
	p.Reportf(t, t.Pos, "tool name %q is too generic; name the object it acts on, such as %q", t.Name, verb+"_"+objectHint(t))
}

// isGenericName reports whether a name, split into words, is generic: it
// is listed in generic_names, or every word after the verb is.
func isGenericName(cfg *Config, words []string) bool {
	if len(words) == 0 {
		return false
	}
	if slices.Contains(cfg.GenericNames, strings.Join(words, "_")) {
		return true
	}
	if len(words) < 2 || !slices.Contains(cfg.Verbs, words[0]) {
		return false
	}
	for _, w := range words[1:] {
		if !slices.Contains(cfg.GenericNames, w) {
			return false
		}
	}
	return true
}
