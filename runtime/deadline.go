package runtime

import (
	"context"
	"sync"
	"time"
)

// slaCtx is the context a tool runs under when it has a deadline. It
// behaves as context.WithDeadline, but creates its Done channel and timer
// only when someone asks for Done: most quick tools never do, and a call then
// costs one small allocation instead of a timer and three objects. Err checks
// the clock, so a tool polling Err sees the deadline pass too.
type slaCtx struct {
	context.Context // the caller's context
	start           time.Time
	d               time.Duration // the deadline is start + d

	mu         sync.Mutex
	done       chan struct{}
	err        error
	stopTimer  func() bool
	stopParent func() bool
}

func newSLACtx(parent context.Context, d time.Duration) *slaCtx {
	return &slaCtx{Context: parent, start: time.Now(), d: d}
}

// passed reports whether the SLA deadline has passed; time.Since reads
// only the monotonic clock.
func (c *slaCtx) passed() bool { return time.Since(c.start) >= c.d }

// Deadline returns the earlier of the SLA deadline and the caller's.
func (c *slaCtx) Deadline() (time.Time, bool) {
	deadline := c.start.Add(c.d)
	if pd, ok := c.Context.Deadline(); ok && pd.Before(deadline) {
		return pd, true
	}
	return deadline, true
}

// Done returns a channel closed at the deadline, when the caller's context
// ends, or when the call is over.
func (c *slaCtx) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done != nil {
		return c.done
	}
	c.done = make(chan struct{})
	if c.err != nil {
		close(c.done)
		return c.done
	}
	if err := c.Context.Err(); err != nil {
		c.cancelLocked(err)
		return c.done
	}
	d := c.d - time.Since(c.start)
	if d <= 0 {
		c.cancelLocked(context.DeadlineExceeded)
		return c.done
	}
	c.stopTimer = time.AfterFunc(d, func() { c.cancel(context.DeadlineExceeded) }).Stop
	if c.Context.Done() != nil {
		c.stopParent = context.AfterFunc(c.Context, func() { c.cancel(c.Context.Err()) })
	}
	return c.done
}

// Err reports context.DeadlineExceeded once the deadline has passed, the
// caller's error once its context ended, context.Canceled once the call is
// over, and nil before.
func (c *slaCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	if err := c.Context.Err(); err != nil {
		c.cancelLocked(err)
	} else if c.passed() {
		c.cancelLocked(context.DeadlineExceeded)
	}
	return c.err
}

func (c *slaCtx) cancel(err error) {
	c.mu.Lock()
	c.cancelLocked(err)
	c.mu.Unlock()
}

func (c *slaCtx) cancelLocked(err error) {
	if c.err != nil {
		return
	}
	c.err = err
	if c.done != nil {
		close(c.done)
	}
}

// expired reports whether the SLA deadline has passed (rather than the
// caller's context having ended first).
func (c *slaCtx) expired() bool {
	if !c.passed() {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err == nil || c.err == context.DeadlineExceeded
}

// release ends the call: the context is cancelled (for anything the tool
// left running with it) and its timers stop.
func (c *slaCtx) release() {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.cancelLocked(context.Canceled)
	stopT, stopP := c.stopTimer, c.stopParent
	c.mu.Unlock()
	if stopT != nil {
		stopT()
	}
	if stopP != nil {
		stopP()
	}
}
