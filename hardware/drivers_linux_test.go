package hardware

import (
	"strings"
	"testing"

	"github.com/toolcat/toolcat/runtime"
)

// The host drivers, on a bus and a port this machine does not have:
// not_found that names them, from periph's sysfs driver path.
func TestHostDriversMissingBus(t *testing.T) {
	reg := registry(t, Config{I2C: map[string][]uint16{"250": nil}, SPIPorts: []string{"9.9"}})
	te := wantCode(t, call(t, reg, "scan_i2c_bus", map[string]any{"bus": "250"}, false), runtime.CodeNotFound)
	if !strings.Contains(te.Message, "I2C bus 250 does not exist") {
		t.Fatalf("message %q should say bus 250 does not exist", te.Message)
	}
	te = wantCode(t, call(t, reg, "transfer_spi", map[string]any{"port": "9.9", "data": []int{0}}, false), runtime.CodeNotFound)
	if !strings.Contains(te.Message, "SPI port 9.9 does not exist") {
		t.Fatalf("message %q should say SPI port 9.9 does not exist", te.Message)
	}
}
