package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/toolcat/toolcat/runtime"
)

// BenchmarkNewSession makes the server of a new stateful session for a
// registry of 1,000 tools: what every client's initialize costs.
func BenchmarkNewSession(b *testing.B) {
	reg := runtime.New()
	for i := range 1000 {
		reg.MustRegister(runtime.Tool{
			Meta: runtime.Meta{Name: fmt.Sprintf("get_record_%d", i), Description: "Reads a record.", Risk: runtime.RiskLow,
				ArgsSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["id"],"properties":{"id":{"type":"integer","minimum":1}}}`)},
			Execute: func(context.Context, any) (any, error) { return map[string]any{}, nil },
		})
	}
	s := New(reg)
	s.newConn(true) // the definitions, rendered once per server
	b.ReportAllocs()
	for b.Loop() {
		s.newConn(true)
	}
}
