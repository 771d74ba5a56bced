package hardware

import (
	"context"
	"fmt"

	"github.com/toolcat/toolcat/runtime"
	"periph.io/x/conn/v3/i2c"
)

// writeI2CRegister implements the tool write_i2c_register. It reads the
// registers it is about to write first, so the dry run can show the
// change and Revert can write the old bytes back.
type writeI2CRegister struct{ h *hw }

var _ WriteI2CRegister = (*writeI2CRegister)(nil)

// Execute does the work of write_i2c_register.
func (t *writeI2CRegister) Execute(ctx context.Context, args *WriteI2CRegisterArgs) (*WriteI2CRegisterResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	addr := uint16(args.Address)
	if err := t.h.allowI2C(args.Bus, addr); err != nil {
		return nil, err
	}
	data, err := toBytes("data", args.Data)
	if err != nil {
		return nil, err
	}
	if err := t.h.limit.take(i2cName(args.Bus, addr)); err != nil {
		return nil, err
	}
	var prev []byte
	err = t.h.withI2C(ctx, args.Bus, func(b i2c.Bus) (err error) {
		if prev, err = readRegisters(ctx, b, args.Bus, addr, byte(args.Register), len(data)); err != nil {
			return err
		}
		return writeRegisters(ctx, b, args.Bus, addr, byte(args.Register), data)
	})
	if err != nil {
		return nil, err
	}
	return &WriteI2CRegisterResult{
		Bus:      args.Bus,
		Address:  args.Address,
		Register: args.Register,
		Written:  toInts(data),
		Previous: toInts(prev),
	}, nil
}

// DryRun reads the registers and says, byte by byte, what would change.
func (t *writeI2CRegister) DryRun(ctx context.Context, args *WriteI2CRegisterArgs) (*runtime.Preview, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	addr := uint16(args.Address)
	if err := t.h.allowI2C(args.Bus, addr); err != nil {
		return nil, err
	}
	data, err := toBytes("data", args.Data)
	if err != nil {
		return nil, err
	}
	var cur []byte
	err = t.h.withI2C(ctx, args.Bus, func(b i2c.Bus) (err error) {
		cur, err = readRegisters(ctx, b, args.Bus, addr, byte(args.Register), len(data))
		return err
	})
	if err != nil {
		return nil, err
	}
	effects := make([]string, len(data))
	for i, v := range data {
		reg := (int(args.Register) + i) & 0xff
		effects[i] = fmt.Sprintf("register 0x%02x: 0x%02x becomes 0x%02x", reg, cur[i], v)
		if cur[i] == v {
			effects[i] += " (unchanged)"
		}
	}
	return &runtime.Preview{
		Summary: fmt.Sprintf("would write %d bytes (%s) to register 0x%02x of %s", len(data), hexBytes(data), args.Register, i2cName(args.Bus, addr)),
		Effects: effects,
		Data:    map[string]any{"bus": args.Bus, "address": args.Address, "register": args.Register, "current": toInts(cur), "bytes": toInts(data)},
	}, nil
}

// Revert writes back the bytes the registers held before the call. It is
// not counted by the rate limit: an undo must not be refused.
func (t *writeI2CRegister) Revert(ctx context.Context, args *WriteI2CRegisterArgs, result *WriteI2CRegisterResult) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	addr := uint16(result.Address)
	if err := t.h.allowI2C(result.Bus, addr); err != nil {
		return err
	}
	prev, err := toBytes("previous", result.Previous)
	if err != nil {
		return err
	}
	return t.h.withI2C(ctx, result.Bus, func(b i2c.Bus) error {
		return writeRegisters(ctx, b, result.Bus, addr, byte(result.Register), prev)
	})
}
