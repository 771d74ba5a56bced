package hardware

import (
	"context"

	"github.com/toolcat/toolcat/runtime"
)

// writeSerialPort implements the tool write_serial_port.
type writeSerialPort struct{}

var _ WriteSerialPort = (*writeSerialPort)(nil)

// Execute does the work of write_serial_port.
func (t *writeSerialPort) Execute(ctx context.Context, args *WriteSerialPortArgs) (*WriteSerialPortResult, error) {
	return nil, runtime.ErrNotImplemented
}

// DryRun previews what Execute would do, changing nothing.
func (t *writeSerialPort) DryRun(ctx context.Context, args *WriteSerialPortArgs) (*runtime.Preview, error) {
	return nil, runtime.ErrNotImplemented
}
