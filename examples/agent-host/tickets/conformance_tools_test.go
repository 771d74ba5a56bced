package tickets

import (
	"context"
	"testing"
	"time"

	"github.com/toolcat/toolcat/conformance"
)

// conformanceTools returns the implementations that TestConformance
// checks, over an in-memory desk with a fixed clock, and the options of
// the checks: a Probe over the desk, and the read-only tools marked
// deterministic.
func conformanceTools(t *testing.T) (Tools, conformance.Options) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	desk := NewDesk(func() time.Time { return now },
		Ticket{ID: "OPS-12", Title: "Checkout returns 502", Status: "in_progress", Assignee: "Dana", Priority: "urgent"},
	)
	opts := conformance.Options{
		Probe:         func(context.Context) (any, error) { return desk.state(), nil },
		Deterministic: []string{"get_ticket", "get_ticket_snapshot"},
	}
	return New(desk), opts
}
