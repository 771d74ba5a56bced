//go:build linux || darwin

package hardware

import (
	"bufio"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"go.bug.st/serial"

	"github.com/toolcat/toolcat/runtime"
)

// ptyPort opens a pseudo-terminal pair: the tools open the terminal side
// with go.bug.st/serial, as a real tty, and the test plays the device on
// the other side. The terminal is put in raw mode once, so that bytes the
// device sends before the tools open it are not echoed or edited.
func ptyPort(t *testing.T) (device *os.File, name string) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal on this machine: %v", err)
	}
	t.Cleanup(func() { ptmx.Close(); tty.Close() })
	p, err := serial.Open(tty.Name(), &serial.Mode{BaudRate: 9600})
	if err != nil {
		t.Fatalf("serial.Open(%s): %v", tty.Name(), err)
	}
	p.Close()
	return ptmx, tty.Name()
}

func TestSerialRoundTripOverPTY(t *testing.T) {
	device, name := ptyPort(t)
	// The device answers each line "PING" with "PONG".
	go func() {
		r := bufio.NewReader(device)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			if strings.TrimSpace(line) == "PING" {
				device.Write([]byte("PONG\r\n"))
			}
		}
	}()
	reg := registry(t, Config{SerialPorts: []string{name}})

	var w WriteSerialPortResult
	data(t, call(t, reg, "write_serial_port", map[string]any{"port": name, "data": "50494e470a", "encoding": "hex", "baud": 115200}, false), &w)
	if w.BytesWritten != 5 {
		t.Fatalf("bytes_written = %d; want 5", w.BytesWritten)
	}
	var r ReadSerialPortResult
	data(t, call(t, reg, "read_serial_port", map[string]any{"port": name, "timeout_ms": 2000, "baud": 115200}, false), &r)
	if r.Data != "PONG\r\n" || r.BytesRead != 6 || r.TimedOut {
		t.Fatalf("read %+v; want PONG\\r\\n, 6 bytes, not timed out", r)
	}
}

func TestSerialReadTimeoutOverPTY(t *testing.T) {
	_, name := ptyPort(t)
	reg := registry(t, Config{SerialPorts: []string{name}})
	start := time.Now()
	te := wantCode(t, call(t, reg, "read_serial_port", map[string]any{"port": name, "timeout_ms": 300}, false), runtime.CodeTimeout)
	d := time.Since(start)
	t.Logf("a 300 ms read timed out after %s", d)
	if d < 300*time.Millisecond || d > 2*time.Second {
		t.Fatalf("a 300 ms read timed out after %s", d)
	}
	if !strings.Contains(te.Message, "300 ms") || !te.RetryAllowed {
		t.Fatalf("timeout error %q (retry %v) should name the timeout and allow a retry", te.Message, te.RetryAllowed)
	}
}

func TestSerialReadCapAndEncodingsOverPTY(t *testing.T) {
	device, name := ptyPort(t)
	reg := registry(t, Config{SerialPorts: []string{name}})
	if _, err := device.Write([]byte("\x00\x01\xfe\xffabcdefgh")); err != nil {
		t.Fatal(err)
	}
	var r ReadSerialPortResult
	data(t, call(t, reg, "read_serial_port", map[string]any{"port": name, "max_bytes": 4, "encoding": "hex"}, false), &r)
	if r.Data != "0001feff" || r.BytesRead != 4 || r.TimedOut {
		t.Fatalf("read %+v; want hex 0001feff, 4 bytes", r)
	}
	data(t, call(t, reg, "read_serial_port", map[string]any{"port": name, "max_bytes": 3, "encoding": "base64"}, false), &r)
	if r.Data != "YWJj" {
		t.Fatalf("read %+v; want base64 YWJj (abc)", r)
	}
	// The rest, then silence: the read ends after the line is quiet,
	// long before the timeout.
	start := time.Now()
	data(t, call(t, reg, "read_serial_port", map[string]any{"port": name, "timeout_ms": 5000}, false), &r)
	if r.Data != "defgh" || r.TimedOut {
		t.Fatalf("read %+v; want defgh, ended by the quiet line", r)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("a read whose data ended took %s; want it to end once the line is quiet", d)
	}
}

// A dry run shows the bytes and sends nothing.
func TestSerialDryRunSendsNothingOverPTY(t *testing.T) {
	device, name := ptyPort(t)
	reg := registry(t, Config{SerialPorts: []string{name}})
	res := call(t, reg, "write_serial_port", map[string]any{"port": name, "data": "AT\r\n"}, true)
	var p runtime.Preview
	data(t, res, &p)
	if !strings.Contains(p.Summary, "4 bytes") || !strings.Contains(p.Summary, name) || !strings.Contains(p.Summary, "9600 baud, 8N1") {
		t.Fatalf("preview %q should name the byte count, the port and the line settings", p.Summary)
	}
	if len(p.Effects) == 0 || p.Effects[0] != "bytes: 0x41 0x54 0x0d 0x0a" {
		t.Fatalf("preview effects %q; want the bytes in hex", p.Effects)
	}
	// The next bytes the device receives are those of a real write: the
	// dry run sent none before them.
	data(t, call(t, reg, "write_serial_port", map[string]any{"port": name, "data": "X"}, false), &WriteSerialPortResult{})
	got := make(chan []byte, 1)
	go func() {
		buf := make([]byte, 16)
		n, _ := device.Read(buf)
		got <- buf[:n]
	}()
	select {
	case b := <-got:
		if string(b) != "X" {
			t.Fatalf("the device received %q; want only the real write's \"X\"", b)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the device received nothing from the real write")
	}
}

func TestSerialMissingPortIsNotFound(t *testing.T) {
	reg := registry(t, Config{SerialPorts: []string{"/dev/ttyNOSUCH9"}})
	wantCode(t, call(t, reg, "read_serial_port", map[string]any{"port": "/dev/ttyNOSUCH9"}, false), runtime.CodeNotFound)
}
