package codemode

import (
	"math"
	"sync"
	"time"

	"github.com/dlclark/regexp2/v2"
)

// MaxRegexpMatch bounds one match of a regular expression that the
// interpreter runs with backtracking (one with back-references or
// look-arounds; the others run in linear time on Go's regexp). Such a
// match runs natively, out of the reach of the program's interrupt: past
// this time it ends as if nothing matched, and the program's wall time
// stops it then.
const MaxRegexpMatch = time.Second

var boundOnce sync.Once

// boundRegexpMatches sets regexp2's match timeout to MaxRegexpMatch,
// unless the binary set one of its own. The interpreter compiles
// backtracking expressions with regexp2, whose timeout is a package
// variable read when an expression is compiled, "forever" by default.
// New calls it, not the package's init: the binary's own regexp2
// expressions compiled before the first Mode (a tokenizer's, say, whose
// matches over a long text may take longer under load) keep theirs.
func boundRegexpMatches() {
	boundOnce.Do(func() {
		if regexp2.DefaultMatchTimeout == time.Duration(math.MaxInt64) {
			regexp2.DefaultMatchTimeout = MaxRegexpMatch
		}
	})
}
