package lint

import (
	"slices"
	"strconv"
	"strings"

	"github.com/toolcat/toolcat/catalog"
)

// ToolNameVerbNoun checks that a name says what the tool does to what.
var ToolNameVerbNoun = &Rule{
	ID:       "TOOL_NAME_VERB_NOUN",
	Category: "names",
	Purpose: "Checks that tool names start with a verb (configurable: verbs, extra_verbs) and name their object, such as list_open_invoices, so the model can tell tools apart by name alone. " +
		"Words before the verb pass as a namespace when an object follows the verb (github_list_issues, team_api_get_self); a name that ends in its verb (issue_read) is told to put it first, after such a namespace if other names use it. " +
		"A first word that is no verb and is shared by at least half the tools (and three or more), such as git_ in git_commit, is the catalog's namespace: a single word after it passes as a command name (git_status), and suggestions keep it in front.",
	Check: checkToolNameVerbNoun,
}

func checkToolNameVerbNoun(p *Pass) {
	v := verbNoun{verbs: p.Config.Verbs, namespaces: namespacePrefixes(p.Catalog, p.Config.Verbs)}
	v.prefixes = v.verbPrefixes(p.Catalog)
	for _, t := range p.Catalog.Tools {
		words := nameWords(t.Name)
		if len(words) == 0 || isGenericName(p.Config, words) {
			continue // TOOL_NAME_GENERIC says it better
		}
		if msg := v.check(t.Name, words, objectHint(t)); msg != "" {
			p.Reportf(t, t.Pos, "%s", msg)
		}
	}
}

// verbNoun is the name check, apart from the catalog it runs on.
type verbNoun struct {
	verbs      []string
	namespaces []string // first words taken as the catalog's namespace
	// prefixes are the words other names put before their verb, such as
	// team_api in team_api_get_self: suggestions keep them in front.
	prefixes [][]string
}

func (v verbNoun) isVerb(w string) bool { return slices.Contains(v.verbs, w) }

// check returns what is wrong with the name made of words, or "". object
// is the suggested object for a name that has none.
//
// Suggestions only move or add words: a verb already in the name is moved
// to the front (after the namespace), never added a second time.
func (v verbNoun) check(name string, words []string, object string) string {
	prefix := ""
	if len(words) > 1 && slices.Contains(v.namespaces, words[0]) {
		prefix, words = words[0]+"_", words[1:]
		if len(words) == 1 {
			return "" // a namespaced command, such as git_status
		}
	}
	if v.isVerb(words[0]) {
		if len(words) == 1 {
			return "tool name " + quote(name) + " names no object; add what it acts on, such as " + quote(prefix+words[0]+"_"+object)
		}
		return ""
	}
	if last := len(words) - 1; last > 0 && v.isVerb(words[last]) {
		// The action comes last, as in issue_read: put it first, after
		// the longest prefix other names put before their verb.
		object := words[:last]
		for _, pre := range v.prefixes {
			if len(pre) < len(object) && slices.Equal(pre, object[:len(pre)]) {
				prefix += strings.Join(pre, "_") + "_"
				object = object[len(pre):]
				break
			}
		}
		return "tool name " + quote(name) + " does not start with a verb; put the action first, such as " +
			quote(prefix+words[last]+"_"+strings.Join(object, "_"))
	}
	if slices.ContainsFunc(words[1:], v.isVerb) {
		return "" // the words before the verb are a namespace: team_api_get_self
	}
	verb := "get"
	if !v.isVerb(verb) && len(v.verbs) > 0 {
		verb = v.verbs[0]
	}
	return "tool name " + quote(name) + " does not start with a verb; start with what it does, such as " +
		quote(prefix+verb+"_"+strings.Join(words, "_")) + " (if " + quote(words[0]) + " is a verb, add it to extra_verbs)"
}

// verbPrefixes returns the words that names of c put before a verb that
// has an object after it (team_api in team_api_get_self), after any
// catalog namespace, longest first. Names that end in a verb
// (actions_run_trigger) teach nothing: their verb is in doubt.
func (v verbNoun) verbPrefixes(c *catalog.Catalog) [][]string {
	var out [][]string
	for _, t := range c.Tools {
		words := nameWords(t.Name)
		if len(words) > 1 && slices.Contains(v.namespaces, words[0]) {
			words = words[1:]
		}
		if len(words) < 3 || v.isVerb(words[0]) || v.isVerb(words[len(words)-1]) {
			continue // no prefix, or a name that ends in its verb
		}
		for i := 1; i < len(words)-1; i++ {
			if v.isVerb(words[i]) {
				if !slices.ContainsFunc(out, func(p []string) bool { return slices.Equal(p, words[:i]) }) {
					out = append(out, words[:i])
				}
				break
			}
		}
	}
	slices.SortStableFunc(out, func(a, b []string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(strings.Join(a, "_"), strings.Join(b, "_"))
	})
	return out
}

func quote(s string) string { return strconv.Quote(s) }

// namespacePrefixes returns the first name words that at least half the
// tools, and three or more, share and that are not verbs: a namespace
// such as "git" in git_commit, git_status. A verb shared by most tools, as
// get in get_forecast and get_alerts, is what they do, not a namespace.
func namespacePrefixes(c *catalog.Catalog, verbs []string) []string {
	counts := map[string]int{}
	for _, t := range c.Tools {
		if w := nameWords(t.Name); len(w) > 1 {
			counts[w[0]]++
		}
	}
	var out []string
	for w, n := range counts {
		if n >= 3 && 2*n >= len(c.Tools) && !slices.Contains(verbs, w) {
			out = append(out, w)
		}
	}
	slices.Sort(out)
	return out
}

// objectHint guesses the object a tool acts on, for suggestions: its
// category, or a placeholder.
func objectHint(t *catalog.Tool) string {
	if c := snakeCase(t.Category); c != "" {
		return c
	}
	return "<object>"
}
