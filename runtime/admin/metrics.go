package admin

import (
	"bufio"
	"io"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolcat/toolcat/runtime"
)

// Metrics aggregates a registry's CallEvents per tool: calls, errors by
// code, latency quantiles, retries, replays, retry-guard stops and SLA
// misses. Feed it with runtime.WithObserver(m.Observe) or
// Registry.Observe(m.Observe); New does it for the Server's own.
//
// Its memory is bounded: counters and two latency histograms per
// registered tool (about 4.6 KiB a tool), and one counter for every call
// of a tool the registry does not have, whatever its name. The latency
// quantiles are read from histograms of log-spaced buckets (8 per power of
// two from 1µs to about 9.5 hours; a quantile is the middle of its bucket,
// within 6% of the true value) over the last one to two windows
// (WithLatencyWindow, default 5 minutes): the current window and the one
// before it, so that old calls age out. Counts, sums and the Prometheus
// _sum and _count are kept since the start.
type Metrics struct {
	now    func() time.Time
	window time.Duration

	mu      sync.RWMutex
	tools   map[string]*toolMetrics
	unknown atomic.Uint64
}

// MetricsOption configures Metrics.
type MetricsOption func(*Metrics)

// WithLatencyWindow sets the window of the latency quantiles (default 5
// minutes): they cover the calls of the last one to two windows.
func WithLatencyWindow(d time.Duration) MetricsOption {
	return func(m *Metrics) { m.window = d }
}

// WithMetricsClock sets the clock that ages the latency windows (for
// tests).
func WithMetricsClock(now func() time.Time) MetricsOption {
	return func(m *Metrics) { m.now = now }
}

// NewMetrics returns empty Metrics.
func NewMetrics(opts ...MetricsOption) *Metrics {
	m := &Metrics{now: time.Now, window: 5 * time.Minute, tools: map[string]*toolMetrics{}}
	for _, o := range opts {
		o(m)
	}
	if m.window <= 0 {
		m.window = 5 * time.Minute
	}
	return m
}

type toolMetrics struct {
	mu        sync.Mutex
	calls     uint64
	codes     map[runtime.Code]uint64 // errors by code; the taxonomy bounds it
	retries   uint64
	replays   uint64
	exhausted uint64
	slaMisses uint64
	dryRuns   uint64
	fallbacks uint64
	sum       time.Duration
	cur, prev histogram
	curStart  time.Time
}

