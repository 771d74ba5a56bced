package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// TestDemo runs the demo host and checks that its conversation goes as
// the README tells: the hidden tool refused, then found and listed last;
// the supervised publish held with its preview and approved; the delete
// after outside content held and denied, the article still there; the
// publish undone.
func TestDemo(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out, io.Discard); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	text := out.String()
	i := strings.Index(text, "# a conversation (runtime.Session)")
	if i < 0 {
		t.Fatalf("no conversation part:\n%s", text)
	}
	rest := text[i:]
	for _, want := range []string{
		"search_tools_by_keywords, search_tools_by_regex\n",
		"(sent to Anthropic as ",
		"delete_article sent deferred",
		`"code": "not_found"`,
		"tool delete_article is not listed to you yet",
		`"name": "delete_article"`,
		"search_tools_by_keywords, search_tools_by_regex, delete_article\n",
		`"code": "approval_required"`,
		`would publish article 7 ("Retrieval augmented generation, explained" becomes public on the blog)`,
		`"url": "https://example.com/blog/7"`,
		`article 7 "Retrieval augmented generation, explained" is published`,
		`"untrusted": "<untrusted-`,
		"content from outside (tool:fetch_web_page) entered this conversation this turn",
		"would delete article 42",
		`"code": "permission_denied"`,
		"the web page asked for this, not me",
		`article 42 "pgvector in production" is published`,
		"reverted publish_article",
		`article 7 "Retrieval augmented generation, explained" is a draft`,
	} {
		j := strings.Index(rest, want)
		if j < 0 {
			t.Fatalf("the conversation lacks, at this point, %q:\n%s", want, text[i:])
		}
		rest = rest[j+len(want):]
	}
}
