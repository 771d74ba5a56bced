package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/catalog/lint"
)

var sample = Input{
	Diagnostics: []lint.Diagnostic{
		{RuleID: "TOOL_NAME_GENERIC", Severity: lint.Warning, Pos: catalog.Pos{File: "tools/a.yaml", Line: 3, Col: 3}, Tool: "search", Message: `tool name "search" is too generic`},
		{RuleID: "FALLBACK_VALID", Severity: lint.Error, Pos: catalog.Pos{File: "tools/a.yaml", Line: 9, Col: 5}, Tool: "delete_user", Message: "fallback_tool \"x\" is not a tool,\nsee 100%"},
	},
	Rules: []RuleInfo{
		{ID: "FALLBACK_VALID", Category: "graph", Purpose: "Checks fallbacks. More words.", Severity: lint.Error},
		{ID: "TOOL_NAME_GENERIC", Category: "names", Purpose: "Checks names.", Severity: lint.Warning},
	},
	Version: "v1.0.0",
}

func TestText(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, "text", sample); err != nil {
		t.Fatal(err)
	}
	want := "tools/a.yaml:3:3: warning TOOL_NAME_GENERIC: tool name \"search\" is too generic\n" +
		"tools/a.yaml:9:5: error FALLBACK_VALID: fallback_tool \"x\" is not a tool,\nsee 100%\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Error(diff)
	}
}

func TestGitHubEscapes(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, "github", sample); err != nil {
		t.Fatal(err)
	}
	want := "::warning file=tools/a.yaml,line=3,col=3,title=TOOL_NAME_GENERIC::tool name \"search\" is too generic\n" +
		"::error file=tools/a.yaml,line=9,col=5,title=FALLBACK_VALID::fallback_tool \"x\" is not a tool,%0Asee 100%25\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Error(diff)
	}
}

func TestJSON(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, "json", sample); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Diagnostics []map[string]any
		Summary     Counts
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Summary != (Counts{Errors: 1, Warnings: 1}) || len(got.Diagnostics) != 2 || got.Diagnostics[1]["line"] != 9.0 || got.Diagnostics[1]["tool"] != "delete_user" {
		t.Errorf("unexpected JSON report: %s", b.String())
	}
}

// The SARIF log carries what GitHub code scanning requires of a 2.1.0
// log: version, driver name and rules, and for each result a rule id that
// indexes the rules, a level, a message and a physical location with a
// relative URI and a 1-based region.
func TestSARIF(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, "sarif", sample); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Schema  string `json:"$schema"`
		Version string
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name, Version string
					Rules         []struct {
						ID                   string
						ShortDescription     struct{ Text string }
						DefaultConfiguration struct{ Level string }
					}
				}
			}
			Results []struct {
				RuleID    string
				RuleIndex int
				Level     string
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI, URIBaseID string }
						Region           struct{ StartLine, StartColumn int }
					}
				}
			}
		}
	}
	dec := json.NewDecoder(&b)
	if err := dec.Decode(&log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || !strings.Contains(log.Schema, "sarif-2.1.0") || len(log.Runs) != 1 {
		t.Fatalf("not a SARIF 2.1.0 log: %+v", log)
	}
	run := log.Runs[0]
	if run.Tool.Driver.Name != "toolcat" || run.Tool.Driver.Version != "v1.0.0" || len(run.Tool.Driver.Rules) != 2 {
		t.Errorf("driver: %+v", run.Tool.Driver)
	}
	if r := run.Tool.Driver.Rules[0]; r.ID != "FALLBACK_VALID" || r.ShortDescription.Text != "Checks fallbacks." || r.DefaultConfiguration.Level != "error" {
		t.Errorf("rule: %+v", r)
	}
	if len(run.Results) != 2 {
		t.Fatalf("results: %+v", run.Results)
	}
	for _, r := range run.Results {
		if run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
			t.Errorf("result %s has ruleIndex %d", r.RuleID, r.RuleIndex)
		}
		loc := r.Locations[0].PhysicalLocation
		if loc.ArtifactLocation.URI != "tools/a.yaml" || loc.ArtifactLocation.URIBaseID != "%SRCROOT%" || loc.Region.StartLine < 1 || loc.Region.StartColumn < 1 {
			t.Errorf("location: %+v", loc)
		}
	}
	if got := run.Results[1]; got.Level != "error" || got.Message.Text == "" {
		t.Errorf("result: %+v", got)
	}
}

func TestUnknownFormat(t *testing.T) {
	if err := Write(&bytes.Buffer{}, "xml", sample); err == nil || !strings.Contains(err.Error(), `unknown format "xml"`) {
		t.Errorf("err = %v", err)
	}
}

// TestBaselineCounts checks that JSON and SARIF say a baseline was
// applied, and that they say nothing of one when none was.
func TestBaselineCounts(t *testing.T) {
	with := sample
	with.Baseline = &BaselineCounts{Accepted: 12, Stale: 3}
	for _, tc := range []struct {
		format, want, without string
	}{
		{"json", `"baseline": {` + "\n" + `    "accepted": 12,` + "\n" + `    "stale": 3` + "\n  }", `"baseline"`},
		{"sarif", `"baselineState": "new"`, `baselineState`},
	} {
		var b bytes.Buffer
		if err := Write(&b, tc.format, with); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(b.String(), tc.want); n == 0 || tc.format == "sarif" && n != len(sample.Diagnostics) {
			t.Errorf("%s: %d times %s in:\n%s", tc.format, n, tc.want, b.String())
		}
		b.Reset()
		if err := Write(&b, tc.format, sample); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), tc.without) {
			t.Errorf("%s without a baseline mentions one:\n%s", tc.format, b.String())
		}
	}
}
