package codemode_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/codemode"
)

// BenchmarkInnerCall compares a tool call made by a program with the same
// call made directly through Session.Call, with and without an
// idempotency key (a program's calls always carry one). The programs make
// 0 or 100 calls, each run a program of its own text (a run of the same
// text would replay): the difference, divided by 100, is the cost of one
// inner call.
func BenchmarkInnerCall(b *testing.B) {
	d := newDesk()
	reg := d.registry(b)
	m := codemode.New(reg, codemode.ModeLimits(codemode.Limits{Calls: 1000}))
	ctx := context.Background()
	raw := []byte(`{"status":"open"}`)
	b.Run("direct", func(b *testing.B) {
		s := reg.Session("direct")
		cpu := startCPU()
		for b.Loop() {
			if res := s.Call(ctx, "list_tickets", raw, runtime.CallOptions{}); !res.Success {
				b.Fatal(string(res.JSON()))
			}
		}
		reportCPU(b, cpu)
	})
	b.Run("direct_keyed", func(b *testing.B) {
		s := reg.Session("keyed")
		i := 0
		cpu := startCPU()
		for b.Loop() {
			i++
			if res := s.Call(ctx, "list_tickets", raw, runtime.CallOptions{IdempotencyKey: "k" + strconv.Itoa(i)}); !res.Success {
				b.Fatal(string(res.JSON()))
			}
		}
		reportCPU(b, cpu)
	})
	for _, n := range []int{0, 100} {
		b.Run(fmt.Sprintf("program_calls=%d", n), func(b *testing.B) {
			s := reg.Session("program")
			i := 0
			cpu := startCPU()
			for b.Loop() {
				i++
				code := fmt.Sprintf("// run %d\nlet n = 0;\nfor (let i = 0; i < %d; i++) n += tools.list_tickets({status: \"open\"}).data.length;\nreturn n;", i, n)
				if res := m.Run(ctx, s, code); !res.Success {
					b.Fatal(string(res.JSON()))
				}
			}
			reportCPU(b, cpu)
		})
	}
}

// BenchmarkStartup runs an empty program against 1,000 tools: a fresh
// interpreter, the guards, 1,000 bound functions, frozen, and the
// program's compilation.
func BenchmarkStartup(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			reg := runtime.New()
			for i := range n {
				m := runtime.Meta{Name: fmt.Sprintf("get_item_%d", i), Description: "Gets an item.", Risk: runtime.RiskLow,
					ArgsSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}}}`)}
				reg.MustRegister(tool(b, m, func(context.Context, map[string]any) (any, error) { return nil, nil }))
			}
			m := codemode.New(reg)
			s := reg.Session("startup")
			cpu := startCPU()
			for b.Loop() {
				if res := m.Run(context.Background(), s, "return 1;"); !res.Success {
					b.Fatal(string(res.JSON()))
				}
			}
			reportCPU(b, cpu)
		})
	}
}

// TestDefinitionsAreSmall checks what code mode puts in every prompt
// against the size of the tools it stands for; the figures themselves
// are printed by the example host (make demo).
func TestDefinitionsAreSmall(t *testing.T) {
	m := codemode.New(runtime.New())
	var total int
	for _, meta := range m.Tools() {
		total += len(meta.Description) + len(meta.ArgsSchema)
	}
	if total > 6000 {
		t.Errorf("code mode's two definitions take %d bytes of text", total)
	}
	if d := m.Tools()[1].Description; !strings.Contains(d, "10s of wall time") || !strings.Contains(d, "type Result<T") {
		t.Errorf("execute_code does not tell the limits and the envelope:\n%s", d)
	}
}
