package hardware

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.bug.st/serial"
	"periph.io/x/conn/v3"
	"periph.io/x/conn/v3/i2c"
	"periph.io/x/conn/v3/physic"
	"periph.io/x/conn/v3/spi"
)

// SimBoard is a simulated sensor board, for trying the hardware tools
// without wiring and for tests: the drivers it gives act like real ones
// (a read timeout is (0, nil) as in go.bug.st/serial; a missing device
// is ENXIO, a port open twice EBUSY), over state held in memory.
//
// It has, as on a Raspberry Pi with a few breakouts:
//
//   - I2C bus "1": a temperature sensor at 0x76 (chip id 0x60 in register
//     0xd0, like a BME280; control register 0xf4; temperature in 0.01 °C
//     in registers 0xfa-0xfb, big-endian) and an 8-bit I/O expander at
//     0x20 (registers 0x00-0x0a, like an MCP23008: 0x00 direction,
//     0x09 outputs).
//   - SPI port "0.0": an 8-channel 10-bit ADC answering the MCP3008
//     request [0x01, 0x80|channel<<4, 0x00].
//   - Serial port "/dev/ttyUSB0" (USB 2341:0043): a microcontroller that
//     says "READY" at boot and answers the lines "PING" (PONG), "ID?"
//     and "TEMP?" (the sensor's temperature), each ending in "\r\n".
type SimBoard struct {
	mu      sync.Mutex
	devices map[uint16]*simDevice // on I2C bus "1"
	adc     [8]uint16
	spiTx   int // SPI transactions the ADC has seen
	mcu     simMCU
}

type simDevice struct {
	regs     [256]byte
	readOnly map[byte]bool
}

type simMCU struct {
	open  bool
	out   []byte // what the MCU has sent and the host not yet read
	in    []byte // a line being received
	lines []string
}

// SimBus, SimSPIPort and SimSerialPort name the simulated board's devices.
const (
	SimBus        = "1"
	SimSPIPort    = "0.0"
	SimSerialPort = "/dev/ttyUSB0"
)

// NewSimBoard returns a board just after power-on.
func NewSimBoard() *SimBoard {
	sensor := &simDevice{readOnly: map[byte]bool{0xd0: true, 0xfa: true, 0xfb: true}}
	sensor.regs[0xd0] = 0x60
	sensor.regs[0xfa], sensor.regs[0xfb] = 0x08, 0x66 // 2150: 21.50 °C
	expander := &simDevice{}
	expander.regs[0x00] = 0xff // all pins inputs
	return &SimBoard{
		devices: map[uint16]*simDevice{0x76: sensor, 0x20: expander},
		adc:     [8]uint16{512, 1023, 0, 256, 768, 100, 900, 333},
		mcu:     simMCU{out: []byte("READY\r\n")},
	}
}

// Config returns a Config whose allow-list is the whole board and whose
// drivers are the board's.
func (b *SimBoard) Config() Config {
	return Config{
		SerialPorts: []string{SimSerialPort},
		I2C:         map[string][]uint16{SimBus: {0x20, 0x76}},
		SPIPorts:    []string{SimSPIPort},
		Drivers:     b.Drivers(),
	}
}

// Drivers returns the board's drivers.
func (b *SimBoard) Drivers() Drivers {
	return Drivers{
		ListSerial: func() ([]SerialPortInfo, error) {
			return []SerialPortInfo{{Name: SimSerialPort, USB: true, VID: "2341", PID: "0043", SerialNumber: "SIM0001", Product: "Simulated sensor board"}}, nil
		},
		OpenSerial: b.openSerial,
		OpenI2C: func(bus string) (i2c.BusCloser, error) {
			if bus != SimBus {
				return nil, fmt.Errorf("open /dev/i2c-%s: %w", bus, syscall.ENOENT)
			}
			return simI2C{b}, nil
		},
		OpenSPI: func(port string) (spi.PortCloser, error) {
			if port != SimSPIPort {
				return nil, fmt.Errorf("open /dev/spidev%s: %w", port, syscall.ENOENT)
			}
			return &simSPI{b: b}, nil
		},
	}
}

