package hardware

import (
	"context"
	"fmt"

	"github.com/toolcat/toolcat/runtime"
	"periph.io/x/conn/v3/i2c"
)

// scanI2CBus implements the tool scan_i2c_bus: it reads one byte from
// every allowed address, as i2cdetect -r does; an address answers when
// the read is acknowledged.
type scanI2CBus struct{ h *hw }

var _ ScanI2CBus = (*scanI2CBus)(nil)

// Execute does the work of scan_i2c_bus.
func (t *scanI2CBus) Execute(ctx context.Context, args *ScanI2CBusArgs) (*ScanI2CBusResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := t.h.allowI2CBus(args.Bus); err != nil {
		return nil, err
	}
	out := &ScanI2CBusResult{Bus: args.Bus, Addresses: []int64{}, Hex: []string{}}
	err := t.h.withI2C(ctx, args.Bus, func(b i2c.Bus) error {
		var one [1]byte
		for _, a := range t.h.i2cAddresses(args.Bus) {
			if err := ctx.Err(); err != nil {
				return err
			}
			err := b.Tx(a, nil, one[:])
			if err == nil {
				out.Addresses = append(out.Addresses, int64(a))
				out.Hex = append(out.Hex, fmt.Sprintf("0x%02x", a))
				continue
			}
			// Silence is the usual answer: only errors other than "no
			// device" stop the scan.
			if te, ok := toolError(ctx, err, i2cName(args.Bus, a), "i2c", "/dev/i2c-"+args.Bus).(*runtime.ToolError); !ok || te.Code != runtime.CodeNotFound {
				return te
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