// Observe records one call; it is safe for concurrent use.
func (m *Metrics) Observe(ev runtime.CallEvent) {
	if ev.Unknown {
		m.unknown.Add(1)
		return
	}
	tm := m.tool(ev.Tool)
	now := m.now()
	tm.mu.Lock()
	defer tm.mu.Unlock()
	tm.rotate(now, m.window)
	tm.calls++
	if ev.Code != "" {
		c := ev.Code
		if !c.Valid() {
			c = runtime.CodeInternal // the registry never answers another
		}
		if tm.codes == nil {
			tm.codes = map[runtime.Code]uint64{}
		}
		tm.codes[c]++
	}
	tm.retries += b2u(ev.Retry)
	tm.replays += b2u(ev.Replayed)
	tm.exhausted += b2u(ev.RetryExhausted)
	tm.slaMisses += b2u(ev.SLAMiss)
	tm.dryRuns += b2u(ev.DryRun)
	tm.fallbacks += b2u(ev.Fallback != "")
	d := max(ev.Duration, 0)
	tm.sum += d
	tm.cur.add(d)
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func (m *Metrics) tool(name string) *toolMetrics {
	m.mu.RLock()
	tm := m.tools[name]
	m.mu.RUnlock()
	if tm != nil {
		return tm
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if tm = m.tools[name]; tm == nil {
		tm = &toolMetrics{curStart: m.now()}
		m.tools[name] = tm
	}
	return tm
}

// rotate starts a new window when the current one is over; tm.mu is held.
func (tm *toolMetrics) rotate(now time.Time, window time.Duration) {
	age := now.Sub(tm.curStart)
	if age < window {
		return
	}
	if age < 2*window {
		tm.prev = tm.cur
	} else {
		tm.prev = histogram{}
	}
	tm.cur = histogram{}
	tm.curStart = now
}

// ToolMetrics is what Metrics knows of one tool.
type ToolMetrics struct {
	Tool string `json:"tool"`
	// Calls counts every call answered, errors included.
	Calls uint64 `json:"calls"`
	// Errors counts the failed calls by code.
	Errors map[runtime.Code]uint64 `json:"errors"`
	// Latency holds the quantiles of the recent calls, nil when there was
	// none in the window.
	Latency *Latency `json:"latency"`
	// TotalSeconds is the time spent in all calls since the start.
	TotalSeconds   float64 `json:"total_seconds"`
	Retries        uint64  `json:"retries"`
	Replays        uint64  `json:"replays"`
	RetryExhausted uint64  `json:"retry_exhausted"`
	SLAMisses      uint64  `json:"sla_misses"`
	DryRuns        uint64  `json:"dry_runs"`
	Fallbacks      uint64  `json:"fallbacks"`
}

// Latency is the quantiles of a tool's recent calls, in milliseconds.
type Latency struct {
	P50 float64 `json:"p50_ms"`
	P95 float64 `json:"p95_ms"`
	P99 float64 `json:"p99_ms"`
	// Calls is how many calls the quantiles are read from.
	Calls uint64 `json:"calls"`
}

// Snapshot returns the metrics of the tools named (every tool observed
// when names is nil), in that order; a tool never called has zero counts.
func (m *Metrics) Snapshot(names []string) []ToolMetrics {
	if names == nil {
		m.mu.RLock()
		for n := range m.tools {
			names = append(names, n)
		}
		m.mu.RUnlock()
		slices.Sort(names)
	}
	now := m.now()
	out := make([]ToolMetrics, len(names))
	for i, n := range names {
		out[i] = ToolMetrics{Tool: n, Errors: map[runtime.Code]uint64{}}
		m.mu.RLock()
		tm := m.tools[n]
		m.mu.RUnlock()
		if tm == nil {
			continue
		}
		tm.mu.Lock()
		tm.rotate(now, m.window)
		o := &out[i]
		o.Calls, o.TotalSeconds = tm.calls, tm.sum.Seconds()
		for c, k := range tm.codes {
			o.Errors[c] = k
		}
		o.Retries, o.Replays, o.RetryExhausted, o.SLAMisses = tm.retries, tm.replays, tm.exhausted, tm.slaMisses
		o.DryRuns, o.Fallbacks = tm.dryRuns, tm.fallbacks
		h := tm.cur
		h.merge(&tm.prev)
		tm.mu.Unlock()
		if h.n > 0 {
			o.Latency = &Latency{P50: ms(h.quantile(0.5)), P95: ms(h.quantile(0.95)), P99: ms(h.quantile(0.99)), Calls: h.n}
		}
	}
	return out
}

// UnknownToolCalls counts the calls of tools the registry does not have.
func (m *Metrics) UnknownToolCalls() uint64 { return m.unknown.Load() }

// Window is the latency window.
func (m *Metrics) Window() time.Duration { return m.window }

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// The latency histogram: bucket 0 holds durations under 1µs; then, for
// each power of two 2^e µs (e from 0 to maxExp), subBuckets buckets of
// equal width; longer durations go to the last bucket.
const (
	subBits    = 3
	subBuckets = 1 << subBits
	maxExp     = 35 // 2^36 µs is about 19 hours
	nBuckets   = 1 + (maxExp+1)*subBuckets
)

type histogram struct {
	n      uint64
	counts [nBuckets]uint64
}

func bucketOf(d time.Duration) int {
	v := uint64(d / time.Microsecond)
	if v == 0 {
		return 0
	}
	e := bits.Len64(v) - 1
	if e > maxExp {
		return nBuckets - 1
	}
	var sub uint64
	if e >= subBits {
		sub = (v >> (e - subBits)) & (subBuckets - 1)
	} else {
		sub = (v << (subBits - e)) & (subBuckets - 1)
	}
	return 1 + e*subBuckets + int(sub)
}

// middle returns the middle of bucket i.
func middle(i int) time.Duration {
	if i == 0 {
		return time.Microsecond / 2
	}
	e := (i - 1) / subBuckets
	sub := (i - 1) % subBuckets
	lo := float64(uint64(1)<<e) * (1 + float64(sub)/subBuckets)
	width := float64(uint64(1)<<e) / subBuckets
	return time.Duration((lo + width/2) * float64(time.Microsecond))
}

func (h *histogram) add(d time.Duration) {
	h.n++
	h.counts[bucketOf(d)]++
}

func (h *histogram) merge(o *histogram) {
	h.n += o.n
	for i, c := range o.counts {
		h.counts[i] += c
	}
}

// quantile returns the q-quantile (0 < q ≤ 1) of a histogram that is not
// empty: the middle of the bucket holding the call of rank ⌈q·n⌉.
func (h *histogram) quantile(q float64) time.Duration {
	rank := uint64(q*float64(h.n) + 0.999999)
	rank = min(max(rank, 1), h.n)
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			return middle(i)
		}
	}
	return middle(nBuckets - 1)
}

