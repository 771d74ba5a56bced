package runtime

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/toolcat/toolcat/internal/editdist"
)

// Closest returns the candidate nearest to name by edit distance, or "" when
// none is near enough to be a plausible typo or variant.
func Closest(name string, candidates []string) string {
	c := ClosestN(name, candidates, 1)
	if len(c) == 0 {
		return ""
	}
	return c[0]
}

// maxDistanceName is the longest name whose edit distance ClosestN
// measures.
const maxDistanceName = 256

// ClosestN returns up to n candidates near name, nearest first. A candidate
// is near when one name contains the other (search_article and
// search_articles_by_keyword), or when its edit distance is at most half
// the longer name's length (at least 2). Containment ranks first, being
// what a model that shortens or extends a name produces; then the edit
// distance decides.
//
// A name far longer than every candidate (more than twice the longest and
// 8 bytes) is near none of them and is not compared; a name longer than
// 256 bytes is near only by containment, and the edit distance is measured
// only between names of close lengths: a call costs at most about 200,000
// steps of the distance per candidate, whatever name is.
func ClosestN(name string, candidates []string, n int) []string {
	type scored struct {
		s       string
		contain bool
		d       int
	}
	longest := 0
	for _, c := range candidates {
		longest = max(longest, len(c))
	}
	if len(name) > 2*longest+8 {
		return []string{}
	}
	var near []scored
	lname := strings.ToLower(name)
	nname := utf8.RuneCountInString(lname)
	for _, c := range candidates {
		lc := strings.ToLower(c)
		limit := max(len(lname), len(lc)) / 2
		if limit < 2 {
			limit = 2
		}
		contain := len(lname) >= 3 && len(lc) >= 3 && (strings.Contains(lc, lname) || strings.Contains(lname, lc))
		d := limit + 1 // the distance is at least the difference in length
		if diff := nname - utf8.RuneCountInString(lc); len(lname) <= maxDistanceName && diff <= limit && -diff <= limit {
			d = editdist.Levenshtein(lname, lc)
		}
		if d <= limit || contain {
			near = append(near, scored{c, contain, d})
		}
	}
	slices.SortStableFunc(near, func(a, b scored) int {
		if a.contain != b.contain {
			if a.contain {
				return -1
			}
			return 1
		}
		if a.d != b.d {
			return a.d - b.d
		}
		return strings.Compare(a.s, b.s)
	})
	out := make([]string, 0, min(n, len(near)))
	for i := 0; i < len(near) && i < n; i++ {
		out = append(out, near[i].s)
	}
	return out
}
