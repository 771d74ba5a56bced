package hardware

import (
	"context"
	"fmt"
	"testing"

	"github.com/toolcat/toolcat/runtime"
)

// FuzzCall sends arbitrary arguments to every tool over the simulated
// board, dry runs included: each answer is an envelope, never a panic or
// an internal error.
func FuzzCall(f *testing.F) {
	for _, s := range []string{
		`{"bus":"1","address":32,"register":0,"data":[0]}`,
		`{"bus":"1","address":118,"register":250,"length":32}`,
		`{"port":"/dev/ttyUSB0","data":"zz","encoding":"hex"}`,
		`{"port":"/dev/ttyUSB0","data":"PING\n","timeout_ms":1,"max_bytes":1}`,
		`{"port":"0.0","mode":3,"speed_hz":1000,"data":[1,128,0]}`,
		`{"bus":"999"}`, `{}`, `[]`, `null`, `{"data":[256]}`,
	} {
		for tool := range 7 {
			f.Add(uint8(tool), false, []byte(s))
		}
	}
	board := NewSimBoard()
	cfg := board.Config()
	cfg.WritesPerSecond = 1e9
	tools, err := New(cfg)
	if err != nil {
		f.Fatal(err)
	}
	reg, err := NewRegistry(tools)
	if err != nil {
		f.Fatal(err)
	}
	names := []string{"list_serial_ports", "read_serial_port", "write_serial_port", "scan_i2c_bus", "read_i2c_register", "write_i2c_register", "transfer_spi"}
	f.Fuzz(func(t *testing.T, tool uint8, dry bool, args []byte) {
		name := names[int(tool)%len(names)]
		res := reg.Call(context.Background(), name, args, runtime.CallOptions{Autonomy: runtime.AutonomyFull, IdempotencyKey: fmt.Sprintf("fuzz-%d", keys.Add(1)), DryRun: dry})
		if !res.Success && (res.Error == nil || res.Error.Code == runtime.CodeInternal) {
			t.Fatalf("%s %s: %+v", name, args, res.Error)
		}
	})
}
