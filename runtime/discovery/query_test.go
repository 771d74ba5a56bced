package discovery

import (
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
		{"empty", "", ""},
	} {
		if got := rewriteQuery(c.in); got != c.want {
			t.Errorf("%s: rewriteQuery(%q) = %q, want %q", c.desc, c.in, got, c.want)
		}
	}
}

func TestRewriteQueryBounded(t *testing.T) {
	// A phrasal verb's words are at most twice as long as it: a query of
	// them at most doubles, and Search reads only MaxQueryBytes of it.
	q := strings.Repeat("set up ", MaxQueryBytes/4)
	if got := rewriteQuery(q); len(got) > 2*len(q) {
		t.Errorf("rewritten to %d bytes from %d", len(got), len(q))
	}
	ix := New([]Doc{{Name: "create_tool"}})
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

func TestRareWordsCoordinate(t *testing.T) {
	// A tool that matches one of a request's two words scores more when
	// the word it misses is common than when it is rare: coordination
	// weighs each word by its rarity.
	docs := []Doc{{Name: "funnel_chart", Description: "A funnel of stages."}, {Name: "zebra_tool", Description: "Zebra."}}
	for i := range 10 {
		docs = append(docs, Doc{Name: "tool_" + string(rune('a'+i)), Description: "Show things."})
	}
	ix := New(docs)
	score := func(q string) float64 {
		for _, h := range ix.Search(q, 20) {
			if h.Name == "funnel_chart" {
				return h.Score
			}
		}
		t.Fatalf("%q: funnel_chart not found", q)
		return 0
	}
	if common, rare := score("funnel show"), score("funnel zebra"); !(common > rare*1.2) {
		t.Errorf("funnel_chart scores %.3f missing a common word, %.3f missing a rare one", common, rare)
	}
}
