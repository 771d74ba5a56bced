package hardware

import (
	"testing"

	"github.com/toolcat/toolcat/conformance"
)

// conformanceTools returns the implementations that TestConformance
// checks, and the options of the checks. TestConformance calls them with
// valid and invalid arguments it makes up: give them test doubles of their
// databases and services here, never the real ones.
func conformanceTools(t *testing.T) (Tools, conformance.Options) {
	impls := Tools{
		ListSerialPorts:  &listSerialPorts{},
		ReadI2cRegister:  &readI2cRegister{},
		ReadSerialPort:   &readSerialPort{},
		ScanI2cBus:       &scanI2cBus{},
		TransferSpi:      &transferSpi{},
		WriteI2cRegister: &writeI2cRegister{},
		WriteSerialPort:  &writeSerialPort{},
	}
	opts := conformance.Options{
		// Probe snapshots the state the tools change, such as the rows of
		// the test doubles, to check dry runs and reverts:
		// Probe: func(ctx context.Context) (any, error) { return store.Snapshot(), nil },
		// Deterministic names the tools without side effects that give the
		// same result for the same arguments.
		// Deterministic: []string{"..."},
		// Skip turns a check off for one tool, with the reason:
		// Skip: map[string]map[conformance.Check]string{"...": {conformance.CheckCancellation: "..."}},
	}
	return impls, opts
}
