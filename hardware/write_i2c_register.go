package hardware

import (
	"context"

	"github.com/toolcat/toolcat/runtime"
)

// writeI2cRegister implements the tool write_i2c_register.
type writeI2cRegister struct{}

var _ WriteI2cRegister = (*writeI2cRegister)(nil)

// Execute does the work of write_i2c_register.
func (t *writeI2cRegister) Execute(ctx context.Context, args *WriteI2cRegisterArgs) (*WriteI2cRegisterResult, error) {
	return nil, runtime.ErrNotImplemented
}

// DryRun previews what Execute would do, changing nothing.
func (t *writeI2cRegister) DryRun(ctx context.Context, args *WriteI2cRegisterArgs) (*runtime.Preview, error) {
	return nil, runtime.ErrNotImplemented
}

// Revert undoes a call of write_i2c_register that returned result.
func (t *writeI2cRegister) Revert(ctx context.Context, args *WriteI2cRegisterArgs, result *WriteI2cRegisterResult) error {
	return runtime.ErrNotImplemented
}
