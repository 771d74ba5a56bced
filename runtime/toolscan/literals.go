package toolscan

import (
	"regexp/syntax"
	"slices"
	"strings"
)

// literals returns sets of strings such that every match of expr holds
// one string of each set (none: it cannot tell). A pattern runs only over
// text that holds one of each, which spares most texts most patterns.
func literals(expr string) [][]string {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	return requiredAll(re.Simplify())
}

// requiredAll returns the literal sets of every factor of re that must
// match.
func requiredAll(re *syntax.Regexp) [][]string {
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return requiredAll(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredAll(re.Sub[0])
		}
		return nil
	case syntax.OpConcat:
		var out [][]string
		for _, sub := range re.Sub {
			out = append(out, requiredAll(sub)...)
		}
		return out
	}
	if l := required(re); l != nil {
		return [][]string{l}
	}
	return nil
}

// required returns the literals one of which every match of re holds.
func required(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil
		}
		return []string{string(re.Rune)}
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		// Any factor that must match will do; take the longest literal
		// set's most selective, the first found with the longest shortest.
		var best []string
		for _, sub := range re.Sub {
			if l := required(sub); l != nil && shortest(l) > shortest(best) {
				best = l
			}
		}
		return best
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			l := required(sub)
			if l == nil {
				return nil
			}
			out = append(out, l...)
		}
		return out
	}
	return nil
}

func shortest(l []string) int {
	if len(l) == 0 {
		return 0
	}
	n := len(l[0])
	for _, s := range l[1:] {
		n = min(n, len(s))
	}
	return n
}

// mayMatch reports whether text holds a string of each set of lits.
func mayMatch(text string, lits [][]string) bool {
	for _, set := range lits {
		if !slices.ContainsFunc(set, func(l string) bool { return strings.Contains(text, l) }) {
			return false
		}
	}
	return true
}
