package catalog

import (
	"fmt"
	"runtime/metrics"
	"time"
)

// CUE's evaluator has no budget and cannot be interrupted: a kilobyte of
// CUE can keep it busy for hours and take gigabytes. A catalog is loaded
// on a goroutine watched for time and memory (see [LoadFiles]); the shapes
// known to explode are refused before evaluation (see checkCUEBounds).

// budget bounds one load. Both bounds grow with the size of the catalog
// files, so that a catalog of 5,000 tools loads on a slow machine.
type budget struct {
	time    time.Duration // base time
	timePer time.Duration // and time per MiB of catalog files
	heap    int64         // base growth of the heap, in bytes
	heapPer int64         // and growth per byte of catalog files
	poll    time.Duration // how often the heap is measured
}

// defaultBudget is the budget of [Load] and [LoadFiles]. On a busy
// two-core machine, loading 5,000 tools from 11 MB of YAML took 13 s and
// 800 MiB of heap at its peak (a budget of 113 s and 2.4 GiB); from a CUE
// comprehension, 5 s and 300 MB (60 s and 1 GiB).
var defaultBudget = budget{
	time:    60 * time.Second,
	timePer: 5 * time.Second,
	heap:    1 << 30,
	heapPer: 128,
	poll:    20 * time.Millisecond,
}

// limits returns the time and heap growth allowed for files of size bytes.
func (b budget) limits(size int64) (time.Duration, int64) {
	return b.time + time.Duration(float64(b.timePer)*float64(size)/(1<<20)), b.heap + b.heapPer*size
}

// heapBytes is the memory the heap's objects occupy, live or not yet
// swept; unlike the live heap, it follows allocation between collections.
// s is a sample to read it into.
func heapBytes(s []metrics.Sample) int64 {
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// overrun says which bound a load went beyond.
type overrun struct {
	what  string // "time" or "memory"
	limit string
}

// run calls f on its own goroutine and waits for it within the budget for
// size bytes of catalog. Past the budget it returns at once, and f goes
// on running until it returns, its results unused: Go cannot stop a
// goroutine, and CUE's evaluation takes no context. A panic in f is
// raised again in the caller.
func (b budget) run(size int64, f func()) *overrun {
	maxTime, maxHeap := b.limits(size)
	done := make(chan struct{})
	var panicked any
	go func() {
		defer close(done)
		defer func() { panicked = recover() }()
		f()
	}()
	timer := time.NewTimer(maxTime)
	defer timer.Stop()
	tick := time.NewTicker(b.poll)
	defer tick.Stop()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	start := heapBytes(sample)
	for {
		select {
		case <-done:
			if panicked != nil {
				panic(panicked)
			}
			return nil
		case <-timer.C:
			return &overrun{what: "time", limit: roundDuration(maxTime).String()}
		case <-tick.C:
			if heapBytes(sample)-start > maxHeap {
				return &overrun{what: "memory", limit: fmt.Sprintf("%d MiB", maxHeap>>20)}
			}
		}
	}
}

// roundDuration rounds d for a message: to the second from a second up.
func roundDuration(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(time.Second)
	}
	return d.Round(time.Millisecond)
}