// SimState is a snapshot of what the board's devices hold: their
// registers and what the microcontroller received. Bytes the
// microcontroller sent and nobody read yet are not part of it, as reading
// a port consumes them.
type SimState struct {
	Registers map[uint16][256]byte
	SPIRounds int
	Lines     []string
}

// Snapshot returns the board's state.
func (b *SimBoard) Snapshot() SimState {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := SimState{Registers: map[uint16][256]byte{}, SPIRounds: b.spiTx, Lines: slices.Clone(b.mcu.lines)}
	for a, d := range b.devices {
		s.Registers[a] = d.regs
	}
	return s
}

// Register returns one register of a device on bus "1".
func (b *SimBoard) Register(addr uint16, reg byte) (byte, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	d, ok := b.devices[addr]
	if !ok {
		return 0, false
	}
	return d.regs[reg], true
}

// simI2C is bus "1": a write sets the register pointer and writes the
// bytes after it; a read reads from the pointer on, wrapping at 0xff.
type simI2C struct{ b *SimBoard }

func (s simI2C) String() string                  { return "sim-i2c-1" }
func (s simI2C) Close() error                    { return nil }
func (s simI2C) SetSpeed(physic.Frequency) error { return nil }

func (s simI2C) Tx(addr uint16, w, r []byte) error {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	d, ok := s.b.devices[addr]
	if !ok {
		return fmt.Errorf("i2c address 0x%02x: %w", addr, syscall.ENXIO)
	}
	var ptr byte
	if len(w) > 0 {
		ptr = w[0]
		for i, v := range w[1:] {
			reg := ptr + byte(i)
			if !d.readOnly[reg] {
				d.regs[reg] = v
			}
		}
	}
	for i := range r {
		r[i] = d.regs[ptr+byte(i)]
	}
	return nil
}

// simSPI is the ADC on port "0.0".
type simSPI struct {
	b         *SimBoard
	connected bool
}

func (s *simSPI) String() string                    { return "sim-spi-0.0" }
func (s *simSPI) Close() error                      { return nil }
func (s *simSPI) LimitSpeed(physic.Frequency) error { return nil }

func (s *simSPI) Connect(f physic.Frequency, mode spi.Mode, bits int) (spi.Conn, error) {
	if s.connected {
		return nil, fmt.Errorf("sim-spi: Connect called twice")
	}
	if f > 3600*physic.KiloHertz {
		return nil, fmt.Errorf("sim-spi: %s is above the ADC's 3.6 MHz", f)
	}
	if mode != spi.Mode0 && mode != spi.Mode3 {
		return nil, fmt.Errorf("sim-spi: the ADC works in modes 0 and 3, not %s", mode)
	}
	s.connected = true
	return simADC{s.b}, nil
}

type simADC struct{ b *SimBoard }

func (a simADC) String() string      { return "sim-adc" }
func (a simADC) Duplex() conn.Duplex { return conn.Full }
func (a simADC) TxPackets(p []spi.Packet) error {
	for _, x := range p {
		if err := a.Tx(x.W, x.R); err != nil {
			return err
		}
	}
	return nil
}

// Tx answers the request [0x01, 0x80|ch<<4, 0x00] with [0, hi, lo] of the
// channel's 10-bit value; anything else reads as zeros.
func (a simADC) Tx(w, r []byte) error {
	if len(r) != 0 && len(r) != len(w) {
		return fmt.Errorf("sim-adc: full duplex needs as many bytes read as written")
	}
	a.b.mu.Lock()
	defer a.b.mu.Unlock()
	a.b.spiTx++
	clear(r)
	if len(w) >= 3 && len(r) >= 3 && w[0] == 0x01 && w[1]&0x80 != 0 {
		v := a.b.adc[(w[1]>>4)&0x07]
		r[1], r[2] = byte(v>>8)&0x03, byte(v)
	}
	return nil
}

