//go:build !linux

package hardware

import (
	"fmt"
	"runtime"

	"periph.io/x/conn/v3/i2c"
	"periph.io/x/conn/v3/spi"
)

// I2C and SPI need Linux's /dev/i2c-N and /dev/spidevB.C; elsewhere the
// tools answer unsupported unless the host gives its own drivers
// (Config.Drivers).
func openHostI2C(bus string) (i2c.BusCloser, error) {
	return nil, fmt.Errorf("%w (%s): I2C needs Linux, or a driver in Config.Drivers.OpenI2C", ErrUnsupported, runtime.GOOS)
}

func openHostSPI(port string) (spi.PortCloser, error) {
	return nil, fmt.Errorf("%w (%s): SPI needs Linux, or a driver in Config.Drivers.OpenSPI", ErrUnsupported, runtime.GOOS)
}
