// Package otlptest is an OTLP/HTTP trace and metric receiver for tests: it
// decodes what an exporter sends with the OTLP protobuf types, as a
// collector does, so that a test proves the wire format rather than an
// SDK's in-memory view of it.
package otlptest

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Receiver receives OTLP/HTTP trace exports at /v1/traces and metric
// exports at /v1/metrics (protobuf, gzip or not). Make it with
// NewReceiver; it is safe for concurrent use.
type Receiver struct {
	URL string // the endpoint, for OTEL_EXPORTER_OTLP_ENDPOINT

	mu       sync.Mutex
	requests []*coltracepb.ExportTraceServiceRequest
	metrics  []*colmetricpb.ExportMetricsServiceRequest
	errs     []string
}

// NewReceiver starts a receiver on loopback, closed when t ends.
func NewReceiver(t testing.TB) *Receiver {
	rc := &Receiver{}
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	rc.URL = srv.URL
	return rc
}

// ServeHTTP answers one export: a request that is not a protobuf POST to
// /v1/traces or /v1/metrics, or that does not decode, is refused and kept
// as an error.
func (rc *Receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	fail := func(msg string) {
		rc.mu.Lock()
		rc.errs = append(rc.errs, msg)
		rc.mu.Unlock()
		http.Error(w, msg, http.StatusBadRequest)
	}
	if r.Method != http.MethodPost || (r.URL.Path != "/v1/traces" && r.URL.Path != "/v1/metrics") {
		fail(r.Method + " " + r.URL.Path)
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		fail("content type " + ct)
		return
	}
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			fail(err.Error())
			return
		}
		body = zr
	}
	raw, err := io.ReadAll(io.LimitReader(body, 8<<20))
	if err != nil {
		fail(err.Error())
		return
	}
	var req, resp proto.Message = &coltracepb.ExportTraceServiceRequest{}, &coltracepb.ExportTraceServiceResponse{}
	if r.URL.Path == "/v1/metrics" {
		req, resp = &colmetricpb.ExportMetricsServiceRequest{}, &colmetricpb.ExportMetricsServiceResponse{}
	}
	if err := proto.Unmarshal(raw, req); err != nil {
		fail("decoding: " + err.Error())
		return
	}
	rc.mu.Lock()
	switch req := req.(type) {
	case *coltracepb.ExportTraceServiceRequest:
		rc.requests = append(rc.requests, req)
	case *colmetricpb.ExportMetricsServiceRequest:
		rc.metrics = append(rc.metrics, req)
	}
	rc.mu.Unlock()
	out, _ := proto.Marshal(resp)
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

// Requests returns the trace exports received so far, and the reasons of
// the exports refused.
func (rc *Receiver) Requests() (reqs []*coltracepb.ExportTraceServiceRequest, errs []string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append(reqs, rc.requests...), append(errs, rc.errs...)
}

// SpanNames counts the spans received so far by name; it fails t if an
// export was refused.
func (rc *Receiver) SpanNames(t testing.TB) map[string]int {
	t.Helper()
	reqs, errs := rc.Requests()
	if len(errs) > 0 {
		t.Fatalf("the OTLP receiver refused: %v", errs)
	}
	names := map[string]int{}
	for _, req := range reqs {
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					names[s.Name]++
				}
			}
		}
	}
	return names
}

// MetricRequests returns the metric exports received so far, and the
// reasons of the exports refused.
func (rc *Receiver) MetricRequests() (reqs []*colmetricpb.ExportMetricsServiceRequest, errs []string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append(reqs, rc.metrics...), append(errs, rc.errs...)
}

// HistogramCounts adds up the counts of the points of the histogram name
// received so far, by the value of the attribute key (the empty string
// for points without it); it fails t if an export was refused. It reads
// the last export, which with cumulative temporality (the exporters'
// default) holds the totals: call it after the provider's Shutdown.
func (rc *Receiver) HistogramCounts(t testing.TB, name, key string) map[string]uint64 {
	t.Helper()
	reqs, errs := rc.MetricRequests()
	if len(errs) > 0 {
		t.Fatalf("the OTLP receiver refused: %v", errs)
	}
	if len(reqs) == 0 {
		return nil
	}
	counts := map[string]uint64{}
	for _, rm := range reqs[len(reqs)-1].ResourceMetrics {
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				if m.Name != name {
					continue
				}
				for _, p := range m.GetHistogram().GetDataPoints() {
					v := ""
					for _, kv := range p.Attributes {
						if kv.Key == key {
							v = kv.Value.GetStringValue()
						}
					}
					counts[v] += p.Count
				}
			}
		}
	}
	return counts
}
