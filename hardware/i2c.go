package hardware

import (
	"context"
	"fmt"

	"periph.io/x/conn/v3/i2c"
)

func i2cName(bus string, addr uint16) string {
	return fmt.Sprintf("I2C device 0x%02x on bus %s", addr, bus)
}

// withI2C opens bus, runs f on it, and closes it, holding the bus's lock.
func (h *hw) withI2C(ctx context.Context, bus string, f func(b i2c.Bus) error) error {
	defer h.lock("i2c:" + bus)()
	b, err := h.drivers.OpenI2C(bus)
	if err != nil {
		return toolError(ctx, err, "I2C bus "+bus, "i2c", "/dev/i2c-"+bus)
	}
	defer b.Close()
	return f(b)
}

// readRegisters reads n bytes from register reg on: a write of the
// register number, then a read, in one transaction.
func readRegisters(ctx context.Context, b i2c.Bus, bus string, addr uint16, reg byte, n int) ([]byte, error) {
	buf := make([]byte, n)
	if err := b.Tx(addr, []byte{reg}, buf); err != nil {
		return nil, toolError(ctx, err, i2cName(bus, addr), "i2c", "/dev/i2c-"+bus)
	}
	return buf, nil
}

// writeRegisters writes data from register reg on.
func writeRegisters(ctx context.Context, b i2c.Bus, bus string, addr uint16, reg byte, data []byte) error {
	w := append([]byte{reg}, data...)
	if err := b.Tx(addr, w, nil); err != nil {
		return toolError(ctx, err, i2cName(bus, addr), "i2c", "/dev/i2c-"+bus)
	}
	return nil
}
