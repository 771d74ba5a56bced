package hardware

import (
	"context"
	"fmt"
	"time"

	"github.com/toolcat/toolcat/runtime"
)

// readIdle ends a read once data has come and the line has been quiet
// this long, so that a device's answer returns without waiting out the
// whole timeout.
const readIdle = 100 * time.Millisecond

// readSlice is the longest one driver read blocks, so that the context
// is checked often.
const readSlice = 50 * time.Millisecond

// readSerialPort implements the tool read_serial_port.
type readSerialPort struct{ h *hw }

var _ ReadSerialPort = (*readSerialPort)(nil)

// Execute reads until max_bytes arrive, timeout_ms passes, or the line
// is quiet for readIdle after some data. Nothing at all within the
// timeout is a timeout error.
func (t *readSerialPort) Execute(ctx context.Context, args *ReadSerialPortArgs) (*ReadSerialPortResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := t.h.allowSerial(args.Port); err != nil {
		return nil, err
	}
	timeout := time.Duration(args.TimeoutMs) * time.Millisecond
	if timeout <= 0 {
		timeout = time.Second
	}
	max := int(args.MaxBytes)
	if max <= 0 {
		max = 256
	}
	mode := lineMode(args.Baud, args.DataBits, string(args.Parity), string(args.StopBits))
	defer t.h.lock("serial:" + args.Port)()
	p, err := t.h.openSerial(ctx, args.Port, mode)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	what := "serial port " + args.Port
	buf := make([]byte, max)
	n, timedOut := 0, false
	deadline := time.Now().Add(timeout)
	var last time.Time
	for n < max {
		if err := ctx.Err(); err != nil {
			return nil, toolError(ctx, err, what, "dialout", args.Port)
		}
		left := time.Until(deadline)
		if left <= 0 {
			timedOut = true
			break
		}
		if err := p.SetReadTimeout(min(left, readSlice)); err != nil {
			return nil, toolError(ctx, err, what, "dialout", args.Port)
		}
		k, err := p.Read(buf[n:])
		if err != nil {
			return nil, toolError(ctx, err, what, "dialout", args.Port)
		}
		if k == 0 { // go.bug.st/serial answers a read timeout with (0, nil)
			if n > 0 && time.Since(last) >= readIdle {
				break
			}
			continue
		}
		n += k
		last = time.Now()
	}
	if n == 0 {
		return nil, runtime.NewError(runtime.CodeTimeout,
			fmt.Sprintf("no data arrived on %s within %d ms at %s", args.Port, timeout.Milliseconds(), lineName(mode))).
			WithSuggestion("The device sent nothing. Check the baud rate and line settings, send it a command with write_serial_port first, or read again with a longer timeout_ms.")
	}
	enc := string(args.Encoding)
	if enc == "" {
		enc = "text"
	}
	return &ReadSerialPortResult{
		Port:      args.Port,
		Data:      encodeData(buf[:n], enc),
		Encoding:  ReadSerialPortResultEncoding(enc),
		BytesRead: int64(n),
		TimedOut:  timedOut,
	}, nil
}
