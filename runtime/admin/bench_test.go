package admin_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/admin"
)

// BenchmarkCallObserved compares a Call with no observer, with one that
// does nothing, and with the admin API's Metrics observing it.
func BenchmarkCallObserved(b *testing.B) {
	ctx := context.Background()
	args := []byte(`{"order_id":"A1"}`)
	for _, c := range []struct {
		name string
		obs  func(*runtime.Registry)
	}{
		{"none", func(*runtime.Registry) {}},
		{"empty_observer", func(r *runtime.Registry) { r.Observe(func(runtime.CallEvent) {}) }},
		{"admin_metrics", func(r *runtime.Registry) { r.Observe(admin.NewMetrics().Observe) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			reg := registry(b)
			c.obs(reg)
			b.ReportAllocs()
			for b.Loop() {
				if res := reg.Call(ctx, "get_order", args, runtime.CallOptions{}); !res.Success {
					b.Fatal(res.JSON())
				}
			}
		})
	}
}

// BenchmarkPrometheus writes /metrics for 100 tools.
func BenchmarkPrometheus(b *testing.B) {
	m := admin.NewMetrics()
	reg := runtime.New()
	for i := range 100 {
		name := "tool_" + string(rune('a'+i/26)) + string(rune('a'+i%26))
		reg.MustRegister(runtime.Tool{Meta: runtime.Meta{Name: name}, Execute: func(context.Context, any) (any, error) { return nil, nil }})
		for j := range 100 {
			m.Observe(runtime.CallEvent{Tool: name, Duration: time.Duration(j) * time.Millisecond, Code: []runtime.Code{"", runtime.CodeTimeout}[j%2]})
		}
	}
	srv, err := admin.New(reg, admin.WithToken(token), admin.WithMetrics(m))
	if err != nil {
		b.Fatal(err)
	}
	h := srv.Handler()
	req := httptest.NewRequest("GET", "/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	b.SetBytes(int64(w.Body.Len()))
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}
