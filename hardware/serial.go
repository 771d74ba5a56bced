package hardware

import (
	"context"
	"fmt"

	"go.bug.st/serial"
)

// lineMode is the serial line setting of the arguments (the schema's
// defaults are applied by the registry; zero values read as them too).
func lineMode(baud, dataBits int64, parity, stopBits string) *serial.Mode {
	m := &serial.Mode{BaudRate: int(baud), DataBits: int(dataBits)}
	if m.BaudRate == 0 {
		m.BaudRate = 9600
	}
	if m.DataBits == 0 {
		m.DataBits = 8
	}
	m.Parity = map[string]serial.Parity{"odd": serial.OddParity, "even": serial.EvenParity, "mark": serial.MarkParity, "space": serial.SpaceParity}[parity]
	m.StopBits = map[string]serial.StopBits{"1.5": serial.OnePointFiveStopBits, "2": serial.TwoStopBits}[stopBits]
	return m
}

// lineName reads as "9600 baud, 8N1".
func lineName(m *serial.Mode) string {
	p := map[serial.Parity]string{serial.NoParity: "N", serial.OddParity: "O", serial.EvenParity: "E", serial.MarkParity: "M", serial.SpaceParity: "S"}[m.Parity]
	s := map[serial.StopBits]string{serial.OneStopBit: "1", serial.OnePointFiveStopBits: "1.5", serial.TwoStopBits: "2"}[m.StopBits]
	return fmt.Sprintf("%d baud, %d%s%s", m.BaudRate, m.DataBits, p, s)
}

// openSerial opens an allowed port with mode, mapping the driver's errors.
func (h *hw) openSerial(ctx context.Context, port string, mode *serial.Mode) (serial.Port, error) {
	p, err := h.drivers.OpenSerial(port, mode)
	if err != nil {
		return nil, toolError(ctx, err, "serial port "+port, "dialout", port)
	}
	return p, nil
}
