package discovery

import (
	"slices"
	"strings"
	"testing"
)

func TestTerms(t *testing.T) {
	cases := []struct {
		desc, in string
		want     []string
	}{
		{"snake case", "search_issues_by_label", []string{"search", "issues", "label"}},
		{"kebab, dots and slashes", "github.repos/list-branches", []string{"github", "repos", "list", "branches"}},
		{"camel case", "getUserProfile", []string{"get", "user", "profile"}},
		{"acronym before a word", "parseHTTPServerURL", []string{"parse", "http", "server", "url"}},
		{"digits split, kept joined, numbers dropped", "uploadToS3 oauth2 ticket 42 at 3pm", []string{"upload", "s3", "oauth", "oauth2", "ticket", "pm"}},
		{"stop words dropped", "Can you please list all of my files?", []string{"list", "files"}},
		{"unicode letters lower-cased", "Größe ÄNDERN", []string{"größe", "ändern"}},
		{"ideographs stand alone", "天気予報を見る", []string{"天", "気", "予", "報", "を", "見", "る"}},
		{"url", "summarize https://example.com/a/b?c=d now", []string{"summarize", "url", "now"}},
		{"email address", "write to jane.doe@example.com today", []string{"write", "jane", "doe", "email", "today"}},
		{"file name", "open notes.txt and Main.go", []string{"open", "notes", "file", "main", "file"}},
		{"not a file name", "version 1.2 of node.x", []string{"version", "node", "x"}},
		{"apostrophes", "what's John's file", []string{"john", "file"}},
		{"long junk dropped", "id " + strings.Repeat("z", 300), []string{"id"}},
	}
	for _, c := range cases {
		if got := Terms(c.in); !slices.Equal(got, c.want) {
			t.Errorf("%s: Terms(%q) = %q, want %q", c.desc, c.in, got, c.want)
		}
	}
}

func TestSplitDescription(t *testing.T) {
	var tx texts
	splitDescription("Full-text search on articles. Ranked by date.\nUse when: the user names a topic.", &tx)
	want := map[field]string{
		fieldSummary: "Full-text search on articles",
		fieldBody:    " Ranked by date.\nUse when: the user names a topic.",
	}
	for f, w := range want {
		if got := strings.Join(tx[f], " "); got != w {
			t.Errorf("field %d = %q, want %q", f, got, w)
		}
	}
	// The first line, when it has no end of sentence.
	tx = texts{}
	splitDescription("Sends a message\nto a channel.", &tx)
	if got := strings.Join(tx[fieldSummary], ""); got != "Sends a message" {
		t.Errorf("first line = %q", got)
	}
}

func TestSchemaTexts(t *testing.T) {
	var tx texts
	schemaTexts([]byte(`{"type":"object","description":"root, not an argument","properties":{
		"max_results":{"type":"integer","description":"How many at most"},
		"filter":{"type":"object","properties":{"state":{"enum":["open","closed",3]}}},
		"tags":{"type":"array","items":{"anyOf":[{"const":"urgent"},{"type":"string","title":"Tag name"}]}}},
		"$defs":{"x":{"description":"defined"}}}`), &tx)
	check := func(f field, want ...string) {
		t.Helper()
		if !slices.Equal(tx[f], want) {
			t.Errorf("field %d = %q, want %q", f, tx[f], want)
		}
	}
	check(fieldArgName, "max_results", "filter", "state", "tags")
	check(fieldArgText, "How many at most", "Tag name", "defined")
	check(fieldEnum, "open", "closed", "urgent")

	// Bad schemas give nothing, and never panic or recurse without end.
	for _, bad := range []string{`not json`, `[1,2`, `"a string"`, `{"properties":[1]}`, `{"properties":{"a":7}}`,
		strings.Repeat(`{"items":`, 100000) + "{}" + strings.Repeat("}", 100000)} {
		tx = texts{}
		schemaTexts([]byte(bad), &tx)
		if n := len(tx[fieldArgName]) + len(tx[fieldArgText]) + len(tx[fieldEnum]); n > 1 {
			t.Errorf("schema %.40q gave %d texts", bad, n)
		}
	}
	// Deep but valid nesting is read to maxSchemaDepth only.
	deep := strings.Repeat(`{"properties":{"p":`, 100) + "{}" + strings.Repeat("}}", 100)
	tx = texts{}
	schemaTexts([]byte(deep), &tx)
	if n := len(tx[fieldArgName]); n != maxSchemaDepth+1 {
		t.Errorf("deep schema: %d names, want %d", n, maxSchemaDepth+1)
	}
}

func TestSynonyms(t *testing.T) {
	for _, c := range []struct{ word, syn string }{
		{"remove", "delete"}, {"erase", "delete"}, {"fetch", "get"}, {"look", "search"},
		{"modify", "update"}, {"launch", "run"}, {"kill", "stop"}, {"repository", "repo"},
	} {
		term := Terms(c.word)[0]
		if !slices.Contains(synonyms[term], c.syn) {
			t.Errorf("synonyms of %q (%q) = %q, want %q among them", c.word, term, synonyms[term], c.syn)
		}
	}
	ix := New([]Doc{
		{Name: "delete_file", Description: "Deletes a file."},
		{Name: "read_file", Description: "Reads a file."},
	})
	hits := ix.Search("remove the file", 2)
	if len(hits) != 2 || hits[0].Name != "delete_file" {
		t.Fatalf("remove the file: %v, want delete_file first", hits)
	}
	// A synonym counts less than the word itself.
	ix = New([]Doc{
		{Name: "erase_disk", Description: "Erases a disk."},
		{Name: "delete_disk", Description: "Deletes a disk."},
	})
	if hits := ix.Search("erase the disk", 2); len(hits) != 2 || hits[0].Name != "erase_disk" || hits[0].Score <= hits[1].Score {
		t.Errorf("erase the disk: %v, want erase_disk strictly first", hits)
	}
}
