package hardware

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"periph.io/x/conn/v3/i2c"
	"periph.io/x/conn/v3/spi"
	"periph.io/x/host/v3/sysfs"
)

// openHostI2C opens /dev/i2c-N with periph's sysfs driver. The device
// file is opened once first so that a missing bus or a permission problem
// keeps its error type (periph's messages flatten it).
func openHostI2C(bus string) (i2c.BusCloser, error) {
	n, err := strconv.Atoi(bus)
	if err != nil {
		return nil, fmt.Errorf("I2C bus %q is not a number", bus)
	}
	if err := probeDevFile(fmt.Sprintf("/dev/i2c-%d", n)); err != nil {
		return nil, err
	}
	b, err := sysfs.NewI2C(n)
	if err != nil {
		return nil, err
	}
	return hostI2C{b}, nil
}

// openHostSPI opens /dev/spidevB.C with periph's sysfs driver.
func openHostSPI(port string) (spi.PortCloser, error) {
	busStr, csStr, _ := strings.Cut(port, ".")
	bus, err1 := strconv.Atoi(busStr)
	cs, err2 := strconv.Atoi(csStr)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("SPI port %q is not bus.cs", port)
	}
	if err := probeDevFile(fmt.Sprintf("/dev/spidev%d.%d", bus, cs)); err != nil {
		return nil, err
	}
	return sysfs.NewSPI(bus, cs)
}

func probeDevFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	return f.Close()
}

// hostI2C gives the errno back to errors periph returns as text, so that
// a device that does not acknowledge is not_found and a hung bus timeout.
type hostI2C struct{ i2c.BusCloser }

func (b hostI2C) Tx(addr uint16, w, r []byte) error {
	err := b.BusCloser.Tx(addr, w, r)
	if err == nil {
		return nil
	}
	msg := err.Error()
	for _, e := range []syscall.Errno{syscall.EREMOTEIO, syscall.ENXIO, syscall.ETIMEDOUT, syscall.EBUSY, syscall.EIO} {
		if strings.Contains(msg, e.Error()) {
			return fmt.Errorf("%w: %s", e, msg)
		}
	}
	return err
}
