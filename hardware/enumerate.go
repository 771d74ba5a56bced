//go:build !darwin || cgo

package hardware

import "go.bug.st/serial/enumerator"

// listHostSerial lists the host's serial ports with their USB details.
func listHostSerial() ([]SerialPortInfo, error) {
	ds, err := enumerator.GetDetailedPortsList()
	if err != nil {
		return nil, err
	}
	out := make([]SerialPortInfo, 0, len(ds))
	for _, d := range ds {
		if d != nil {
			out = append(out, SerialPortInfo{Name: d.Name, USB: d.IsUSB, VID: d.VID, PID: d.PID, SerialNumber: d.SerialNumber, Product: d.Product})
		}
	}
	return out, nil
}
