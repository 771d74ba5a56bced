package hardware

import (
	"context"

	"github.com/toolcat/toolcat/runtime"
)

// listSerialPorts implements the tool list_serial_ports.
type listSerialPorts struct{}

var _ ListSerialPorts = (*listSerialPorts)(nil)

// Execute does the work of list_serial_ports.
func (t *listSerialPorts) Execute(ctx context.Context, args *ListSerialPortsArgs) (*ListSerialPortsResult, error) {
	return nil, runtime.ErrNotImplemented
}
