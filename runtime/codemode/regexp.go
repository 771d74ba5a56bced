package codemode

import (
	"math"
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

// The interpreter compiles those expressions with regexp2, whose match
// timeout is a package variable read at compilation, "forever" by
// default. It is set here, before any program runs, unless the binary
// set one of its own.
func init() {
	if regexp2.DefaultMatchTimeout == time.Duration(math.MaxInt64) {
		regexp2.DefaultMatchTimeout = MaxRegexpMatch
	}
}
