// Package breaking compares a tool catalog with an earlier version of
// itself and reports the changes that break someone: a model's or a
// client's call (WIRE), users' code compiled against the generated Go
// package (GO), the safety a caller relied on (SAFETY), or the prompt a
// model was tuned on (PROMPT).
//
// Each rule is a [Rule] value in a file of its own, as in package lint,
// whose [lint.Diagnostic], [lint.Severity], formatters and catalog
// suppressions it reuses. Which categories run comes from the breaking
// section of toolcat.yaml ([Config]). The earlier version is a [Side]:
// a catalog loaded from a directory or a git revision, or a lock file
// written by [WriteLock].
package breaking

import (
	"fmt"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/catalog/lint"
)

// Side is one version of a catalog as breaking compares it.
type Side struct {
	// Catalog is the catalog, with source positions.
	Catalog *catalog.Catalog
	// GoAPI is the exported Go API generated for each tool, by tool name
	// (see [GoAPI]); nil when unknown, which turns the GO rules off.
	GoAPI map[string]API
}

// Rule is one breaking-change check.
type Rule struct {
	// ID names the rule in configuration, suppressions and output.
	ID string
	// Category is WIRE, GO, SAFETY or PROMPT.
	Category string
	// Purpose says in one sentence what the rule reports and why.
	Purpose string
	// Check reports the rule's findings.
	Check func(*Pass)
}

// Pass is one rule's run over one pair of catalogs.
type Pass struct {
	Old, New *Side
	Rule     *Rule
	// Pairs are the tools present in both versions, matched by name or by
	// the new tool's renamed_from, in the new catalog's order.
	Pairs []Pair
	// Removed are the old tools with no counterpart in the new catalog.
	Removed []*catalog.Tool
	diags   []lint.Diagnostic
}

// Pair is one tool in its old and new versions.
type Pair struct {
	Old, New *catalog.Tool
}

// Reportf records a finding at pos about the tool called tool.
func (p *Pass) Reportf(tool string, pos catalog.Pos, format string, args ...any) {
	p.diags = append(p.diags, lint.Diagnostic{RuleID: p.Rule.ID, Pos: pos, Tool: tool, Message: fmt.Sprintf(format, args...)})
}

// forEachPair adapts a per-tool check into a rule's Check.
func forEachPair(check func(p *Pass, old, new *catalog.Tool)) func(*Pass) {
	return func(p *Pass) {
		for _, pr := range p.Pairs {
			check(p, pr.Old, pr.New)
		}
	}
}

// Run compares new with old under cfg (nil: [DefaultConfig]), applies the
// new catalog's suppressions, and returns the findings sorted by position.
func Run(old, new *Side, cfg *Config) []lint.Diagnostic {
	if cfg == nil {
		cfg = DefaultConfig()
	}
	pairs, removed := match(old.Catalog, new.Catalog)
	var all []lint.Diagnostic
	for _, r := range Rules {
		sev := cfg.Severity(r.ID)
		if sev == lint.Off {
			continue
		}
		p := &Pass{Old: old, New: new, Rule: r, Pairs: pairs, Removed: removed}
		r.Check(p)
		for i := range p.diags {
			p.diags[i].Severity = sev
		}
		all = append(all, p.diags...)
	}
	all = suppress(new.Catalog, all)
	lint.Sort(all)
	return all
}

// RunRule runs one rule on the pair, without suppressions, at the
// severity of its category.
func RunRule(r *Rule, old, new *Side) []lint.Diagnostic {
	pairs, removed := match(old.Catalog, new.Catalog)
	p := &Pass{Old: old, New: new, Rule: r, Pairs: pairs, Removed: removed}
	r.Check(p)
	for i := range p.diags {
		p.diags[i].Severity = categorySeverity[r.Category]
	}
	lint.Sort(p.diags)
	return p.diags
}

// match pairs the tools of both catalogs: by name, or, for a new tool
// that declares renamed_from, with the old tool of that name when the old
// catalog has no tool of the new name.
func match(old, new *catalog.Catalog) ([]Pair, []*catalog.Tool) {
	used := map[string]bool{}
	var pairs []Pair
	for _, t := range new.Tools {
		o := old.Tool(t.Name)
		if o == nil {
			for _, from := range t.RenamedFrom {
				if x := old.Tool(from); x != nil && new.Tool(from) == nil && !used[from] {
					o = x
					break
				}
			}
		}
		if o != nil {
			used[o.Name] = true
			pairs = append(pairs, Pair{Old: o, New: t})
		}
	}
	var removed []*catalog.Tool
	for _, t := range old.Tools {
		if !used[t.Name] {
			removed = append(removed, t)
		}
	}
	return pairs, removed
}

// suppress drops the findings that the new catalog's suppressions of
// breaking rules silence: a tool's own, or the catalog's. A removed tool
// has no entry to carry one; its removal is accepted by the catalog-wide
// suppression or a renamed_from.
func suppress(cat *catalog.Catalog, diags []lint.Diagnostic) []lint.Diagnostic {
	out := diags[:0]
	for _, d := range diags {
		if !suppressed(cat, d) {
			out = append(out, d)
		}
	}
	return out
}

func suppressed(cat *catalog.Catalog, d lint.Diagnostic) bool {
	for _, s := range cat.Suppress {
		if s.Rule == d.RuleID {
			return true
		}
	}
	if t := cat.Tool(d.Tool); t != nil {
		for _, s := range t.Suppress {
			if s.Rule == d.RuleID {
				return true
			}
		}
	}
	return false
}

// Lookup returns the rule with the given ID, or nil.
func Lookup(id string) *Rule {
	for _, r := range Rules {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// IsRule reports whether id names a breaking rule, so that lint can
// leave suppressions of breaking rules alone.
func IsRule(id string) bool { return Lookup(id) != nil }
