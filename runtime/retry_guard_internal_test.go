package runtime

import (
	"strconv"
	"testing"
	"time"
)

func TestRetryGuardBounded(t *testing.T) {
	g := newRetryGuard(time.Minute)
	g.max = 64
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	te := ExternalError("upstream said no")
	// A host making a new step for every call: the guard never holds more
	// than max pairs, and forgets the least recently seen first.
	for i := range 1000 {
		g.failure("step-"+strconv.Itoa(i), "call_api", nil, te, 0, now.Add(time.Duration(i)*time.Millisecond))
		if len(g.m) > g.max {
			t.Fatalf("after %d steps the guard holds %d pairs, more than %d", i+1, len(g.m), g.max)
		}
		if int(g.count.Load()) != len(g.m) {
			t.Fatalf("count %d, map %d", g.count.Load(), len(g.m))
		}
	}
	last := func() time.Time { return now.Add(999 * time.Millisecond) }
	if g.blocked("step-999", "call_api", last) == nil {
		t.Fatal("the most recent step was forgotten")
	}
	if g.blocked("step-0", "call_api", last) != nil {
		t.Fatal("the oldest step is still remembered")
	}
	// Pairs past the window go first, before any recent one.
	g = newRetryGuard(time.Minute)
	g.max = 4
	for i := range 3 {
		g.failure("old-"+strconv.Itoa(i), "call_api", nil, te, 0, now)
	}
	later := now.Add(2 * time.Minute)
	g.failure("new-0", "call_api", nil, te, 0, later)
	g.failure("new-1", "call_api", nil, te, 0, later)
	if len(g.m) != 2 || g.blocked("new-0", "call_api", func() time.Time { return later }) == nil {
		t.Fatalf("after the window: %d pairs; want the two recent ones", len(g.m))
	}
}
