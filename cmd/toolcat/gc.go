package main

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
)

// The garbage collector's pace for one run of toolcat. Loading and
// generating allocate several times the live data, most of it garbage at
// once: at Go's default pace (GOGC=100) a 1,000-tool catalog spends a
// sixth of its run collecting. The toolcat command lets the heap grow to
// four times the live data within a soft limit; a GOGC or GOMEMLIMIT set
// in the environment wins.

// gcLimit is the soft memory limit of a tuned run.
const gcLimit = 256 << 20

// gcTuned reports whether tuneGC changed the pace.
var gcTuned bool

func tuneGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(300)
	debug.SetMemoryLimit(gcLimit)
	gcTuned = true
}

// loadedGC runs once the catalog is loaded. Near the limit the collector
// would run all the time, so a catalog whose live data (as the last
// collection found it) is half the limit or more gets the default pace
// back, without the limit.
func loadedGC() {
	if !gcTuned {
		return
	}
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 && relaxGC(s[0].Value.Uint64()) {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	}
}

// liveBytesPerByte is about how much live data loading takes per byte of
// catalog files: 400 MB for the 21 MB of 10,000 synthetic tools.
const liveBytesPerByte = 20

// largeGCPercent and largeGCLimit are the pace of a run on a catalog too
// large for the tuned limit: the heap may grow by the live data again,
// within a soft limit of largeGCLimit or, for a catalog whose live data
// would pass two thirds of that, half the live data more. 10,000 tools
// (about 450 MB live) lint within 850 MB, and collecting takes a quarter
// less CPU than at half the pace without a limit.
const (
	largeGCPercent = 100
	largeGCLimit   = 800 << 20
)

// largeLimit is the soft memory limit of a large catalog's run whose
// live data is about live bytes.
func largeLimit(live uint64) int64 {
	return max(largeGCLimit, int64(min(live, math.MaxInt64/2)/2*3))
}

// loadingGC runs before the catalog at paths is loaded. A catalog whose
// load would hold half the tuned limit or more runs at the large pace
// from the start: under the tuned limit, the collector would run all
// through the load, tripling its time.
func loadingGC(paths []string) {
	if !gcTuned {
		return
	}
	if live := uint64(catalogBytes(paths)) * liveBytesPerByte; relaxGC(live) {
		debug.SetGCPercent(largeGCPercent)
		debug.SetMemoryLimit(largeLimit(live))
		gcTuned = false // loadedGC keeps this pace
	}
}

// catalogBytes is about the size of the catalog files at paths: the
// files, and the files of the directories (not below).
func catalogBytes(paths []string) int64 {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	var n int64
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			continue
		}
		if !st.IsDir() {
			n += st.Size()
			continue
		}
		ents, _ := os.ReadDir(p)
		for _, e := range ents {
			if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
				n += info.Size()
			}
		}
	}
	return n
}

// relaxGC reports whether live bytes of live data are too many for the
// tuned pace.
func relaxGC(live uint64) bool { return live >= gcLimit/2 }