func (b *SimBoard) openSerial(name string, mode *serial.Mode) (serial.Port, error) {
	if name != SimSerialPort {
		return nil, fmt.Errorf("open %s: %w", name, syscall.ENOENT)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.mcu.open {
		return nil, fmt.Errorf("open %s: %w", name, syscall.EBUSY)
	}
	b.mcu.open = true
	return &simSerial{b: b, mode: *mode, timeout: serial.NoTimeout, wake: make(chan struct{}, 1)}, nil
}

// simSerial is the host's end of the microcontroller's UART. The
// microcontroller talks at 9600 baud 8N1 only: at other settings the
// host reads garbage, as on a real line.
type simSerial struct {
	b       *SimBoard
	mode    serial.Mode
	timeout time.Duration
	closed  bool
	wake    chan struct{}
}

func (p *simSerial) matched() bool {
	return p.mode.BaudRate == 9600 && p.mode.DataBits == 8 && p.mode.Parity == serial.NoParity && p.mode.StopBits == serial.OneStopBit
}

func (p *simSerial) SetMode(m *serial.Mode) error { p.mode = *m; return nil }

func (p *simSerial) SetReadTimeout(t time.Duration) error {
	p.timeout = t
	return nil
}

// Read returns what the microcontroller sent, waiting up to the read
// timeout; a timeout is (0, nil), as go.bug.st/serial reports it.
func (p *simSerial) Read(buf []byte) (int, error) {
	var deadline <-chan time.Time
	if p.timeout >= 0 {
		t := time.NewTimer(p.timeout)
		defer t.Stop()
		deadline = t.C
	}
	for {
		p.b.mu.Lock()
		if p.closed {
			p.b.mu.Unlock()
			return 0, &serial.PortError{}
		}
		if len(p.b.mcu.out) > 0 && len(buf) > 0 {
			n := copy(buf, p.b.mcu.out)
			if !p.matched() {
				for i := range n {
					buf[i] ^= 0xa5 // a wrong baud rate reads as noise
				}
			}
			p.b.mcu.out = p.b.mcu.out[n:]
			p.b.mu.Unlock()
			return n, nil
		}
		p.b.mu.Unlock()
		select {
		case <-p.wake:
		case <-deadline:
			return 0, nil
		}
	}
}

// Write hands bytes to the microcontroller, which answers each full line.
func (p *simSerial) Write(data []byte) (int, error) {
	p.b.mu.Lock()
	defer p.b.mu.Unlock()
	if p.closed {
		return 0, fmt.Errorf("write %s: port closed", SimSerialPort)
	}
	if !p.matched() {
		return len(data), nil // noise the microcontroller ignores
	}
	m := &p.b.mcu
	m.in = append(m.in, data...)
	for {
		i := bytes.IndexByte(m.in, '\n')
		if i < 0 {
			break
		}
		line := strings.TrimRight(string(m.in[:i]), "\r")
		m.in = m.in[i+1:]
		m.lines = append(m.lines, line)
		m.out = append(m.out, p.b.answer(line)...)
	}
	if len(m.in) > 1024 {
		m.in = m.in[len(m.in)-1024:] // the UART's buffer drops the oldest bytes
	}
	if len(m.lines) > 64 {
		m.lines = m.lines[len(m.lines)-64:]
	}
	select {
	case p.wake <- struct{}{}:
	default:
	}
	return len(data), nil
}

// answer is the microcontroller's reply to one line; b.mu is held.
func (b *SimBoard) answer(line string) string {
	switch strings.ToUpper(strings.TrimSpace(line)) {
	case "PING":
		return "PONG\r\n"
	case "ID?":
		return "SIMBOARD 1.0\r\n"
	case "TEMP?":
		s := b.devices[0x76]
		t := int(s.regs[0xfa])<<8 | int(s.regs[0xfb])
		return fmt.Sprintf("TEMP %d.%02d\r\n", t/100, t%100)
	case "":
		return ""
	}
	return "ERR unknown command\r\n"
}

func (p *simSerial) Close() error {
	p.b.mu.Lock()
	defer p.b.mu.Unlock()
	if !p.closed {
		p.closed = true
		p.b.mcu.open = false
	}
	return nil
}

func (p *simSerial) Drain() error              { return nil }
func (p *simSerial) ResetInputBuffer() error   { return nil }
func (p *simSerial) ResetOutputBuffer() error  { return nil }
func (p *simSerial) Break(time.Duration) error { return nil }
func (p *simSerial) SetDTR(bool) error         { return nil }
func (p *simSerial) SetRTS(bool) error         { return nil }

func (p *simSerial) GetModemStatusBits() (*serial.ModemStatusBits, error) {
	return &serial.ModemStatusBits{}, nil
}
