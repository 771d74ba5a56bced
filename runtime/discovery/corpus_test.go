package discovery

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corpusRequests are requests written for the real tool lists of the test
// corpus (the GitHub MCP server's 117 tools and the MCP reference
// servers'), which are read from it, not copied. A want of a|b accepts
// either tool.
var corpusRequests = []struct{ query, want string }{
	{"show me the diff of my staged changes", "git_diff_staged"},
	{"what changes have I not staged yet", "git_diff_unstaged|git_status"},
	{"what's the status of my working tree", "git_status"},
	{"commit my changes with the message fix typo", "git_commit"},
	{"switch to the develop branch", "git_checkout"},
	{"show the recent commit history of the local repo", "git_log"},
	{"stage README.md for the next commit", "git_add"},
	{"unstage everything", "git_reset"},
	{"what time is it in Tokyo", "get_current_time"},
	{"convert 3pm London time to New York time", "convert_time"},
	{"download https://go.dev and give me its text", "fetch"},
	{"create a folder called build", "create_directory"},
	{"show the directory tree of src", "directory_tree"},
	{"how big are the files in this folder", "list_directory_with_sizes"},
	{"find all files named *.test.js", "search_files"},
	{"when was main.go last modified", "get_file_info"},
	{"read these three files at once", "read_multiple_files"},
	{"show me this image file", "read_media_file"},
	{"replace foo with bar in config.py", "edit_file"},
	{"which directories am I allowed to access", "list_allowed_directories"},
	{"add Alice as a new entity in the knowledge graph", "create_entities"},
	{"what do you know about Bob in memory", "search_nodes|open_nodes"},
	{"open a new issue about the flaky test", "create_issue|issue_write"},
	{"comment on issue 12 that it is done", "add_issue_comment"},
	{"list the open pull requests of toolcat", "list_pull_requests|search_pull_requests"},
	{"merge PR 34", "merge_pull_request"},
	{"fork the kubernetes repository", "fork_repository"},
	{"star this repository", "star_repository"},
	{"make a new repository called dotfiles", "create_repository"},
	{"who am I logged in as on github", "get_me"},
	{"show my github notifications", "list_notifications"},
	{"mark all notifications as read", "mark_all_notifications_read"},
	{"what is the latest release of cli/cli", "get_latest_release"},
	{"list the tags of the repo", "list_tags"},
	{"get the logs of the failed CI job", "get_job_logs"},
	{"re-run the failed workflow", "actions_run_trigger"},
	{"find github users named torvalds", "search_users"},
	{"search for repositories about vector databases", "search_repositories"},
	{"find code that calls os.Exit across github", "search_code"},
	{"who last changed each line of main.go", "get_file_blame"},
	{"list the dependabot alerts", "list_dependabot_alerts"},
	{"are there any leaked secrets in the repo", "list_secret_scanning_alerts|get_secret_scanning_alert"},
	{"ask alice to review my pull request", "request_pull_request_reviewers"},
	{"change the title of issue 7", "update_issue_title|issue_write"},
	{"add the bug label to issue 9", "update_issue_labels|issue_write"},
	{"assign issue 5 to bob", "update_issue_assignees|issue_write"},
	{"close issue 3 as completed", "update_issue_state|issue_write"},
	{"create a gist with this snippet", "create_gist"},
	{"push these files to github in one commit", "push_files"},
	{"who is in the platform team", "get_team_members"},
	{"list the collaborators of the repo", "list_repository_collaborators"},
	{"echo back hello", "echo"},
	{"add two numbers together", "get-sum"},
	{"show the contents of a file in a github repository", "get_file_contents"},
	{"delete the repository old-stuff", "delete_repository"},
	{"think through this problem step by step", "sequentialthinking"},
	{"which commits touched the parser", "search_commits|list_commits"},
	{"list branches of the repo on github", "list_branches"},
}

// corpusDocs reads the tool lists of the corpus in $TOOLCAT_CORPUS, which
// `make test-corpus` sets.
func corpusDocs(t testing.TB) []Doc {
	dir := os.Getenv("TOOLCAT_CORPUS")
	if dir == "" {
		t.Skip("TOOLCAT_CORPUS is not set: `make test-corpus` runs this test on a corpus of real tool definitions")
	}
	type tool struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	var docs []Doc
	add := func(tl tool) {
		docs = append(docs, Doc{Name: tl.Name, Description: tl.Description, Args: tl.InputSchema})
	}
	snaps, _ := filepath.Glob(filepath.Join(dir, "github-mcp-server", "__toolsnaps__", "*.snap"))
	for _, f := range snaps {
		var tl tool
		if b, err := os.ReadFile(f); err == nil && json.Unmarshal(b, &tl) == nil {
			add(tl)
		}
	}
	lists, _ := filepath.Glob(filepath.Join(dir, "mcp-reference-servers", "*.tools.json"))
	for _, f := range lists {
		var l struct{ Tools []tool }
		if b, err := os.ReadFile(f); err == nil && json.Unmarshal(b, &l) == nil {
			for _, tl := range l.Tools {
				add(tl)
			}
		}
	}
	return docs
}

func TestCorpusQuality(t *testing.T) {
	docs := corpusDocs(t)
	if len(docs) < 100 {
		t.Fatalf("%d tools in the corpus at $TOOLCAT_CORPUS; the requests below need its GitHub and reference MCP servers", len(docs))
	}
	ix := New(docs)
	names := map[string]bool{}
	for _, d := range docs {
		names[d.Name] = true
	}
	for _, r := range corpusRequests {
		for _, w := range strings.Split(r.want, "|") {
			if !names[w] {
				t.Fatalf("request %q wants %q, not in the corpus", r.query, w)
			}
		}
	}
	q := measure(ix, corpusRequests)
	t.Logf("corpus: %d requests over %d tools: recall@1 %.3f, recall@5 %.3f, MRR %.3f", q.n, ix.Len(), q.recall1, q.recall5, q.mrr)
	for _, m := range q.misses {
		t.Log("  ", m)
	}
	if q.recall5 < 0.85 {
		t.Errorf("corpus recall@5 %.3f (floor 0.85)", q.recall5)
	}
}
