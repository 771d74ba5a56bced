package runtime

import (
	"context"
	"math"
)

// ProgressReporter receives the progress a tool reports during a call:
// how far it is (progress), out of how much (total, 0 when unknown), and
// an optional message. A host installs one with WithProgressReporter; an
// MCP server turns each report into a notifications/progress message.
type ProgressReporter func(progress, total float64, message string)

type progressKey struct{}

// WithProgressReporter returns ctx carrying fn, which ReportProgress calls
// for the calls that run under ctx.
func WithProgressReporter(ctx context.Context, fn ProgressReporter) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// ReportProgress tells the host how far a long call is: progress out of
// total (0 when the total is unknown), with an optional message. Report
// increasing values. It does nothing when ctx carries no reporter, and a
// progress that is not a finite number is not reported (a total that is
// not one reads as unknown).
func ReportProgress(ctx context.Context, progress, total float64, message string) {
	fn, _ := ctx.Value(progressKey{}).(ProgressReporter)
	if fn == nil || math.IsNaN(progress) || math.IsInf(progress, 0) {
		return
	}
	if math.IsNaN(total) || math.IsInf(total, 0) || total < 0 {
		total = 0
	}
	fn(progress, total, message)
}
