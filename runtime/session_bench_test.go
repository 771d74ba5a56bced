package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/internal/sessionflow"
)

// BenchmarkSessionCall compares a call through a session with the same
// call through the registry (the peer in the same run).
func BenchmarkSessionCall(b *testing.B) {
	ctx := context.Background()
	w := sessionflow.NewWorld()
	reg := w.Replicas(b, 1, runtime.NewMemorySessionStore())[0]
	args := []byte(`{"q":"pgvector"}`)
	b.Run("registry_read_only", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if res := reg.Call(ctx, "search_docs", args, runtime.CallOptions{StepID: "s"}); !res.Success {
				b.Fatal(res.JSON())
			}
		}
	})
	b.Run("session_read_only", func(b *testing.B) {
		s := reg.Session("bench-ro")
		b.ReportAllocs()
		for b.Loop() {
			if res := s.Call(ctx, "search_docs", args, runtime.CallOptions{}); !res.Success {
				b.Fatal(res.JSON())
			}
		}
	})
	b.Run("session_side_effect_journaled", func(b *testing.B) {
		s := reg.Session("bench-se")
		b.ReportAllocs()
		for b.Loop() {
			if res := s.Call(ctx, "send_email", []byte(`{"to":"a@example.com"}`), runtime.CallOptions{}); !res.Success {
				b.Fatal(res.JSON())
			}
		}
	})
}

// BenchmarkSessionSearch measures search_tools_by_keywords over 1,000
// hidden tools, promotion included.
func BenchmarkSessionSearch(b *testing.B) {
	ctx := context.Background()
	reg := runtime.New()
	verbs := []string{"create", "delete", "list", "get", "update", "archive", "export", "send"}
	nouns := []string{"invoice", "ticket", "label", "calendar_event", "customer", "order", "report", "page", "repository",
		"comment", "file", "user", "team", "message", "payment", "subscription", "webhook", "deployment", "alert", "dashboard",
		"note", "task", "contact", "campaign", "document"}
	n := 0
	for i := 0; n < 1000; i++ {
		name := fmt.Sprintf("%s_%s_%d", verbs[i%len(verbs)], nouns[(i/len(verbs))%len(nouns)], i)
		m := runtime.Meta{Name: name, Description: fmt.Sprintf("Does %s on a %s.", verbs[i%len(verbs)], nouns[(i/len(verbs))%len(nouns)]),
			Exposure: runtime.ExposureHidden, ArgsSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}}}`)}
		reg.MustRegister(runtime.Tool{Meta: m, Execute: func(context.Context, any) (any, error) { return nil, nil }})
		n++
	}
	s := reg.Session("bench-search")
	q := []byte(`{"query":"cancel the customer's subscription","limit":5}`)
	s.Call(ctx, runtime.SearchToolsByKeywords, q, runtime.CallOptions{}) // builds the index
	b.ReportAllocs()
	for b.Loop() {
		if res := s.Call(ctx, runtime.SearchToolsByKeywords, q, runtime.CallOptions{}); !res.Success {
			b.Fatal(res.JSON())
		}
	}
}
