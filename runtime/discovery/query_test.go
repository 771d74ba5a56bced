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
	if a, b := score(verbFirst, "get_story"), score(verbLast, "get_story"); math.Abs(a/b-float64(verbMismatch)) > 1e-4 {
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

func TestContentStart(t *testing.T) {
	for _, c := range []struct{ in, content string }{
		{"list the branches", ""},
		{"file a bug: search is broken", " search is broken"},
		{"get https://example.com", ""},
		{`rename PR 9 to "Fix race"`, `"Fix race"`},
		{"post in #general saying the deploy is done", " the deploy is done"},
		{"create a page titled Q3 plan", " Q3 plan"},
		{"commit with the message fix typo", " fix typo"},
		{"a sayings book", ""},
		{"ends with saying", ""},
		{"", ""},
	} {
		if got := c.in[contentStart(c.in):]; got != c.content {
			t.Errorf("content of %q: %q, want %q", c.in, got, c.content)
		}
	}
}

func TestContentWeighsLess(t *testing.T) {
	// The words of an issue's text (after the colon) say less of the tool
	// than the same words in the request itself.
	docs := []Doc{
		{Name: "search_issues", Description: "Search issues by their text."},
		{Name: "create_issue", Description: "Create an issue."},
	}
	for i := range 10 {
		docs = append(docs, Doc{Name: "tool_" + string(rune('a'+i)), Description: "Something else."})
	}
	ix := New(docs)
	ratio := func(q string) float64 {
		s := map[string]float64{}
		for _, h := range ix.Search(q, 2) {
			s[h.Name] = h.Score
		}
		if s["search_issues"] == 0 || s["create_issue"] == 0 {
			t.Fatalf("%q: %v", q, s)
		}
		return s["create_issue"] / s["search_issues"]
	}
	content, words := ratio("create an issue: search is broken"), ratio("create an issue search is broken")
	if !(content > words*1.2) {
		t.Errorf("create_issue/search_issues: %.3f with the words as content, %.3f without", content, words)
	}
}

func TestLeadingVerb(t *testing.T) {
	// "file", first, is to create: a tool named for reading ranks down,
	// as it does not when "file" comes later (a file, not filing).
	ix := New([]Doc{
		{Name: "get_bug", Description: "Get a bug about login."},
		{Name: "create_bug", Description: "Create a bug."},
	})
	score := func(q string) float64 {
		for _, h := range ix.Search(q, 2) {
			if h.Name == "get_bug" {
				return h.Score
			}
		}
		t.Fatalf("%q: get_bug not found", q)
		return 0
	}
	if a, b := score("file a bug about login"), score("a bug about login file"); math.Abs(a/b-float64(verbMismatch)) > 1e-4 {
		t.Errorf("get_bug: %.4f when file leads, %.4f when it does not; ratio %.4f, want %v", a, b, a/b, verbMismatch)
	}
}

func TestVerbGroupIndexes(t *testing.T) {
	// The constants that name groups by index, and numVerbGroups, must
	// follow synonymGroups' order.
	for _, c := range []struct {
		i    int
		head string
	}{{findGroup, "find"}, {createGroup, "create"}, {writeGroup, "write"}, {sendGroup, "send"},
		{numVerbGroups - 1, "disable"}, {numVerbGroups, "web"}} {
		if got := synonymGroups[c.i][0]; got != c.head {
			t.Errorf("synonymGroups[%d] starts with %q, want %q", c.i, got, c.head)
		}
	}
}
