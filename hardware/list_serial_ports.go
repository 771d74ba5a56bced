package hardware

import (
	"context"
	"slices"
	"strings"
)

// listSerialPorts implements the tool list_serial_ports: the host's
// serial ports that the allow-list names.
type listSerialPorts struct{ h *hw }

var _ ListSerialPorts = (*listSerialPorts)(nil)

// Execute does the work of list_serial_ports.
func (t *listSerialPorts) Execute(ctx context.Context, args *ListSerialPortsArgs) (*ListSerialPortsResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	details, err := t.h.drivers.ListSerial()
	if err != nil {
		return nil, toolError(ctx, err, "the list of serial ports", "dialout", "/dev")
	}
	out := &ListSerialPortsResult{Ports: []ListSerialPortsResultPortsItem{}}
	for _, d := range details {
		if !slices.Contains(t.h.serialPorts, d.Name) {
			continue
		}
		p := ListSerialPortsResultPortsItem{Name: d.Name, Usb: d.USB}
		if d.USB {
			p.Vid = nonEmpty(strings.ToLower(d.VID))
			p.Pid = nonEmpty(strings.ToLower(d.PID))
			p.SerialNumber = nonEmpty(d.SerialNumber)
			p.Product = nonEmpty(d.Product)
		}
		out.Ports = append(out.Ports, p)
	}
	slices.SortFunc(out.Ports, func(a, b ListSerialPortsResultPortsItem) int { return strings.Compare(a.Name, b.Name) })
	out.Ports = slices.CompactFunc(out.Ports, func(a, b ListSerialPortsResultPortsItem) bool { return a.Name == b.Name })
	return out, nil
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
