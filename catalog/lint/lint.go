// Package lint checks a tool catalog for everything that makes a language
// model misuse tools: vague names, loose schemas, unsafe side effects,
// broken fallback and dependency graphs, catalogs too large to read.
//
// Each rule is a [Rule] value in a file of its own. Default severities
// live in the nested rule sets ([Minimal], [Basic], [Standard]), and which
// rules run in a [Config] that picks sets, not in the rules; findings are
// plain [Diagnostic] values that the formatters in package report render.
// A [Baseline] holds findings accepted when lint was adopted, so that
// only new ones gate a change.
package lint

import (
	"fmt"
	"runtime"
	"sort"
	"sync"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/runtime/toolscan"
)

// Severity is how much a finding matters.
type Severity int

// Severities, from least to most serious. Off disables a rule.
const (
	Off Severity = iota
	Note
	Warning
	Error
)

var severityNames = [...]string{"off", "note", "warning", "error"}

func (s Severity) String() string {
	if s < 0 || int(s) >= len(severityNames) {
		return fmt.Sprintf("severity(%d)", int(s))
	}
	return severityNames[s]
}

// ParseSeverity reads "off", "note", "warning" or "error".
func ParseSeverity(s string) (Severity, error) {
	for i, n := range severityNames {
		if s == n {
			return Severity(i), nil
		}
	}
	return Off, fmt.Errorf("unknown severity %q; use one of off, note, warning, error", s)
}

// MarshalText implements encoding.TextMarshaler.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	*s = v
	return err
}

// Diagnostic is one finding.
type Diagnostic struct {
	RuleID   string      `json:"rule"`
	Severity Severity    `json:"severity"`
	Pos      catalog.Pos `json:"-"`
	Tool     string      `json:"tool,omitempty"`
	Message  string      `json:"message"`
}

// String formats d as file:line:col: severity RULE_ID: message.
func (d Diagnostic) String() string {
	return fmt.Sprintf("%s: %s %s: %s", d.Pos, d.Severity, d.RuleID, d.Message)
}

// Rule is one lint check.
type Rule struct {
	// ID names the rule in configuration, suppressions and output:
	// upper snake case, such as TOOL_NAME_VERB_NOUN.
	ID string
	// Category groups rules: names, descriptions, schemas, safety, security, graph,
	// catalog.
	Category string
	// Purpose says in one sentence what the rule checks and why.
	Purpose string
	// Check reports the rule's findings on a catalog.
	Check func(*Pass)
}

// Pass is one rule's run over one catalog.
type Pass struct {
	Catalog *catalog.Catalog
	Config  *Config
	Rule    *Rule
	diags   []Diagnostic
	shared  *shared // what the rules of one run share; nil: nothing
}

// shared holds work that several rules of one run would otherwise repeat.
// Rules run one after the other, so it needs no lock.
type shared struct {
	schemas     map[schemaKey][]schemaRef
	security    map[*catalog.Tool][]securityFinding // by tool, from securityFindings
	securityCtx *toolscan.Context                   // from securityContext
}

func newShared() *shared { return &shared{schemas: map[schemaKey][]schemaRef{}} }

// Reportf records a finding at pos, about tool t (nil for the catalog as a
// whole).
func (p *Pass) Reportf(t *catalog.Tool, pos catalog.Pos, format string, args ...any) {
	d := Diagnostic{RuleID: p.Rule.ID, Pos: pos, Message: fmt.Sprintf(format, args...)}
	if t != nil {
		d.Tool = t.Name
	}
	p.diags = append(p.diags, d)
}

// forEachTool adapts a per-tool check into a rule's Check.
func forEachTool(check func(p *Pass, t *catalog.Tool)) func(*Pass) {
	return func(p *Pass) {
		for _, t := range p.Catalog.Tools {
			check(p, t)
		}
	}
}

// forEachToolParallel adapts a per-tool check that costs enough to share
// the tools among one worker per CPU. Each worker gets its own state from
// newState (a schema compiler, say); findings come out in tool order, as
// with forEachTool.
func forEachToolParallel[S any](newState func() S, check func(p *Pass, state S, t *catalog.Tool)) func(*Pass) {
	return func(p *Pass) {
		tools := p.Catalog.Tools
		passes := make([]*Pass, len(tools))
		workers := min(runtime.GOMAXPROCS(0), len(tools)/20+1)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				state := newState()
				for i := w; i < len(tools); i += workers {
					passes[i] = &Pass{Catalog: p.Catalog, Config: p.Config, Rule: p.Rule}
					check(passes[i], state, tools[i])
				}
			}()
		}
		wg.Wait()
		for _, tp := range passes {
			p.diags = append(p.diags, tp.diags...)
		}
	}
}

// Run checks cat with every rule that cfg enables, applies the catalog's
// suppressions, and returns the findings sorted by position. A nil cfg
// means [DefaultConfig].
func Run(cat *catalog.Catalog, cfg *Config) []Diagnostic {
	if cfg == nil {
		cfg = DefaultConfig()
	}
	var all []Diagnostic
	sh := newShared()
	for _, r := range Rules {
		sev := cfg.severity(r.ID)
		if sev == Off {
			continue
		}
		all = append(all, runRule(r, cat, cfg, sev, sh)...)
	}
	all = applySuppressions(cat, cfg, all)
	Sort(all)
	return all
}

// RunRule runs one rule on cat, unsuppressed, at its configured severity
// (or warning when the configuration turns it off).
func RunRule(r *Rule, cat *catalog.Catalog, cfg *Config) []Diagnostic {
	if cfg == nil {
		cfg = DefaultConfig()
	}
	sev := cfg.severity(r.ID)
	if sev == Off {
		sev = Warning
	}
	d := runRule(r, cat, cfg, sev, newShared())
	Sort(d)
	return d
}

func runRule(r *Rule, cat *catalog.Catalog, cfg *Config, sev Severity, sh *shared) []Diagnostic {
	p := &Pass{Catalog: cat, Config: cfg, Rule: r, shared: sh}
	r.Check(p)
	for i := range p.diags {
		p.diags[i].Severity = sev
	}
	return p.diags
}

// Sort orders findings by position, then rule, then message.
func Sort(d []Diagnostic) {
	sort.SliceStable(d, func(i, j int) bool {
		a, b := d[i], d[j]
		if a.Pos != b.Pos {
			return a.Pos.Before(b.Pos)
		}
		if a.RuleID != b.RuleID {
			return a.RuleID < b.RuleID
		}
		return a.Message < b.Message
	})
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

// MaxSeverity returns the most serious severity among d (Off when empty).
func MaxSeverity(d []Diagnostic) Severity {
	m := Off
	for _, x := range d {
		if x.Severity > m {
			m = x.Severity
		}
	}
	return m
}
