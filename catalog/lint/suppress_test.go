package lint

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcat/toolcat/catalog"
)

func TestSuppressions(t *testing.T) {
	const src = `suppress:
  - rule: VERSION_SEMVER
    reason: versions are dates in this catalog
  - rule: TOOL_CONFUSABLE
    reason: kept from an older layout
tools:
  list_orders:
    description: |
      Lists the orders of one customer, newest first.
      Use when: the user asks about past orders. Do not use: for refunds.
    version: "2024.05"
    risk: high
    suppress:
      - rule: DESCRIPTION_LIMITS
        reason: no longer true
      - rule: NO_SUCH_RULE
        reason: typo
  get_order:
    description: Gets one order.
    suppress:
      - rule: DESCRIPTION_LENGTH
        reason: the name says it all
  get_customer:
    description: Gets one customer.
    version: "7"
`
	cat, err := catalog.LoadFiles(catalog.File{Name: "c.yaml", Data: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Rules[ToolNameVerbNoun.ID] = Off
	var got []string
	for _, d := range Run(cat, cfg) {
		if d.RuleID == SuppressionUnused.ID || d.RuleID == VersionSemver.ID || d.RuleID == DescriptionLength.ID {
			got = append(got, d.String())
		}
	}
	want := []string{
		// The catalog-wide VERSION_SEMVER suppression silences both tools;
		// get_order's DESCRIPTION_LENGTH one silences its own finding only.
		"c.yaml:4:5: warning SUPPRESSION_UNUSED: suppression of TOOL_CONFUSABLE silences nothing; remove it",
		"c.yaml:14:9: warning SUPPRESSION_UNUSED: suppression of DESCRIPTION_LIMITS silences nothing; remove it",
		"c.yaml:16:9: warning SUPPRESSION_UNUSED: suppression names unknown rule NO_SUCH_RULE; see toolcat lint --rules",
		"c.yaml:24:5: warning DESCRIPTION_LENGTH: description is 18 characters, shorter than 40; say what the tool does, when to use it and when not to",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

func TestParseConfig(t *testing.T) {
	for _, tc := range []struct {
		desc, src, err string
	}{
		{desc: "unknown key", src: "lint:\n  max_core_tool: 3\n", err: "field max_core_tool not found"},
		{desc: "unknown rule", src: "lint:\n  rules:\n    NO_SUCH_RULE: off\n", err: "unknown rule NO_SUCH_RULE"},
		{desc: "bad severity", src: "lint:\n  rules:\n    VERSION_SEMVER: fatal\n", err: "unknown severity"},
		{desc: "bad threshold", src: "lint:\n  similarity_threshold: 1.5\n", err: "similarity_threshold"},
		{desc: "other sections are left alone", src: "gen:\n  out: x\nlint:\n  max_core_tools: 7\n"},
		{desc: "empty file", src: ""},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			cfg, err := ParseConfig("toolcat.yaml", []byte(tc.src))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				if !strings.HasPrefix(err.Error(), "toolcat.yaml") {
					t.Errorf("error %q does not name the file", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Verbs == nil || cfg.DescriptionMinChars == 0 {
				t.Errorf("defaults lost: %+v", cfg)
			}
		})
	}
	cfg, err := ParseConfig("toolcat.yaml", []byte("lint:\n  extra_verbs: [frobnicate]\n  rules:\n    VERSION_SEMVER: error\n  max_core_tools: 7\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MaxCoreTools != 7 || cfg.Severity(VersionSemver.ID) != Error || cfg.Severity(ToolNameFormat.ID) != Error || cfg.Severity(ToolNameVerbNoun.ID) != Warning {
		t.Errorf("config not applied: %+v", cfg)
	}
	if !containsString(cfg.Verbs, "frobnicate") || !containsString(cfg.Verbs, "list") {
		t.Errorf("extra_verbs not added to the default verbs")
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
