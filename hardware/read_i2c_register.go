package hardware

import (
	"context"

	"github.com/toolcat/toolcat/runtime"
)

// readI2cRegister implements the tool read_i2c_register.
type readI2cRegister struct{}

var _ ReadI2cRegister = (*readI2cRegister)(nil)

// Execute does the work of read_i2c_register.
func (t *readI2cRegister) Execute(ctx context.Context, args *ReadI2cRegisterArgs) (*ReadI2cRegisterResult, error) {
	return nil, runtime.ErrNotImplemented
}
