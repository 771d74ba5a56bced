package hardware

import (
	"context"
	"fmt"

	"github.com/toolcat/toolcat/runtime"
)

// writeSerialPort implements the tool write_serial_port.
type writeSerialPort struct{ h *hw }

var _ WriteSerialPort = (*writeSerialPort)(nil)

// Execute writes the bytes and waits until they have left the port.
func (t *writeSerialPort) Execute(ctx context.Context, args *WriteSerialPortArgs) (*WriteSerialPortResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := t.h.allowSerial(args.Port); err != nil {
		return nil, err
	}
	data, err := decodeData(args.Data, string(args.Encoding))
	if err != nil {
		return nil, err
	}
	if err := t.h.limit.take("serial port " + args.Port); err != nil {
		return nil, err
	}
	mode := lineMode(args.Baud, args.DataBits, string(args.Parity), string(args.StopBits))
	defer t.h.lock("serial:" + args.Port)()
	p, err := t.h.openSerial(ctx, args.Port, mode)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	what := "serial port " + args.Port
	n := 0
	for n < len(data) {
		k, err := p.Write(data[n:])
		if err != nil {
			return nil, toolError(ctx, err, what, "dialout", args.Port)
		}
		if k == 0 {
			return nil, runtime.NewError(runtime.CodeTimeout, fmt.Sprintf("%s took only %d of %d bytes", what, n, len(data)))
		}
		n += k
	}
	if err := p.Drain(); err != nil {
		return nil, toolError(ctx, err, what, "dialout", args.Port)
	}
	return &WriteSerialPortResult{Port: args.Port, BytesWritten: int64(n)}, nil
}

// DryRun says which bytes would go to which port, with which line
// settings; it opens nothing.
func (t *writeSerialPort) DryRun(ctx context.Context, args *WriteSerialPortArgs) (*runtime.Preview, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := t.h.allowSerial(args.Port); err != nil {
		return nil, err
	}
	data, err := decodeData(args.Data, string(args.Encoding))
	if err != nil {
		return nil, err
	}
	mode := lineMode(args.Baud, args.DataBits, string(args.Parity), string(args.StopBits))
	return &runtime.Preview{
		Summary: fmt.Sprintf("would write %d bytes to serial port %s at %s", len(data), args.Port, lineName(mode)),
		Effects: []string{
			"bytes: " + hexBytes(data),
			"as text: " + quoted(data),
		},
		Data: map[string]any{"port": args.Port, "bytes": toInts(data)},
	}, nil
}
