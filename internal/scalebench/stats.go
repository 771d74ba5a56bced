package scalebench

import (
	"fmt"
	"slices"
	"time"
)

// Samples are the runs of one measurement.
type Samples []Sample

// Median is the median wall time (the lower middle of an even count).
func (s Samples) Median() time.Duration {
	if len(s) == 0 {
		return 0
	}
	w := make([]time.Duration, len(s))
	for i, x := range s {
		w[i] = x.Wall
	}
	slices.Sort(w)
	return w[(len(w)-1)/2]
}

// MedianUserSys is the median user and the median system CPU time.
func (s Samples) MedianUserSys() (user, sys time.Duration) {
	u := make([]time.Duration, len(s))
	k := make([]time.Duration, len(s))
	for i, x := range s {
		u[i], k[i] = x.User, x.Sys
	}
	slices.Sort(u)
	slices.Sort(k)
	if len(s) == 0 {
		return 0, 0
	}
	return u[(len(u)-1)/2], k[(len(k)-1)/2]
}

// MaxRSS is the largest peak resident set of the runs, in bytes.
func (s Samples) MaxRSS() int64 {
	var m int64
	for _, x := range s {
		m = max(m, x.MaxRSS)
	}
	return m
}

// Seconds formats d as seconds with three significant decimals.
func Seconds(d time.Duration) string {
	switch s := d.Seconds(); {
	case s < 1:
		return fmt.Sprintf("%.3f s", s)
	case s < 100:
		return fmt.Sprintf("%.2f s", s)
	default:
		return fmt.Sprintf("%.0f s", s)
	}
}

// MiB formats a byte count in MiB; "-" for 0 (not measured).
func MiB(b int64) string {
	if b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
}

// Ratio formats a/b as "2.41×"; "-" when b is 0.
func Ratio(a, b time.Duration) string {
	if b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f×", float64(a)/float64(b))
}
