package discovery

import (
	"math"
	"strings"
	"testing"
)

func TestRewriteQuery(t *testing.T) {
	for _, c := range []struct{ desc, in, want string }{
		{"nothing to do", "list the branches", "list the branches"},
		{"phrasal verb", "set up a nightly build", "create setup a nightly build"},
		{"phrasal verb, upper case", "Kick Off the release", "start run the release"},
		{"phrasal verb across a line break is not one", "set\nup", "set\nup"},
		{"first word alone", "set the label", "set the label"},
		{"phrase at the end", "turn it off", "turn it off"},
		{"two words apart", "turn the flag off", "turn the flag off"},
		{"hyphenated", "what's on my to-do list", "what's on my to-do todo list"},
		{"hyphenated twice", "re-run the e-mail job", "re-run rerun the e-mail email job"},
		{"hyphen before a digit", "utf-8 text", "utf-8 text"},
		{"trailing hyphen", "x-", "x-"},
		{"empty", "", ""},
	} {
		if got := rewriteQuery(c.in); got != c.want {
			t.Errorf("%s: rewriteQuery(%q) = %q, want %q", c.desc, c.in, got, c.want)
		}
	}
}

func TestRewriteQueryBounded(t *testing.T) {
	// Every hyphen adds a word: a query of hyphens at most doubles, and
	// Search reads only MaxQueryBytes of it.
	q := strings.Repeat("a-b ", MaxQueryBytes/4)
	if got := rewriteQuery(q); len(got) > 2*len(q) {
		t.Errorf("rewritten to %d bytes from %d", len(got), len(q))
	}
	ix := New([]Doc{{Name: "ab_tool"}})
	if hits := ix.Search(q, 3); len(hits) != 1 {
		t.Errorf("hits %v", hits)
	}
}

func TestPhrasalVerbSearch(t *testing.T) {
	ix := New([]Doc{
		{Name: "set_default_menu", Description: "Set a menu as the default one."},
		{Name: "create_menu", Description: "Create a menu with buttons."},
	})
	if got := names(ix.Search("set up a menu with two buttons", 2)); len(got) == 0 || got[0] != "create_menu" {
		t.Errorf("set up a menu: %q, want create_menu first", got)
	}
}

func TestVerbAgreement(t *testing.T) {
	// The request's first verb is create: a tool named for reading scores
	// verbMismatch times what it scores when the same words come in
	// another order, starting with no verb; a tool named for creating
	// scores the same either way.
	ix := New([]Doc{
		{Name: "get_story", Description: "Get a story by id, with its pricing page."},
		{Name: "create_story", Description: "Create a story."},
	})
	score := func(q, name string) float64 {
		for _, h := range ix.Search(q, 2) {
			if h.Name == name {
				return h.Score
			}
		}
		t.Fatalf("%q: %s not found", q, name)
		return 0
	}
	verbFirst, verbLast := "create a story for the pricing page", "the story for the pricing page, create it"
	if a, b := score(verbFirst, "get_story"), score(verbLast, "get_story"); math.Abs(a/b-verbMismatch) > 1e-4 {
		t.Errorf("get_story scores %.4f for %q and %.4f for %q: ratio %.4f, want %v", a, verbFirst, b, verbLast, a/b, verbMismatch)
	}
	if a, b := score(verbFirst, "create_story"), score(verbLast, "create_story"); math.Abs(a/b-1) > 1e-4 {
		t.Errorf("create_story scores %.4f and %.4f, want the same", a, b)
	}
	// A question asks to read: the reading tool is not ranked down.
	if a, b := score("which story has the pricing page?", "get_story"), score("story pricing page", "get_story"); !(a > b) {
		t.Errorf("get_story scores %.4f for a question, %.4f for its words alone", a, b)
	}
}

func TestRareWordsCoordinate(t *testing.T) {
	// A tool that matches the request's rare word ranks above one that
	// matches more of its common words.
	docs := []Doc{
		{Name: "generate_funnel_chart", Description: "Funnel chart of stages."},
		{Name: "show_logs", Description: "Show application logs for the offers service."},
	}
	for i := range 20 {
		docs = append(docs, Doc{Name: "tool_" + string(rune('a'+i)), Description: "Show the application details for offers."})
	}
	ix := New(docs)
	if got := names(ix.Search("show the hiring funnel from applications to offers", 3)); len(got) == 0 || got[0] != "generate_funnel_chart" {
		t.Errorf("hiring funnel: %q, want generate_funnel_chart first", got)
	}
}
