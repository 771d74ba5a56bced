package config

import (
	"fmt"
	"maps"
	"slices"

	"go.yaml.in/yaml/v3"
)

// Selection is what the use, except and rules keys of one command's
// section may name, and how they choose the rules that run. R is the
// command's rule (a pointer, nil for none) and S its severity, whose zero
// value is off.
type Selection[R comparable, S any] struct {
	// Section is the key of the section in toolcat.yaml, and the command
	// whose --rules lists the rules: "lint".
	Section string
	// Lookup returns the rule of an ID, or the zero R.
	Lookup func(id string) R
	// IsName reports whether use and except may name name.
	IsName func(name string) bool
	// Names says what use and except may name, for the error about a name
	// they may not: "a category (WIRE, GO) or a rule (see toolcat breaking
	// --rules)".
	Names func() string
	// EmptyUse is the advice of the error about an empty use: "name
	// categories, such as [WIRE, GO], or leave use out for all".
	EmptyUse string
	// RuleAtKey places the error about an unknown rule of rules at the
	// rule's key; otherwise it is placed at the rules mapping.
	RuleAtKey bool

	// Selects reports whether name, from use or except, covers rule r.
	Selects func(name string, r R) bool
	// DefaultUse is what runs when use is empty.
	DefaultUse []string
	// Default is the severity rule r runs at when use selects it and rules
	// sets none.
	Default func(r R) S
}

// Check checks the values of use, except and rules that the section
// decoded to, whose node is section (nil when the file has no such
// section): every rule of rules is known, every name of use and except
// is one IsName takes, and use, when written, names something. Its
// errors are placed path:line:col.
func (s *Selection[R, S]) Check(path string, section *yaml.Node, use, except []string, rules map[string]S) error {
	var none R
	for _, id := range slices.Sorted(maps.Keys(rules)) {
		if s.Lookup(id) == none {
			at := Value(section, "rules")
			if s.RuleAtKey {
				at = Key(at, id)
			}
			return fmt.Errorf("%s: %s.rules: unknown rule %s; see toolcat %s --rules", At(path, at), s.Section, id, s.Section)
		}
	}
	for _, key := range []string{"use", "except"} {
		list := use
		if key == "except" {
			list = except
		}
		for i, name := range list {
			if !s.IsName(name) {
				return fmt.Errorf("%s: %s.%s: unknown name %q; name %s",
					At(path, Item(Value(section, key), i)), s.Section, key, name, s.Names())
			}
		}
	}
	if n := Value(section, "use"); n != nil && len(use) == 0 {
		return fmt.Errorf("%s: %s.use is empty; %s", At(path, n), s.Section, s.EmptyUse)
	}
	return nil
}

// Severity returns the severity rule id runs at under use, except and
// rules: the one rules sets, else Default when use (or DefaultUse when
// use is empty) covers the rule and except does not, else off (the zero
// S). An unknown rule is off.
func (s *Selection[R, S]) Severity(id string, use, except []string, rules map[string]S) S {
	if sev, ok := rules[id]; ok {
		return sev
	}
	var (
		off  S
		none R
	)
	r := s.Lookup(id)
	if r == none {
		return off
	}
	if len(use) == 0 {
		use = s.DefaultUse
	}
	in := func(names []string) bool {
		return slices.ContainsFunc(names, func(n string) bool { return s.Selects(n, r) })
	}
	if !in(use) || in(except) {
		return off
	}
	return s.Default(r)
}
