package lint

import (
	"testing"

	"github.com/toolcat/toolcat/catalog"
)

// The prompt budget counts the idempotency_key argument the exporters add.
func TestToolTokensKeyArg(t *testing.T) {
	cat, err := catalog.LoadFiles(catalog.File{Name: "c.yaml", Data: []byte(`tools:
  refund_order:
    description: Refunds an order.
    has_side_effects: true
  cancel_order:
    description: Refunds an order.
    has_side_effects: true
    idempotency_key: argument
`)})
	if err != nil {
		t.Fatal(err)
	}
	host, arg := toolTokens(cat.Tool("refund_order")), toolTokens(cat.Tool("cancel_order"))
	if arg < host+40 {
		t.Errorf("tokens with the argument %d, without %d: the argument is not counted", arg, host)
	}
}
