package hardware

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"periph.io/x/conn/v3/conntest"
	"periph.io/x/conn/v3/i2c"
	"periph.io/x/conn/v3/i2c/i2ctest"
	"periph.io/x/conn/v3/spi"
	"periph.io/x/conn/v3/spi/spitest"

	"github.com/toolcat/toolcat/runtime"
)

// keepOpen hands the tools a bus whose Close does nothing, so that the
// test checks with the playback's own Close that every scripted
// operation ran, once, at the end.
type keepOpen struct{ i2c.Bus }

func (keepOpen) Close() error { return nil }

// strictPlayback is a playback that also fails on a transaction beyond
// the script, even one whose error the code under test would drop.
type strictPlayback struct {
	*i2ctest.Playback
	tries int
}

func (p *strictPlayback) Tx(addr uint16, w, r []byte) error {
	p.tries++
	return p.Playback.Tx(addr, w, r)
}

func (p *strictPlayback) Close() error {
	if err := p.Playback.Close(); err != nil {
		return err
	}
	if p.tries != len(p.Ops) {
		return fmt.Errorf("%d transactions tried; the script has %d", p.tries, len(p.Ops))
	}
	return nil
}

func i2cPlayback(t *testing.T, ops ...i2ctest.IO) (*strictPlayback, Config) {
	pb := &strictPlayback{Playback: &i2ctest.Playback{Ops: ops, DontPanic: true}}
	return pb, Config{
		I2C:     map[string][]uint16{"1": {0x20, 0x76}},
		Drivers: Drivers{OpenI2C: func(string) (i2c.BusCloser, error) { return keepOpen{pb}, nil }},
	}
}

func TestReadI2CRegisterPlayback(t *testing.T) {
	pb, cfg := i2cPlayback(t, i2ctest.IO{Addr: 0x76, W: []byte{0xd0}, R: []byte{0x60, 0x00}})
	reg := registry(t, cfg)
	var r ReadI2CRegisterResult
	data(t, call(t, reg, "read_i2c_register", map[string]any{"bus": "1", "address": 0x76, "register": 0xd0, "length": 2}, false), &r)
	if !slices.Equal(r.Values, []int64{0x60, 0}) || r.Hex != "6000" {
		t.Fatalf("read %+v; want values [96 0], hex 6000", r)
	}
	if err := pb.Close(); err != nil {
		t.Fatal(err)
	}
}

// A write reads the registers first, then writes; Revert writes the
// previous bytes back: exactly these transactions, in this order.
func TestWriteI2CRegisterAndRevertPlayback(t *testing.T) {
	pb, cfg := i2cPlayback(t,
		i2ctest.IO{Addr: 0x20, W: []byte{0x09}, R: []byte{0x00, 0x0f}},
		i2ctest.IO{Addr: 0x20, W: []byte{0x09, 0xaa, 0x55}},
		i2ctest.IO{Addr: 0x20, W: []byte{0x09, 0x00, 0x0f}},
	)
	tools, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	args := &WriteI2CRegisterArgs{Bus: "1", Address: 0x20, Register: 0x09, Data: []int64{0xaa, 0x55}}
	res, err := tools.WriteI2CRegister.Execute(ctx, args)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Previous, []int64{0x00, 0x0f}) || !slices.Equal(res.Written, []int64{0xaa, 0x55}) {
		t.Fatalf("result %+v; want previous [0 15], written [170 85]", res)
	}
	if err := tools.WriteI2CRegister.Revert(ctx, args, res); err != nil {
		t.Fatal(err)
	}
	if err := pb.Close(); err != nil {
		t.Fatal(err)
	}
}

