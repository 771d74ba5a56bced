package hardware

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/toolcat/toolcat/runtime"
)

// limiter is a token bucket per device: each write takes a token, and
// tokens come back at rate per second up to burst. Devices are those of
// the allow-list, so the map stays small.
type limiter struct {
	rate  float64
	burst float64
	now   func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newLimiter(rate float64, burst int, now func() time.Time) *limiter {
	return &limiter{rate: rate, burst: float64(burst), now: now, buckets: map[string]*bucket{}}
}

// take spends one write on device, or answers rate_limited with how long
// to wait.
func (l *limiter) take(device string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b, ok := l.buckets[device]
	if !ok {
		b = &bucket{tokens: l.burst, at: now}
		l.buckets[device] = b
	}
	if d := now.Sub(b.at); d > 0 {
		b.tokens = math.Min(l.burst, b.tokens+d.Seconds()*l.rate)
		b.at = now
	}
	if b.tokens >= 1 {
		b.tokens--
		return nil
	}
	wait := time.Duration((1 - b.tokens) / l.rate * float64(time.Second)).Round(time.Millisecond)
	return runtime.NewError(runtime.CodeRateLimited,
		fmt.Sprintf("%s takes at most %g writes per second; wait %s before the next write", device, l.rate, wait)).
		WithDetail("retry_after_ms", wait.Milliseconds())
}
