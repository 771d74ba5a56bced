//go:build darwin && !cgo

package hardware

import "go.bug.st/serial"

// listHostSerial lists the host's serial ports by name: USB details on
// macOS need IOKit, through cgo, which this build does not have.
func listHostSerial() ([]SerialPortInfo, error) {
	names, err := serial.GetPortsList()
	if err != nil {
		return nil, err
	}
	out := make([]SerialPortInfo, len(names))
	for i, n := range names {
		out[i] = SerialPortInfo{Name: n}
	}
	return out, nil
}
