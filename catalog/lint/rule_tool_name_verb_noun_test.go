package lint

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/catalog"
)

// verbNounFindings runs TOOL_NAME_VERB_NOUN on a catalog of the given
// tool names and returns, per name with a finding, the name it suggests.
func verbNounFindings(t *testing.T, names []string) map[string]string {
	t.Helper()
	var src strings.Builder
	src.WriteString("tools:\n")
	for _, n := range names {
		fmt.Fprintf(&src, "  %q:\n    description: A tool.\n", n)
	}
	cat, err := catalog.LoadFiles(catalog.File{Name: "c.yaml", Data: []byte(src.String())})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, d := range RunRule(ToolNameVerbNoun, cat, nil) {
		m := suggestion.FindStringSubmatch(d.Message)
		if m == nil {
			t.Fatalf("finding without a suggestion: %s", d)
		}
		got[d.Tool] = m[1]
	}
	return got
}

var suggestion = regexp.MustCompile(`such as "([^"]+)"`)

// TestToolNameVerbNounCatalogs checks the heuristic on whole catalogs:
// what is a namespace, what is reported, and what is suggested.
func TestToolNameVerbNounCatalogs(t *testing.T) {
	for _, tc := range []struct {
		desc  string
		names []string
		want  map[string]string // name -> suggested name; absent: no finding
	}{
		{
			desc:  "a verb shared by most tools is no namespace",
			names: []string{"get_current_weather", "get_forecast", "get_alerts", "list_stations"},
			want:  map[string]string{},
		},
		{
			desc:  "a prefix before the verb is a namespace",
			names: []string{"team_api_get_self", "team_api_list_members", "github_list_issues", "github_create_issue"},
			want:  map[string]string{},
		},
		{
			desc:  "a name that ends in its verb is turned round, the verb not repeated",
			names: []string{"issue_read", "team_api_self_get", "orders_refund", "list_issues"},
			want:  map[string]string{"issue_read": "read_issue", "team_api_self_get": "get_team_api_self", "orders_refund": "refund_orders"},
		},
		{
			desc:  "the prefix other names put before their verb stays in front",
			names: []string{"team_api_get_self", "team_api_list_members", "team_api_profile_get", "api_billing_get", "billing_invoice_get", "list_invoices", "create_invoice"},
			want:  map[string]string{"team_api_profile_get": "team_api_get_profile", "api_billing_get": "get_api_billing", "billing_invoice_get": "get_billing_invoice"},
		},
		{
			desc:  "a name with no verb gets one",
			names: []string{"directory_tree", "sequentialthinking", "weather"},
			want:  map[string]string{"directory_tree": "get_directory_tree", "sequentialthinking": "get_sequentialthinking", "weather": "get_weather"},
		},
		{
			desc: "a shared first word that is no verb is the catalog's namespace",
			names: []string{"git_status", "git_diff_unstaged", "git_diff_staged", "git_diff", "git_commit", "git_add",
				"git_reset", "git_log", "git_create_branch", "git_checkout", "git_show", "git_branch", "git_staged_changes"},
			want: map[string]string{"git_staged_changes": "git_get_staged_changes"},
		},
		{
			desc:  "the namespace stays in front when the verb moves",
			names: []string{"git_commit", "git_add", "git_staged_diff", "git_status"},
			want:  map[string]string{"git_staged_diff": "git_diff_staged"},
		},
		{
			desc:  "two namespaces of half the tools each",
			names: []string{"svn_status", "svn_commit", "svn_update", "git_status", "git_commit", "git_log"},
			want:  map[string]string{},
		},
		{
			desc:  "a verb alone names no object",
			names: []string{"summarize", "echo", "fetch"},
			want:  map[string]string{"summarize": "summarize_<object>", "echo": "echo_<object>", "fetch": "fetch_<object>"},
		},
		{
			desc: "github-mcp-server names",
			names: []string{"actions_get", "actions_list", "actions_run_trigger", "add_issue_comment", "get_me",
				"issue_read", "issue_write", "sub_issue_write", "projects_list", "ui_get", "list_issues",
				"search_code", "create_or_update_file", "mark_all_notifications_read", "find_duplicate_ff_duplicate_detection",
				"issue_dependency_read_ff_issue_dependencies", "get_team_members", "star_repository", "unresolve_review_thread"},
			want: map[string]string{
				"actions_get": "get_actions", "actions_list": "list_actions", "actions_run_trigger": "trigger_actions_run",
				"issue_read": "read_issue", "issue_write": "write_issue", "sub_issue_write": "write_sub_issue",
				"projects_list": "list_projects", "ui_get": "get_ui",
			},
		},
		{
			desc: "MCP reference server names, hyphenated and camelCase",
			names: []string{"get-tiny-image", "trigger-long-running-operation", "gzip-file-as-resource", "toggle-simulated-logging",
				"read_text_file", "list_directory_with_sizes", "create_entities", "open_nodes", "get_current_time", "convert_time",
				"sampleLLM", "printEnv", "annotatedMessage"},
			want: map[string]string{"annotatedMessage": "get_annotated_message"},
		},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			got := verbNounFindings(t, tc.names)
			for _, n := range tc.names {
				if got[n] != tc.want[n] {
					t.Errorf("%s: suggests %q, want %q", n, got[n], tc.want[n])
				}
			}
			for name, s := range got {
				checkSuggestion(t, name, s)
			}
		})
	}
}

// checkSuggestion checks that a suggested name keeps every word of the
// name, has exactly one more verb than it only when it had none, and
// starts with a verb after any namespace.
func checkSuggestion(t *testing.T, name, s string) {
	t.Helper()
	verbs := DefaultConfig().Verbs
	count := func(words []string) int {
		n := 0
		for _, w := range words {
			if slices.Contains(verbs, w) {
				n++
			}
		}
		return n
	}
	nw, sw := nameWords(name), nameWords(s)
	for _, w := range nw {
		if !slices.Contains(sw, w) {
			t.Errorf("%s: suggestion %q drops %q", name, s, w)
		}
	}
	want := count(nw)
	if want == 0 {
		want = 1
	}
	if got := count(sw); got != want {
		t.Errorf("%s: suggestion %q has %d verbs, want %d", name, s, got, want)
	}
}

// TestVerbNounSuggestionsNeverRepeatAVerb runs every verb in the places a
// name can hold it and checks each suggestion.
func TestVerbNounSuggestionsNeverRepeatAVerb(t *testing.T) {
	v := verbNoun{verbs: DefaultConfig().Verbs, namespaces: []string{"acme"}, prefixes: [][]string{{"team", "api"}, {"invoice"}}}
	for _, verb := range v.verbs {
		for _, name := range []string{
			verb, verb + "_invoice", "invoice_" + verb, "acme_invoice_" + verb, "acme_" + verb,
			"team_api_" + verb + "_self", "team_api_self_" + verb, "acme_" + verb + "_invoice",
		} {
			msg := v.check(name, nameWords(name), "<object>")
			m := suggestion.FindStringSubmatch(msg)
			if msg != "" && m == nil {
				t.Fatalf("%s: finding without a suggestion: %s", name, msg)
			}
			if m != nil && !strings.Contains(m[1], "<object>") {
				checkSuggestion(t, name, m[1])
			}
		}
	}
}
