package catalog

import (
	"strings"
	"unicode/utf8"

	"github.com/toolcat/toolcat/internal/editdist"
)

// Closest returns the candidate nearest to name by edit distance, ignoring
// case, or "" when none is near enough to be a likely typo. A candidate
// equal to name is not a suggestion.
func Closest(name string, candidates []string) string {
	best, bestD := "", -1
	lname := strings.ToLower(name)
	for _, c := range candidates {
		if c == name {
			continue
		}
		d := editDistance(lname, strings.ToLower(c))
		if bestD < 0 || d < bestD || (d == bestD && c < best) {
			best, bestD = c, d
		}
	}
	if bestD < 0 || bestD > max(2, len(name)/3) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in characters.
// Names longer than 256 characters are compared for equality only: the
// distance of long strings costs more than a suggestion is worth.
func editDistance(a, b string) int {
	na, nb := utf8.RuneCountInString(a), utf8.RuneCountInString(b)
	if na > 256 || nb > 256 {
		if a == b {
			return 0
		}
		return max(na, nb)
	}
	return editdist.Levenshtein(a, b)
}