// A dry run reads and writes nothing: a write would not match the
// script, and Close would see an operation left over or one too many.
func TestWriteI2CRegisterDryRunPlayback(t *testing.T) {
	pb, cfg := i2cPlayback(t, i2ctest.IO{Addr: 0x76, W: []byte{0xf4}, R: []byte{0x00}})
	reg := registry(t, cfg)
	var p runtime.Preview
	data(t, call(t, reg, "write_i2c_register", map[string]any{"bus": "1", "address": 0x76, "register": 0xf4, "data": []int{0x27}}, true), &p)
	want := "would write 1 bytes (0x27) to register 0xf4 of I2C device 0x76 on bus 1"
	if p.Summary != want || !slices.Equal(p.Effects, []string{"register 0xf4: 0x00 becomes 0x27"}) {
		t.Fatalf("preview %q %q; want %q and the register's change", p.Summary, p.Effects, want)
	}
	if err := pb.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestTransferSPIPlayback(t *testing.T) {
	pb := &spitest.Playback{Playback: conntest.Playback{
		Ops:       []conntest.IO{{W: []byte{0x01, 0x80, 0x00}, R: []byte{0x00, 0x02, 0x00}}},
		DontPanic: true,
	}}
	reg := registry(t, Config{
		SPIPorts: []string{"0.0"},
		Drivers:  Drivers{OpenSPI: func(string) (spi.PortCloser, error) { return pb, nil }},
	})
	var r TransferSPIResult
	data(t, call(t, reg, "transfer_spi", map[string]any{"port": "0.0", "data": []int{1, 0x80, 0}}, false), &r)
	if !slices.Equal(r.Received, []int64{0, 2, 0}) || r.Hex != "000200" {
		t.Fatalf("transfer %+v; want received [0 2 0]", r)
	}
	if err := pb.Close(); err != nil {
		t.Fatal(err)
	}
}

// A scan reads one byte at each allowed address and writes nothing.
func TestScanI2CBusRecord(t *testing.T) {
	board := NewSimBoard()
	rec := &i2ctest.Record{Bus: simI2C{board}}
	cfg := Config{
		I2C:     map[string][]uint16{"1": {0x20, 0x50, 0x76}},
		Drivers: Drivers{OpenI2C: func(string) (i2c.BusCloser, error) { return keepOpen{rec}, nil }},
	}
	var r ScanI2CBusResult
	data(t, call(t, registry(t, cfg), "scan_i2c_bus", map[string]any{"bus": "1"}, false), &r)
	if !slices.Equal(r.Addresses, []int64{0x20, 0x76}) || !slices.Equal(r.Hex, []string{"0x20", "0x76"}) {
		t.Fatalf("scan %+v; want 0x20 and 0x76", r)
	}
	want := []i2ctest.IO{{Addr: 0x20, R: []byte{0xff}}, {Addr: 0x76, R: []byte{0x00}}}
	if len(rec.Ops) != len(want) {
		t.Fatalf("recorded %+v; want %+v", rec.Ops, want)
	}
	for i, op := range rec.Ops {
		if op.Addr != want[i].Addr || len(op.W) != 0 || len(op.R) != 1 {
			t.Fatalf("recorded %+v; want one-byte reads without writes: %+v", rec.Ops, want)
		}
	}
}

func TestMissingI2CDeviceIsNotFoundWithScanHint(t *testing.T) {
	board := NewSimBoard()
	cfg := board.Config()
	cfg.I2C = map[string][]uint16{SimBus: nil}
	te := wantCode(t, call(t, registry(t, cfg), "read_i2c_register", map[string]any{"bus": "1", "address": 0x50, "register": 0}, false), runtime.CodeNotFound)
	if !strings.Contains(te.Message, "0x50") || !strings.Contains(te.Suggestion, "scan_i2c_bus") {
		t.Fatalf("not_found %q / %q should name the address and point to scan_i2c_bus", te.Message, te.Suggestion)
	}
}

func TestAllowList(t *testing.T) {
	board := NewSimBoard()
	reg := registry(t, board.Config())
	for _, tc := range []struct {
		desc, tool string
		args       map[string]any
		want       []string
	}{
		{"bus outside the list", "scan_i2c_bus", map[string]any{"bus": "2"}, []string{"I2C bus 2", "bus 1 (0x20, 0x76)"}},
		{"address outside the list", "write_i2c_register", map[string]any{"bus": "1", "address": 0x50, "register": 0, "data": []int{1}}, []string{"I2C device 0x50 on bus 1", "bus 1 (0x20, 0x76)"}},
		{"address outside the list, read", "read_i2c_register", map[string]any{"bus": "1", "address": 0x77, "register": 0}, []string{"0x77"}},
		{"serial port outside the list", "write_serial_port", map[string]any{"port": "/dev/ttyS0", "data": "x"}, []string{"/dev/ttyS0", "allowed: /dev/ttyUSB0"}},
		{"SPI port outside the list", "transfer_spi", map[string]any{"port": "0.1", "data": []int{0}}, []string{"SPI port 0.1", "allowed: 0.0"}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			before := board.Snapshot()
			for _, dry := range []bool{false, true} {
				te := wantCode(t, call(t, reg, tc.tool, tc.args, dry), runtime.CodePermissionDenied)
				for _, w := range tc.want {
					if !strings.Contains(te.Message, w) {
						t.Errorf("dry=%v: message %q lacks %q", dry, te.Message, w)
					}
				}
				if te.RetryAllowed {
					t.Errorf("permission_denied allows a retry")
				}
			}
			if after := board.Snapshot(); !slices.Equal(after.Lines, before.Lines) || after.SPIRounds != before.SPIRounds || after.Registers[0x20] != before.Registers[0x20] {
				t.Errorf("a refused call changed the board")
			}
		})
	}
	// list_serial_ports lists only allowed ports.
	cfg := board.Config()
	cfg.SerialPorts = []string{"/dev/ttyACM0"}
	var l ListSerialPortsResult
	data(t, call(t, registry(t, cfg), "list_serial_ports", map[string]any{}, false), &l)
	if len(l.Ports) != 0 {
		t.Fatalf("listed %+v; want no port outside the allow-list", l.Ports)
	}
}
