package runtime

import (
	"bytes"
	"hash/fnv"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// retryGuard counts failed attempts per (step, tool). A step is the host's
// unit of work, CallOptions.StepID; calls without one are not guarded.
type retryGuard struct {
	count  atomic.Int64 // entries in m; zero skips the lock on success
	mu     sync.Mutex
	m      map[guardKey]*guardState
	window time.Duration
	lastGC time.Time
	max    int // entries at most: maxGuardEntries, or less in tests
}

type guardKey struct{ step, tool string }

type guardState struct {
	failures  int // counted against max_retries
	invalid   int // invalid_args answers, counted against maxInvalidArgs
	argsHash  uint64
	code      Code
	msgHash   uint64 // of the last error's message, which may be long
	exhausted *ToolError
	seen      time.Time
}

// maxInvalidArgs is how many calls of one tool with invalid arguments a
// step may make, whatever the tool's max_retries: the model corrects its
// arguments from the error, which is not a retry of the same operation.
const maxInvalidArgs = 3

// DefaultRetryWindow is how long the retry guard remembers a step's
// failures unless WithRetryWindow says otherwise.
const DefaultRetryWindow = 10 * time.Minute

// maxGuardEntries bounds the (step, tool) pairs the guard remembers, as
// the memory stores bound their entries: a host that makes a new step id
// for every call cannot grow it without end.
const maxGuardEntries = 100_000

// newRetryGuard returns a guard remembering failures for window (zero or
// less: DefaultRetryWindow).
func newRetryGuard(window time.Duration) *retryGuard {
	if window <= 0 {
		window = DefaultRetryWindow
	}
	return &retryGuard{m: map[guardKey]*guardState{}, window: window, max: maxGuardEntries}
}

// blocked returns the retry_exhausted error of a (step, tool) that is out of
// attempts, or nil. It reads the clock (now) only for a step it remembers.
func (g *retryGuard) blocked(step, tool string, now func() time.Time) *ToolError {
	if step == "" || g.count.Load() == 0 {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	st := g.m[guardKey{step, tool}]
	if st == nil || st.exhausted == nil {
		return nil
	}
	if now().Sub(st.seen) > g.window {
		delete(g.m, guardKey{step, tool})
		g.count.Add(-1)
		return nil
	}
	return st.exhausted
}

// success forgets the failures of (step, tool).
func (g *retryGuard) success(step, tool string) {
	if step == "" || g.count.Load() == 0 {
		return
	}
	g.mu.Lock()
	if _, ok := g.m[guardKey{step, tool}]; ok {
		delete(g.m, guardKey{step, tool})
		g.count.Add(-1)
	}
	g.mu.Unlock()
}

// failure records a failed attempt and returns the retry_exhausted error
// that replaces te when (step, tool) has now used up its attempts (1 +
// maxRetries) or repeated the previous failure exactly (same arguments,
// same error), or nil.
func (g *retryGuard) failure(step, tool string, raw []byte, te *ToolError, maxRetries int, now time.Time) *ToolError {
	if step == "" {
		return nil
	}
	h := hashArgs(raw)
	mh := hashText(te.Message)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.gc(now)
	k := guardKey{step, tool}
	st := g.m[k]
	if st == nil || now.Sub(st.seen) > g.window {
		if st == nil {
			if len(g.m) >= g.max {
				g.makeRoom(now)
			}
			g.count.Add(1)
		}
		st = &guardState{}
		g.m[k] = st
	}
	identical := st.failures+st.invalid > 0 && st.argsHash == h && st.code == te.Code && st.msgHash == mh
	// Arguments the schema refused are fixed, not retried: they count
	// against their own allowance, whatever max_retries says.
	if te.Code == CodeInvalidArgs {
		st.invalid++
	} else {
		st.failures++
	}
	st.argsHash, st.code, st.msgHash, st.seen = h, te.Code, mh, now
	var ex *ToolError
	last := clip(te.Message, maxEchoText)
	lastTry := false
	switch {
	case te.Code == CodeRetryExhausted:
		// A dependency gave up (a composite returned its answer): that
		// answer already says so.
		return nil
	case identical:
		ex = RetryExhausted("the same call to " + tool + " failed the same way twice (" + string(te.Code) + ": " + last + "); repeating it will not help")
	case st.failures > maxRetries:
		// The failure that uses up the step's attempts is answered as
		// itself, its catalog hint kept, told to stop; the calls after it
		// in the step are blocked with retry_exhausted.
		ex = RetryExhausted(tool + " failed " + strconv.Itoa(st.failures) + " times in this step, the most allowed is " +
			strconv.Itoa(maxRetries+1) + "; last error: " + string(te.Code) + ": " + last)
		lastTry = true
	case st.invalid > maxInvalidArgs:
		ex = RetryExhausted(tool + " was called with invalid arguments " + strconv.Itoa(st.invalid) + " times in this step; last error: " + last)
		lastTry = true
	default:
		return nil
	}
	ex.internal = true
	ex.toolText = te.toolText // it quotes the last error
	ex.Suggestion = "Stop calling " + tool + " for this step. Tell the user what failed and ask how to proceed."
	ex.Details = map[string]any{"attempts": st.failures + st.invalid, "last_code": string(te.Code), "last_message": last}
	st.exhausted = ex
	if lastTry {
		cp := *te
		cp.lastTry = true
		return &cp
	}
	return ex
}

// gc drops stale entries now and then; g.mu is held.
func (g *retryGuard) gc(now time.Time) {
	if len(g.m) < 1024 || now.Sub(g.lastGC) < g.window/4 {
		return
	}
	g.lastGC = now
	g.dropStale(now)
}

// dropStale forgets the pairs last seen longer ago than the window; g.mu
// is held.
func (g *retryGuard) dropStale(now time.Time) {
	for k, st := range g.m {
		if now.Sub(st.seen) > g.window {
			delete(g.m, k)
			g.count.Add(-1)
		}
	}
}

// makeRoom forgets pairs when the guard holds g.max of them: first those
// past the window, then, if every one is recent, the eighth least recently
// seen. g.mu is held.
func (g *retryGuard) makeRoom(now time.Time) {
	g.dropStale(now)
	if len(g.m) < g.max {
		return
	}
	type aged struct {
		k    guardKey
		seen time.Time
	}
	all := make([]aged, 0, len(g.m))
	for k, st := range g.m {
		all = append(all, aged{k, st.seen})
	}
	slices.SortFunc(all, func(a, b aged) int { return a.seen.Compare(b.seen) })
	for _, a := range all[:len(all)/8+1] {
		delete(g.m, a.k)
		g.count.Add(-1)
	}
}

func hashText(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

func hashArgs(raw []byte) uint64 {
	h := fnv.New64a()
	h.Write(bytes.TrimSpace(raw))
	return h.Sum64()
}

// failedBefore reports whether tool failed earlier in step, within the
// window, for the observers' CallEvent.Retry.
func (g *retryGuard) failedBefore(step, tool string, now time.Time) bool {
	if step == "" || g.count.Load() == 0 {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	st := g.m[guardKey{step, tool}]
	return st != nil && st.failures+st.invalid > 0 && now.Sub(st.seen) <= g.window
}
