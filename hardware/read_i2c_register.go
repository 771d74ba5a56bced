package hardware

import (
	"context"
	"encoding/hex"

	"periph.io/x/conn/v3/i2c"
)

// readI2CRegister implements the tool read_i2c_register.
type readI2CRegister struct{ h *hw }

var _ ReadI2CRegister = (*readI2CRegister)(nil)

// Execute does the work of read_i2c_register.
func (t *readI2CRegister) Execute(ctx context.Context, args *ReadI2CRegisterArgs) (*ReadI2CRegisterResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	addr := uint16(args.Address)
	if err := t.h.allowI2C(args.Bus, addr); err != nil {
		return nil, err
	}
	n := int(args.Length)
	if n <= 0 {
		n = 1
	}
	var got []byte
	err := t.h.withI2C(ctx, args.Bus, func(b i2c.Bus) (err error) {
		got, err = readRegisters(ctx, b, args.Bus, addr, byte(args.Register), n)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &ReadI2CRegisterResult{
		Bus:      args.Bus,
		Address:  args.Address,
		Register: args.Register,
		Values:   toInts(got),
		Hex:      hex.EncodeToString(got),
	}, nil
}
