package hardware

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"periph.io/x/conn/v3/i2c"

	"github.com/toolcat/toolcat/runtime"
)

func TestLimiterRefillsAtTheRate(t *testing.T) {
	now := time.Unix(0, 0)
	l := newLimiter(1, 2, func() time.Time { return now })
	for i := range 2 {
		if err := l.take("dev"); err != nil {
			t.Fatalf("write %d within the burst: %v", i+1, err)
		}
	}
	err := l.take("dev")
	var te *runtime.ToolError
	if !errors.As(err, &te) || te.Code != runtime.CodeRateLimited || te.Details["retry_after_ms"] != int64(1000) {
		t.Fatalf("third write: %v; want rate_limited with retry_after_ms 1000", err)
	}
	if err := l.take("other"); err != nil {
		t.Fatalf("another device is limited by the first one's writes: %v", err)
	}
	now = now.Add(500 * time.Millisecond)
	if err := l.take("dev"); err == nil {
		t.Fatal("half a token let a write through")
	}
	now = now.Add(600 * time.Millisecond)
	if err := l.take("dev"); err != nil {
		t.Fatalf("after 1.1 s at 1 write/s: %v", err)
	}
	now = now.Add(time.Hour)
	for i := range 2 {
		if err := l.take("dev"); err != nil {
			t.Fatalf("after an hour, write %d: %v", i+1, err)
		}
	}
	if err := l.take("dev"); err == nil {
		t.Fatal("an idle hour saved more than the burst")
	}
}

// A looping model is refused by the second write to one device within a
// second; dry runs and other devices are not counted; the register keeps
// the first write.
func TestRateLimitPerDevice(t *testing.T) {
	board := NewSimBoard()
	cfg := board.Config()
	cfg.WritesPerSecond = 1
	reg := registry(t, cfg)
	write := func(addr int, v int, dry bool) runtime.Result {
		return call(t, reg, "write_i2c_register", map[string]any{"bus": "1", "address": addr, "register": 9, "data": []int{v}}, dry)
	}
	for range 3 {
		data(t, write(0x20, 1, true), &runtime.Preview{})
	}
	data(t, write(0x20, 1, false), &WriteI2CRegisterResult{})
	te := wantCode(t, write(0x20, 2, false), runtime.CodeRateLimited)
	if !strings.Contains(te.Message, "I2C device 0x20 on bus 1") || !te.RetryAllowed {
		t.Fatalf("rate_limited %q (retry %v) should name the device and allow a later retry", te.Message, te.RetryAllowed)
	}
	if v, _ := board.Register(0x20, 9); v != 1 {
		t.Fatalf("register 9 = %d; the refused write changed it", v)
	}
	data(t, write(0x76, 1, false), &WriteI2CRegisterResult{})
}

func TestNewChecksConfig(t *testing.T) {
	for _, tc := range []struct {
		desc string
		cfg  Config
		want string
	}{
		{"bus name", Config{I2C: map[string][]uint16{"i2c-1": nil}}, `I2C bus "i2c-1" is not a bus number`},
		{"10-bit address", Config{I2C: map[string][]uint16{"1": {0x80}}}, "address 0x80 is not a 7-bit device address"},
		{"reserved address", Config{I2C: map[string][]uint16{"1": {0x00}}}, "address 0x0 is not a 7-bit"},
		{"serial port", Config{SerialPorts: []string{"/etc/passwd/../x"}}, `serial port "/etc/passwd/../x"`},
		{"SPI port", Config{SPIPorts: []string{"/dev/spidev0.0"}}, `SPI port "/dev/spidev0.0" is not bus.cs`},
		{"rate", Config{WritesPerSecond: -1}, "WritesPerSecond -1 is negative"},
		{"burst", Config{WriteBurst: -2}, "WriteBurst -2 is negative"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			_, err := New(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New: %v; want an error with %q", err, tc.want)
			}
		})
	}
}

func TestErrorTaxonomy(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		err  error
		code runtime.Code
		hint string
	}{
		{fmt.Errorf("open /dev/ttyUSB0: %w", syscall.EACCES), runtime.CodePermissionDenied, "dialout group"},
		{fmt.Errorf("open /dev/ttyUSB0: %w", syscall.EBUSY), runtime.CodeDependencyUnavailable, ""},
		{fmt.Errorf("open /dev/ttyUSB0: %w", syscall.ENOENT), runtime.CodeNotFound, ""},
		{fmt.Errorf("tx: %w", syscall.ENXIO), runtime.CodeNotFound, "scan_i2c_bus"},
		{fmt.Errorf("tx: %w", syscall.ETIMEDOUT), runtime.CodeTimeout, ""},
		{context.DeadlineExceeded, runtime.CodeTimeout, ""},
		{fmt.Errorf("%w (plan9)", ErrUnsupported), runtime.CodeUnsupported, ""},
		{errors.New("sysfs-i2c: are you member of group 'plugdev'? open /dev/i2c-1: permission denied"), runtime.CodePermissionDenied, "usermod"},
		{errors.New("something else"), runtime.CodeDependencyUnavailable, ""},
	} {
		var te *runtime.ToolError
		if !errors.As(toolError(ctx, tc.err, "the device", "dialout", "/dev/ttyUSB0"), &te) || te.Code != tc.code {
			t.Errorf("%v: got %v; want %s", tc.err, te, tc.code)
			continue
		}
		if !strings.Contains(te.Suggestion, tc.hint) {
			t.Errorf("%v: suggestion %q lacks %q", tc.err, te.Suggestion, tc.hint)
		}
	}
}

// A port another program holds is dependency_unavailable.
func TestBusySerialPort(t *testing.T) {
	board := NewSimBoard()
	held, err := board.Drivers().OpenSerial(SimSerialPort, lineMode(9600, 8, "none", "1"))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	wantCode(t, call(t, registry(t, board.Config()), "read_serial_port", map[string]any{"port": SimSerialPort}, false), runtime.CodeDependencyUnavailable)
}

// Without a driver for the bus, the tools say unsupported.
func TestUnsupportedBus(t *testing.T) {
	cfg := Config{I2C: map[string][]uint16{"1": nil}}
	cfg.Drivers.OpenI2C = func(bus string) (i2c.BusCloser, error) { return nil, fmt.Errorf("%w (windows)", ErrUnsupported) }
	wantCode(t, call(t, registry(t, cfg), "scan_i2c_bus", map[string]any{"bus": "1"}, false), runtime.CodeUnsupported)
}
