package hardware

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"go.bug.st/serial"
	"periph.io/x/conn/v3/i2c"
	"periph.io/x/conn/v3/spi"
)

// Config is what the host decides about the hardware tools: which
// devices the model may reach, how often it may write to each, and the
// drivers that open them. Anything outside the allow-lists is answered
// permission_denied, naming what is allowed.
type Config struct {
	// SerialPorts are the serial ports the tools may open, by name, such
	// as "/dev/ttyUSB0" or "COM3". list_serial_ports lists only these.
	SerialPorts []string
	// I2C maps each allowed I2C bus ("1" for /dev/i2c-1) to the device
	// addresses allowed on it; an empty list allows every address 0x03-0x77.
	I2C map[string][]uint16
	// SPIPorts are the SPI ports the tools may use, as "bus.cs" ("0.0" for
	// /dev/spidev0.0).
	SPIPorts []string
	// WritesPerSecond caps the writes to one device (one I2C address, one
	// SPI port, one serial port); 0 means 5. Reverts are not counted.
	WritesPerSecond float64
	// WriteBurst is how many writes one device takes at once before the
	// rate applies; 0 means 1.
	WriteBurst int
	// Drivers open the devices; a nil field uses the host's driver
	// (go.bug.st/serial; periph.io/x/host/v3 on Linux, unsupported
	// elsewhere). SimBoard.Drivers gives a simulated board.
	Drivers Drivers
}

// SerialPortInfo is what the OS tells of one serial port.
type SerialPortInfo struct {
	Name         string // such as /dev/ttyUSB0 or COM3
	USB          bool
	VID, PID     string // USB vendor and product ids, in hex
	SerialNumber string
	Product      string
}

// Drivers open serial ports and buses. Each field may be nil.
type Drivers struct {
	// ListSerial lists the host's serial ports.
	ListSerial func() ([]SerialPortInfo, error)
	// OpenSerial opens a serial port with a line mode.
	OpenSerial func(name string, mode *serial.Mode) (serial.Port, error)
	// OpenI2C opens an I2C bus by number.
	OpenI2C func(bus string) (i2c.BusCloser, error)
	// OpenSPI opens an SPI port "bus.cs".
	OpenSPI func(port string) (spi.PortCloser, error)
}

var (
	serialPortPattern = regexp.MustCompile(`^(/dev/[A-Za-z0-9][A-Za-z0-9._:+-]{0,99}(/[A-Za-z0-9][A-Za-z0-9._:+-]{0,99}){0,2}|COM[1-9][0-9]{0,2})$`)
	i2cBusPattern     = regexp.MustCompile(`^[0-9]{1,3}$`)
	spiPortPattern    = regexp.MustCompile(`^[0-9]{1,2}\.[0-9]{1,2}$`)
)

// hw is the state the tools share: the checked configuration, the
// drivers and the rate limiter.
type hw struct {
	serialPorts []string
	i2c         map[string][]uint16
	spiPorts    []string
	drivers     Drivers
	limit       *limiter
	// locks serialise calls on one bus or port, so that a write's
	// read-back and the write itself are not interleaved with another
	// call. Keys are allow-listed devices, so the map stays small.
	mu    sync.Mutex
	locks map[string]*sync.Mutex
}

// lock takes the lock of one bus or port; call the function it returns
// to release it.
func (h *hw) lock(key string) func() {
	h.mu.Lock()
	m, ok := h.locks[key]
	if !ok {
		m = &sync.Mutex{}
		h.locks[key] = m
	}
	h.mu.Unlock()
	m.Lock()
	return m.Unlock
}

// New returns the hardware tools bound to cfg, for NewRegistry. It checks
// cfg: names must have the shapes the tools' schemas accept and addresses
// must be 7-bit (0x03-0x77).
func New(cfg Config) (Tools, error) {
	h, err := newHW(cfg)
	if err != nil {
		return Tools{}, err
	}
	return Tools{
		ListSerialPorts:  &listSerialPorts{h},
		ReadSerialPort:   &readSerialPort{h},
		WriteSerialPort:  &writeSerialPort{h},
		ScanI2CBus:       &scanI2CBus{h},
		ReadI2CRegister:  &readI2CRegister{h},
		WriteI2CRegister: &writeI2CRegister{h},
		TransferSPI:      &transferSPI{h},
	}, nil
}

func newHW(cfg Config) (*hw, error) {
	var problems []string
	for _, p := range cfg.SerialPorts {
		if !serialPortPattern.MatchString(p) {
			problems = append(problems, fmt.Sprintf("serial port %q is not a port name the tools accept (such as /dev/ttyUSB0 or COM3)", p))
		}
	}
	buses := make(map[string][]uint16, len(cfg.I2C))
	for bus, addrs := range cfg.I2C {
		if !i2cBusPattern.MatchString(bus) {
			problems = append(problems, fmt.Sprintf("I2C bus %q is not a bus number (such as \"1\" for /dev/i2c-1)", bus))
		}
		for _, a := range addrs {
			if a < 0x03 || a > 0x77 {
				problems = append(problems, fmt.Sprintf("I2C bus %s: address %#x is not a 7-bit device address (0x03-0x77)", bus, a))
			}
		}
		s := slices.Clone(addrs)
		slices.Sort(s)
		buses[bus] = slices.Compact(s)
	}
	for _, p := range cfg.SPIPorts {
		if !spiPortPattern.MatchString(p) {
			problems = append(problems, fmt.Sprintf("SPI port %q is not bus.cs (such as \"0.0\" for /dev/spidev0.0)", p))
		}
	}
	rate, burst := cfg.WritesPerSecond, cfg.WriteBurst
	switch {
	case rate < 0 || rate != rate:
		problems = append(problems, fmt.Sprintf("WritesPerSecond %v is negative; give a positive rate, or 0 for 5", rate))
	case rate == 0:
		rate = 5
	}
	switch {
	case burst < 0:
		problems = append(problems, fmt.Sprintf("WriteBurst %d is negative; give a positive burst, or 0 for 1", burst))
	case burst == 0:
		burst = 1
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("hardware: %s", strings.Join(problems, "; "))
	}
	d := cfg.Drivers
	if d.ListSerial == nil {
		d.ListSerial = listHostSerial
	}
	if d.OpenSerial == nil {
		d.OpenSerial = serial.Open
	}
	if d.OpenI2C == nil {
		d.OpenI2C = openHostI2C
	}
	if d.OpenSPI == nil {
		d.OpenSPI = openHostSPI
	}
	ports := slices.Clone(cfg.SerialPorts)
	slices.Sort(ports)
	spis := slices.Clone(cfg.SPIPorts)
	slices.Sort(spis)
	return &hw{
		serialPorts: slices.Compact(ports),
		i2c:         buses,
		spiPorts:    slices.Compact(spis),
		drivers:     d,
		limit:       newLimiter(rate, burst, time.Now),
		locks:       map[string]*sync.Mutex{},
	}, nil
}
