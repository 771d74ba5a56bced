package modelkey

import (
	"testing"

	"github.com/toolcat/toolcat/conformance"
)

// conformanceTools replaces the scaffolded one in the golden module: the
// tools are the scaffolded stubs, so the check that they are implemented is
// skipped, and every other check runs against them.
func conformanceTools(t *testing.T) (Tools, conformance.Options) {
	stub := map[conformance.Check]string{conformance.CheckImplemented: "the golden case has the scaffolded stubs"}
	return Tools{RefundOrder: &refundOrder{}, ListRefunds: &listRefunds{}},
		conformance.Options{Skip: map[string]map[conformance.Check]string{"refund_order": stub, "list_refunds": stub}}
}
