package codemode

import (
	"context"
	"os/exec"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/toolcat/toolcat/runtime"
)

// The measurements behind the choice of a heap watchdog over a child
// process with an address-space rlimit (see the package doc and
// runtime/README.md, "Code mode").

// BenchmarkHeapRead is the watchdog's work each millisecond: one read of
// the heap's objects.
func BenchmarkHeapRead(b *testing.B) {
	s := []metrics.Sample{{Name: metricObjects}}
	for b.Loop() {
		metrics.Read(s)
	}
}

// BenchmarkChildProcess is what a child process per program would cost
// at the least, before any interpreter starts in it: fork and exec of
// /bin/true, and nothing to wait for.
func BenchmarkChildProcess(b *testing.B) {
	if _, err := exec.LookPath("/bin/true"); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMemoryStop runs programs that allocate without end under a
// 64 MiB limit, and reports how far the heap grew before the stop
// (peak-MiB, sampled every 100µs) besides the time it took.
func BenchmarkMemoryStop(b *testing.B) {
	for _, tc := range []struct{ name, code string }{
		{"doubling", "let s = 'x';\nwhile (true) { s = s + s + '.'; }"},
		{"objects", "const a = [];\nfor (;;) a.push({n: a.length, s: 'abcdefgh' + a.length});"},
		{"repeat_1GB", "return 'x'.repeat(1 << 30).length;"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			m := New(runtime.New(), ModeLimits(Limits{Time: time.Minute, Memory: 64 << 20}))
			s := m.Registry().Session("mem")
			var peak uint64
			for b.Loop() {
				base := heapLive()
				stop := make(chan struct{})
				var wg sync.WaitGroup
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						select {
						case <-stop:
							return
						case <-time.After(100 * time.Microsecond):
						}
						if g := grown(heapObjects(), base); g > peak {
							peak = g
						}
					}
				}()
				res := m.Run(context.Background(), s, tc.code)
				close(stop)
				wg.Wait()
				if res.Success || res.Error.Details["limit"] != LimitMemory {
					b.Fatalf("%s", res.JSON())
				}
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
		})
	}
}
