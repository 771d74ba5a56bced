package lint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/catalog/internal/config"
)

func marshal(t *testing.T, b *Baseline) []byte {
	t.Helper()
	data, err := b.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func runOn(t *testing.T, src string) []Diagnostic {
	t.Helper()
	cat, err := catalog.LoadFiles(catalog.File{Name: "c.yaml", Data: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	return Run(cat, nil)
}

// TestBaselineSurvivesUnrelatedEdits writes a baseline, edits the catalog
// in ways that move every finding (a tool added above, tools reordered,
// lines reflowed, a description lengthened but still too short) and checks
// that only the new tool's findings are fresh.
func TestBaselineSurvivesUnrelatedEdits(t *testing.T) {
	const before = `tools:
  list_orders:
    description: Lists orders.
    args:
      type: object
      properties:
        status: {type: string}
  refund_order:
    description: Refunds an order.
    has_side_effects: true
`
	const after = `tools:
  new_thing:
    description: New.


  refund_order:
    has_side_effects: true
    description: Refunds one order.
  list_orders:
    description: Lists orders.
    args:
      type: object
      properties:
        status:
          type: string
`
	old := runOn(t, before)
	if len(old) < 4 {
		t.Fatalf("want several findings before, got %v", diagLines(old))
	}
	b, err := ParseBaseline("baseline.yaml", marshal(t, NewBaseline(old)))
	if err != nil {
		t.Fatal(err)
	}
	fresh, accepted, stale := b.Apply(runOn(t, after))
	for _, d := range fresh {
		if d.Tool != "new_thing" {
			t.Errorf("fresh finding not on the new tool: %s", d)
		}
	}
	if len(fresh) == 0 {
		t.Errorf("the new tool's findings are not reported")
	}
	if len(accepted) != len(old) || stale.Len() != 0 {
		t.Errorf("accepted %d of %d, stale %v", len(accepted), len(old), stale)
	}
}

// TestBaselineCounts checks multiplicity and stale entries.
func TestBaselineCounts(t *testing.T) {
	d := func(tool, msg string) Diagnostic {
		return Diagnostic{RuleID: "SCHEMA_OBJECT_CLOSED", Tool: tool, Message: msg, Severity: Warning}
	}
	b := NewBaseline([]Diagnostic{d("a", "object at args/properties/x is open"), d("b", "gone")})
	now := []Diagnostic{
		d("a", "object at args/properties/x is open"),
		d("a", "object at args/properties/x is open"),
		d("a", "object at args/properties/y is open"),
		d("b", "gone, but for tool a"),
	}
	fresh, accepted, stale := b.Apply(now)
	if diff := cmp.Diff(now[1:], fresh); diff != "" {
		t.Errorf("fresh (-want +got):\n%s", diff)
	}
	if len(accepted) != 1 {
		t.Errorf("accepted %v, want one", accepted)
	}
	if diff := cmp.Diff([]BaselineEntry{{Rule: "SCHEMA_OBJECT_CLOSED", Tool: "b", Message: "gone"}}, stale.Findings); diff != "" {
		t.Errorf("stale (-want +got):\n%s", diff)
	}

	two := NewBaseline(now[:2])
	if len(two.Findings) != 1 || two.Findings[0].Count != 2 || two.Len() != 2 {
		t.Errorf("two equal findings give %+v, want one entry of count 2", two.Findings)
	}
	fresh, _, stale = two.Apply(now[:1])
	if len(fresh) != 0 || len(stale.Findings) != 1 || stale.Len() != 1 {
		t.Errorf("one of two fixed: fresh %v, stale %+v; want one stale of count 1", fresh, stale)
	}
}

// TestBaselineNumbers checks that measures in messages do not matter but
// digits in names do.
func TestBaselineNumbers(t *testing.T) {
	d := func(msg string) Diagnostic { return Diagnostic{RuleID: "R", Tool: "t", Message: msg} }
	b := NewBaseline([]Diagnostic{
		d("description is 31 characters, shorter than 40"),
		d(`property "sha256" has no description`),
	})
	fresh, _, _ := b.Apply([]Diagnostic{
		d("description is 35 characters, shorter than 40"),
		d(`property "sha512" has no description`),
	})
	if len(fresh) != 1 || !strings.Contains(fresh[0].Message, "sha512") {
		t.Errorf("fresh %v, want only the sha512 finding", fresh)
	}
}

// TestBaselineFile checks that the file is sorted, stable and readable.
func TestBaselineFile(t *testing.T) {
	diags := []Diagnostic{
		{RuleID: "B_RULE", Tool: "zeta", Message: "z"},
		{RuleID: "A_RULE", Tool: "alpha", Message: "a: \"quoted\""},
		{RuleID: "CATALOG", Message: "catalog-wide"},
		{RuleID: "A_RULE", Tool: "alpha", Message: "a: \"quoted\""},
	}
	got := string(marshal(t, NewBaseline(diags)))
	want := `# Lint findings accepted when this file was written by toolcat lint --write-baseline.
# toolcat lint --baseline FILE reports only the findings not listed here.
version: 1
findings:
  - rule: CATALOG
    message: catalog-wide
  - rule: A_RULE
    tool: alpha
    message: 'a: "quoted"'
    count: 2
  - rule: B_RULE
    tool: zeta
    message: z
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("baseline file (-want +got):\n%s", diff)
	}
	rev := []Diagnostic{diags[3], diags[2], diags[1], diags[0]}
	if again := string(marshal(t, NewBaseline(rev))); again != got {
		t.Errorf("baseline depends on the order of findings:\n%s", again)
	}
	b, err := ParseBaseline("b.yaml", []byte(got))
	if err != nil {
		t.Fatal(err)
	}
	if string(marshal(t, b)) != got {
		t.Errorf("baseline does not read back as written")
	}
	if empty := string(marshal(t, NewBaseline(nil))); !strings.HasSuffix(empty, "version: 1\nfindings: []\n") {
		t.Errorf("empty baseline:\n%s", empty)
	}
}

func TestParseBaselineErrors(t *testing.T) {
	for _, tc := range []struct{ desc, src, want string }{
		{"empty", "", "b.yaml: empty baseline"},
		{"not yaml", "findings: [\n", "b.yaml:"},
		{"unknown key", "version: 1\nfindings:\n  - rule: X\n    messag: y\n", "b.yaml:4: field messag not found"},
		{"wrong version", "version: 7\nfindings: []\n", "b.yaml:1:10: baseline version 7 is not 1"},
		{"no version", "findings: []\n", "b.yaml: baseline version 0 is not 1"},
		{"no rule", "version: 1\nfindings:\n  - message: y\n", "b.yaml:3:5: baseline entry 1 has no rule"},
		{"no message", "version: 1\nfindings:\n  - rule: X\n  - rule: Y\n", "b.yaml:3:5: baseline entry 1 has no message"},
		{"negative count", "version: 1\nfindings:\n  - {rule: X, message: y, count: -2}\n", "b.yaml:3:34: baseline entry 1 has count -2"},
		{"wrong type", "version: 1\nfindings: {rule: X}\n", "b.yaml:2: cannot unmarshal"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			_, err := ParseBaseline("b.yaml", []byte(tc.src))
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %v, want one starting %q", err, tc.want)
			}
		})
	}
}

// TestLoadLimits checks that a configuration or baseline path naming
// something huge fails with an error instead of reading it all.
func TestLoadLimits(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(big, []byte("# "+strings.Repeat("x", config.MaxSize)+"\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(big); err == nil || !strings.Contains(err.Error(), "above the 1 MiB limit of a configuration file") {
		t.Errorf("LoadConfig: %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err != nil {
		return // no endless file to read here
	}
	if _, err := ReadLimited("/dev/zero", 1<<10, "baseline"); err == nil || !strings.Contains(err.Error(), "limit of a baseline file") {
		t.Errorf("reading an endless file: %v", err)
	}
}