// withSessionTools returns names, the registry's tools, followed by the
// other tools calls were recorded for, sorted: the tools a session
// answers itself (search_tools_by_keywords, undo_last_actions, code
// mode's), which the registry does not hold. Calls of a name the registry
// does not know are counted apart (UnknownToolCalls), so the list stays
// as short as the tools a host offers.
func (m *Metrics) withSessionTools(names []string) []string {
	known := make(map[string]bool, len(names))
	for _, n := range names {
		known[n] = true
	}
	var extra []string
	m.mu.RLock()
	for n := range m.tools {
		if !known[n] {
			extra = append(extra, n)
		}
	}
	m.mu.RUnlock()
	slices.Sort(extra)
	return append(slices.Clip(names), extra...)
}

// writePrometheus writes the metrics of the tools of statuses and of a
// session's own tools, with the states of the first, in the Prometheus
// text exposition format (version 0.0.4).
func (m *Metrics) writePrometheus(w io.Writer, statuses []runtime.ToolStatus) error {
	names := make([]string, len(statuses))
	for i, st := range statuses {
		names[i] = st.Tool
	}
	snap := m.Snapshot(m.withSessionTools(names))
	bw := bufio.NewWriter(w)
	family := func(name, typ, help string) {
		bw.WriteString("# HELP " + name + " " + help + "\n# TYPE " + name + " " + typ + "\n")
	}
	sample := func(name string, value string, labels ...string) {
		bw.WriteString(name)
		if len(labels) > 0 {
			bw.WriteByte('{')
			for i := 0; i+1 < len(labels); i += 2 {
				if i > 0 {
					bw.WriteByte(',')
				}
				bw.WriteString(labels[i] + `="` + escapeLabel(labels[i+1]) + `"`)
			}
			bw.WriteByte('}')
		}
		bw.WriteString(" " + value + "\n")
	}
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

	family("toolcat_tool_calls_total", "counter", `Calls the registry answered, by tool and code ("ok" for success).`)
	for _, t := range snap {
		sample("toolcat_tool_calls_total", u(t.Calls-sumCodes(t.Errors)), "tool", t.Tool, "code", "ok")
		codes := make([]string, 0, len(t.Errors))
		for c := range t.Errors {
			codes = append(codes, string(c))
		}
		slices.Sort(codes)
		for _, c := range codes {
			sample("toolcat_tool_calls_total", u(t.Errors[runtime.Code(c)]), "tool", t.Tool, "code", c)
		}
	}
	counters := []struct {
		name, help string
		get        func(*ToolMetrics) uint64
	}{
		{"toolcat_tool_retries_total", "Calls that repeat a call of the same tool that failed earlier in the same step.", func(t *ToolMetrics) uint64 { return t.Retries }},
		{"toolcat_tool_replays_total", "Calls answered with a result stored under their idempotency key.", func(t *ToolMetrics) uint64 { return t.Replays }},
		{"toolcat_tool_retry_exhausted_total", "Answers shaped by the retry guard: the last failure a step allows, and the calls refused after it.", func(t *ToolMetrics) uint64 { return t.RetryExhausted }},
		{"toolcat_tool_sla_misses_total", "Calls of a tool with an SLA that took longer, or answered timeout.", func(t *ToolMetrics) uint64 { return t.SLAMisses }},
		{"toolcat_tool_dry_runs_total", "Dry runs.", func(t *ToolMetrics) uint64 { return t.DryRuns }},
		{"toolcat_tool_fallbacks_total", "Calls answered by the tool's fallback tool.", func(t *ToolMetrics) uint64 { return t.Fallbacks }},
	}
	for _, c := range counters {
		family(c.name, "counter", c.help)
		for i := range snap {
			sample(c.name, u(c.get(&snap[i])), "tool", snap[i].Tool)
		}
	}
	family("toolcat_tool_call_duration_seconds", "summary",
		"How long calls took: quantiles over the last "+m.window.String()+" to "+(2*m.window).String()+", sum and count since the start.")
	for _, t := range snap {
		if t.Latency != nil {
			for _, q := range []struct {
				q string
				v float64
			}{{"0.5", t.Latency.P50}, {"0.95", t.Latency.P95}, {"0.99", t.Latency.P99}} {
				sample("toolcat_tool_call_duration_seconds", f(q.v/1000), "tool", t.Tool, "quantile", q.q)
			}
		}
		sample("toolcat_tool_call_duration_seconds_sum", f(t.TotalSeconds), "tool", t.Tool)
		sample("toolcat_tool_call_duration_seconds_count", u(t.Calls), "tool", t.Tool)
	}
	family("toolcat_tool_state", "gauge", "1 for the state each tool is in (enabled, disabled, or blocked by a disabled dependency), 0 for the others.")
	for _, st := range statuses {
		for _, s := range []runtime.ToolState{runtime.ToolEnabled, runtime.ToolDisabled, runtime.ToolBlocked} {
			sample("toolcat_tool_state", u(b2u(st.State == s)), "tool", st.Tool, "state", string(s))
		}
	}
	family("toolcat_tools_held", "gauge", "Tools the host holds disabled for an operator's review, by kind: flagged (text aimed at the model), changed (definition changed since it was approved), new (offered newly by a pinned server).")
	held := map[string]int{}
	for _, st := range statuses {
		if st.State == runtime.ToolDisabled && st.Hold != nil {
			held[st.Hold.Kind]++
		}
	}
	for _, k := range []string{runtime.HoldFlagged, runtime.HoldChanged, runtime.HoldNew} {
		sample("toolcat_tools_held", strconv.Itoa(held[k]), "kind", k)
	}
	family("toolcat_tool_held", "gauge", "1 for each tool held for review, with the kind of its hold.")
	for _, st := range statuses {
		if st.State == runtime.ToolDisabled && st.Hold != nil {
			sample("toolcat_tool_held", "1", "tool", st.Tool, "kind", st.Hold.Kind)
		}
	}
	family("toolcat_unknown_tool_calls_total", "counter", "Calls of a tool the registry does not have.")
	sample("toolcat_unknown_tool_calls_total", u(m.UnknownToolCalls()))
	return bw.Flush()
}

func sumCodes(m map[runtime.Code]uint64) uint64 {
	var n uint64
	for _, v := range m {
		n += v
	}
	return n
}

var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

func escapeLabel(s string) string { return labelEscaper.Replace(s) }
