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
// garbage and interrupts the program if the live heap has grown by more
// than the limit too, or at once if, before the collection ends, the
// heap's objects pass hardFactor times the limit. The growth it sees is the process's, from the
// live heap of the collection before the program: what other goroutines
// allocate meanwhile counts against the program.
type watchdog struct {
	limit uint64
	over  func()
	stop  chan struct{}
	done  sync.WaitGroup
}

func startWatchdog(limit int64, over func()) *watchdog {
	w := &watchdog{limit: uint64(limit), over: over, stop: make(chan struct{})}
	// The base is the live heap the last collection marked, not the heap's
	// objects now, which may be mostly garbage: garbage in the base would
	// let the program grow by as much again before it is stopped.
	base := heapLive()
	w.done.Add(1)
	go w.run(base)
	return w
}

func (w *watchdog) run(base uint64) {
	defer w.done.Done()
	t := time.NewTicker(watchInterval)
	defer t.Stop()
	samples := []metrics.Sample{{Name: metricObjects}}
	type verdict struct {
		live uint64 // the live heap's growth after the collection
	}
	confirmed := make(chan verdict, 1)
	confirming := false
	trigger := w.limit // the growth of the heap's objects that calls for a collection
	for {
		select {
		case <-w.stop:
			return
		case v := <-confirmed:
			confirming = false
			if v.live > w.limit {
				w.over()
				return
			}
			// Collect again once half the limit more is allocated, so that a
			// program near its limit is not slowed by a collection each
			// millisecond.
			trigger = max(w.limit, v.live+w.limit/2)
			continue
		case <-t.C:
		}
		metrics.Read(samples)
		g := grown(samples[0].Value.Uint64(), base)
		switch {
		case g > hardFactor*w.limit:
			// Faster than a collection can tell garbage apart: a program
			// doubling a string gets from the limit to gigabytes while one
			// runs.
			w.over()
			return
		case g > trigger && !confirming:
			confirming = true
			go func() {
				runtime.GC() // garbage is not the program's to pay for
				confirmed <- verdict{live: grown(heapLive(), base)}
			}()
		}
	}
}

// hardFactor: heap objects (garbage included) past this many times the
// limit stop the program without waiting for a collection to confirm.
const hardFactor = 4

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

func heapLive() uint64 {
	s := []metrics.Sample{{Name: metricLive}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func heapObjects() uint64 {
	s := []metrics.Sample{{Name: metricObjects}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
