package hardware

import (
	"context"

	"github.com/toolcat/toolcat/runtime"
)

// scanI2cBus implements the tool scan_i2c_bus.
type scanI2cBus struct{}

var _ ScanI2cBus = (*scanI2cBus)(nil)

// Execute does the work of scan_i2c_bus.
func (t *scanI2cBus) Execute(ctx context.Context, args *ScanI2cBusArgs) (*ScanI2cBusResult, error) {
	return nil, runtime.ErrNotImplemented
}
