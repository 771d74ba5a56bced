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
	Purpose: "Checks that tool names start with a verb (configurable: verbs, extra_verbs) and name their object, such as list_open_invoices, so the model can tell tools apart by name alone. " +
		"A first word shared by at least half the tools (and three or more), such as git_ in git_commit, is taken as a namespace that names the object: the verb is looked for after it, and a single word after it passes as a command name (git_status).",
	Check: checkToolNameVerbNoun,
}

func checkToolNameVerbNoun(p *Pass) {
	ns := namespacePrefix(p.Catalog)
	for _, t := range p.Catalog.Tools {
		checkToolNameVerbNounOne(p, t, ns)
	}
}

func checkToolNameVerbNounOne(p *Pass, t *catalog.Tool, ns string) {
	words := nameWords(t.Name)
	if len(words) == 0 || isGenericName(p.Config, words) {
		return // TOOL_NAME_GENERIC says it better
	}
	prefix := ""
	if ns != "" && len(words) > 1 && words[0] == ns {
		prefix, words = ns+"_", words[1:]
	}
	if prefix != "" && len(words) == 1 {
		return // a namespaced command, such as git_status
	}
	isVerb := func(w string) bool { return slices.Contains(p.Config.Verbs, w) }
	if !isVerb(words[0]) {
		if last := words[len(words)-1]; len(words) > 1 && isVerb(last) {
			p.Reportf(t, t.Pos, "tool name %q does not start with a verb; put the action first, such as %q", t.Name, prefix+last+"_"+strings.Join(words[:len(words)-1], "_"))
			return
		}
		p.Reportf(t, t.Pos, "tool name %q does not start with a verb; start with what it does, such as %q (if %q is a verb, add it to extra_verbs)", t.Name, prefix+"get_"+strings.Join(words, "_"), words[0])
		return
	}
	if len(words) < 2 {
		p.Reportf(t, t.Pos, "tool name %q names no object; add what it acts on, such as %q", t.Name, prefix+words[0]+"_"+objectHint(t))
	}
}

// namespacePrefix returns the first name word that at least half the
// tools, and three or more, share when it is not a verb: a namespace such
// as "git" in git_commit, git_status.
func namespacePrefix(c *catalog.Catalog) string {
	counts := map[string]int{}
	for _, t := range c.Tools {
		if w := nameWords(t.Name); len(w) > 1 {
			counts[w[0]]++
		}
	}
	for w, n := range counts {
		if n >= 3 && 2*n >= len(c.Tools) {
			return w
		}
	}
	return ""
}

// objectHint guesses the object a tool acts on, for suggestions: its
// category, or a placeholder.
func objectHint(t *catalog.Tool) string {
	if c := snakeCase(t.Category); c != "" {
		return c
	}
	return "<object>"
}
