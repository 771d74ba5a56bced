package lint

import (
	"github.com/toolcat/toolcat/catalog"
)

// SuppressionUnused reports suppressions that silence nothing, so that
// stale ones are removed instead of hiding the next real finding.
var SuppressionUnused = &Rule{
	ID:       "SUPPRESSION_UNUSED",
	Category: "catalog",
	Purpose:  "Reports suppressions that no longer silence any finding, or that name an unknown rule, so stale ones are removed.",
	// Check is empty: Run reports this rule itself, once every other
	// rule has run.
	Check: func(*Pass) {},
}

// applySuppressions drops the findings that the catalog's suppressions
// silence, and reports the suppressions that silenced nothing.
func applySuppressions(cat *catalog.Catalog, cfg *Config, diags []Diagnostic) []Diagnostic {
	type sup struct {
		s    catalog.Suppression
		tool *catalog.Tool // nil: catalog-wide
		used bool
	}
	var sups []*sup
	byTool := map[string][]*sup{}
	for _, s := range cat.Suppress {
		sups = append(sups, &sup{s: s})
	}
	for _, t := range cat.Tools {
		for _, s := range t.Suppress {
			x := &sup{s: s, tool: t}
			sups = append(sups, x)
			byTool[t.Name] = append(byTool[t.Name], x)
		}
	}
	if len(sups) == 0 {
		return diags
	}
	out := diags[:0]
	for _, d := range diags {
		suppressed := false
		for _, s := range byTool[d.Tool] {
			if s.s.Rule == d.RuleID {
				s.used, suppressed = true, true
			}
		}
		for _, s := range sups {
			if s.tool == nil && s.s.Rule == d.RuleID {
				s.used, suppressed = true, true
			}
		}
		if !suppressed {
			out = append(out, d)
		}
	}
	sev := cfg.severity(SuppressionUnused.ID)
	if sev == Off {
		return out
	}
	for _, s := range sups {
		if s.used || Lookup(s.s.Rule) == nil && cfg.Foreign != nil && cfg.Foreign(s.s.Rule) {
			continue
		}
		d := Diagnostic{RuleID: SuppressionUnused.ID, Severity: sev, Pos: s.s.Pos}
		if s.tool != nil {
			d.Tool = s.tool.Name
		}
		if !d.Pos.IsValid() {
			d.Pos = cat.Pos
			if s.tool != nil {
				d.Pos = s.tool.PosOf("suppress")
			}
		}
		switch {
		case Lookup(s.s.Rule) == nil:
			d.Message = "suppression names unknown rule " + s.s.Rule + "; see toolcat lint --rules"
		case cfg.severity(s.s.Rule) == Off:
			d.Message = "suppression of " + s.s.Rule + " is not needed: the rule is off in the configuration; remove it"
		default:
			d.Message = "suppression of " + s.s.Rule + " silences nothing; remove it"
		}
		out = append(out, d)
	}
	return out
}
