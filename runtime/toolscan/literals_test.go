package toolscan

import (
	"slices"
	"testing"
)

// TestLiterals checks the prefilter: every pattern that matches a text
// has a literal in it, so that skipping patterns without one changes no
// finding.
func TestLiterals(t *testing.T) {
	for _, c := range []struct {
		expr string
		want [][]string
	}{
		{`\bignore\s+all`, [][]string{{"ignore"}, {"all"}}},
		{`(?:send|forward)\s+to`, [][]string{{"forward", "send"}, {"to"}}},
		{`[a-z]+\s+x?`, nil},
		{`a?b`, [][]string{{"b"}}},
	} {
		got := literals(c.expr)
		for _, set := range got {
			slices.Sort(set)
		}
		if !slices.EqualFunc(got, c.want, slices.Equal) {
			t.Errorf("literals(%q) = %q, want %q", c.expr, got, c.want)
		}
	}
	for _, p := range loadPoisonedTexts(t) {
		f := fold(p)
		for _, set := range [][]pattern{patterns, foreignLanguage} {
			for _, pt := range set {
				if pt.re.MatchString(f.s) && !mayMatch(f.s, pt.lits) {
					t.Errorf("pattern %s matches %q but the prefilter skips it (literals %q)", pt.re, p, pt.lits)
				}
			}
		}
	}
}
