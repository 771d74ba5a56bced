package hardware

import (
	"context"

	"github.com/toolcat/toolcat/runtime"
)

// readSerialPort implements the tool read_serial_port.
type readSerialPort struct{}

var _ ReadSerialPort = (*readSerialPort)(nil)

// Execute does the work of read_serial_port.
func (t *readSerialPort) Execute(ctx context.Context, args *ReadSerialPortArgs) (*ReadSerialPortResult, error) {
	return nil, runtime.ErrNotImplemented
}
