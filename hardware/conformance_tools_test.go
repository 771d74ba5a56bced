package hardware

import (
	"context"
	"testing"

	"github.com/toolcat/toolcat/conformance"
)

// conformanceTools returns the hardware tools over a simulated board, with
// the board's state as the Probe: a dry run must leave every register and
// the microcontroller as they were, and Revert must restore the registers
// a write changed. The rate limit is raised so the harness's many calls
// are not refused.
func conformanceTools(t *testing.T) (Tools, conformance.Options) {
	board := NewSimBoard()
	cfg := board.Config()
	cfg.WritesPerSecond = 1e6
	cfg.WriteBurst = 1e6
	tools, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	opts := conformance.Options{
		Probe:         func(context.Context) (any, error) { return board.Snapshot(), nil },
		Deterministic: []string{"list_serial_ports", "read_i2c_register", "scan_i2c_bus"},
	}
	return tools, opts
}
