package hardware

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/toolcat/toolcat/runtime"
)

// denied is the permission_denied error for a device outside the
// allow-list; it names what the host allows.
func denied(what, allowed string) *runtime.ToolError {
	if allowed == "" {
		allowed = "nothing"
	}
	return runtime.NewError(runtime.CodePermissionDenied,
		fmt.Sprintf("%s is not in the host's allow-list; allowed: %s", what, allowed)).
		WithSuggestion("Use one of the allowed devices named in the message, or ask the user to add this one to the host's hardware configuration.").
		WithRetryAllowed(false)
}

func (h *hw) allowSerial(port string) error {
	if slices.Contains(h.serialPorts, port) {
		return nil
	}
	return denied("serial port "+port, strings.Join(h.serialPorts, ", "))
}

func (h *hw) allowI2CBus(bus string) error {
	if _, ok := h.i2c[bus]; ok {
		return nil
	}
	return denied("I2C bus "+bus, h.i2cAllowList())
}

func (h *hw) allowI2C(bus string, addr uint16) error {
	addrs, ok := h.i2c[bus]
	if !ok {
		return denied("I2C bus "+bus, h.i2cAllowList())
	}
	if len(addrs) == 0 || slices.Contains(addrs, addr) {
		return nil
	}
	return denied(fmt.Sprintf("I2C device %#02x on bus %s", addr, bus), h.i2cAllowList())
}

// i2cAddresses are the addresses a scan of bus probes.
func (h *hw) i2cAddresses(bus string) []uint16 {
	if addrs := h.i2c[bus]; len(addrs) > 0 {
		return addrs
	}
	all := make([]uint16, 0, 0x77-0x03+1)
	for a := uint16(0x03); a <= 0x77; a++ {
		all = append(all, a)
	}
	return all
}

// i2cAllowList reads as "bus 1 (0x20, 0x76); bus 3 (any address)".
func (h *hw) i2cAllowList() string {
	var parts []string
	for _, bus := range slices.Sorted(maps.Keys(h.i2c)) {
		addrs := h.i2c[bus]
		if len(addrs) == 0 {
			parts = append(parts, "bus "+bus+" (any address)")
			continue
		}
		hex := make([]string, len(addrs))
		for i, a := range addrs {
			hex[i] = fmt.Sprintf("%#02x", a)
		}
		parts = append(parts, "bus "+bus+" ("+strings.Join(hex, ", ")+")")
	}
	return strings.Join(parts, "; ")
}

func (h *hw) allowSPI(port string) error {
	if slices.Contains(h.spiPorts, port) {
		return nil
	}
	return denied("SPI port "+port, strings.Join(h.spiPorts, ", "))
}
