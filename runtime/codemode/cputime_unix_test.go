//go:build unix

package codemode_test

import (
	"syscall"
	"testing"
	"time"
)

// reportCPU reports the process's CPU time per operation (user and
// system, every goroutine's, the collector's included) from start, taken
// by startCPU: on a shared machine it moves far less than wall time.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

func startCPU() time.Duration { return cpuTime() }

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
