package codemode

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

// The heap figures the watchdog reads: all heap objects, garbage included
// (updated as the program allocates), and the live heap the last
// collection marked.
const (
	metricObjects = "/memory/classes/heap/objects:bytes"
	metricLive    = "/gc/heap/live:bytes"
)

// watchInterval is how often the watchdog reads the heap.
const watchInterval = time.Millisecond

// watchdog interrupts a program whose heap growth passes its limit. The
// interpreter has no allocation limit of its own, so the watchdog reads
// the process's heap every millisecond; when the objects on the heap have
// grown by more than the limit since the program started, it collects
// garbage and interrupts the program only if the live heap has grown by
// more than the limit too. The growth it sees is the process's: another
// goroutine's allocations count against the program.
type watchdog struct {
	limit uint64
	over  func()
	stop  chan struct{}
	done  sync.WaitGroup
}

func startWatchdog(limit int64, over func()) *watchdog {
	w := &watchdog{limit: uint64(limit), over: over, stop: make(chan struct{})}
	base := heapObjects()
	w.done.Add(1)
	go w.run(base)
	return w
}

func (w *watchdog) run(base uint64) {
	defer w.done.Done()
	t := time.NewTicker(watchInterval)
	defer t.Stop()
	samples := []metrics.Sample{{Name: metricObjects}, {Name: metricLive}}
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
		}
		metrics.Read(samples[:1])
		if grown(samples[0].Value.Uint64(), base) <= w.limit {
			continue
		}
		runtime.GC() // garbage is not the program's to pay for
		metrics.Read(samples[1:])
		if grown(samples[1].Value.Uint64(), base) > w.limit {
			w.over()
			return
		}
	}
}

// Stop ends the watchdog and waits for it.
func (w *watchdog) Stop() {
	close(w.stop)
	w.done.Wait()
}

func grown(now, base uint64) uint64 {
	if now < base {
		return 0
	}
	return now - base
}

func heapObjects() uint64 {
	s := []metrics.Sample{{Name: metricObjects}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
