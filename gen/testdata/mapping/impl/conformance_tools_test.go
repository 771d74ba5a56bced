package mapping

import (
	"testing"

	"github.com/toolcat/toolcat/conformance"
)

// conformanceTools replaces the scaffolded one in the golden module: the
// tools are the scaffolded stubs, so the check that they are implemented is
// skipped, and every other check runs against them.
func conformanceTools(t *testing.T) (Tools, conformance.Options) {
	impls := Tools{
		CreateShipment: &createShipment{},
		ListCarriers:   &listCarriers{},
	}
	stub := map[conformance.Check]string{conformance.CheckImplemented: "the golden case has the scaffolded stubs"}
	opts := conformance.Options{Skip: map[string]map[conformance.Check]string{
		"create_shipment": stub,
		"list_carriers":   stub,
	}}
	return impls, opts
}
