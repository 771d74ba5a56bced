// Package otlptest is an OTLP/HTTP trace receiver for tests: it decodes
// what an exporter sends with the OTLP protobuf types, as a collector
// does, so that a test proves the wire format rather than an SDK's
// in-memory view of it.
package otlptest

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Receiver receives OTLP/HTTP trace exports at /v1/traces (protobuf,
// gzip or not). Make it with NewReceiver; it is safe for concurrent use.
type Receiver struct {
	URL string // the endpoint, for OTEL_EXPORTER_OTLP_ENDPOINT

	mu       sync.Mutex
	requests []*coltracepb.ExportTraceServiceRequest
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
// /v1/traces, or that does not decode, is refused and kept as an error.
func (rc *Receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	fail := func(msg string) {
		rc.mu.Lock()
		rc.errs = append(rc.errs, msg)
		rc.mu.Unlock()
		http.Error(w, msg, http.StatusBadRequest)
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" {
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
	req := &coltracepb.ExportTraceServiceRequest{}
	if err := proto.Unmarshal(raw, req); err != nil {
		fail("decoding: " + err.Error())
		return
	}
	rc.mu.Lock()
	rc.requests = append(rc.requests, req)
	rc.mu.Unlock()
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

// Requests returns the exports received so far, and the reasons of those
// refused.
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
