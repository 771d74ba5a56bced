package modelkey

import (
	"context"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/export"
)

// refunds is an implementation of refund_order that counts its runs and
// records the key it was called with.
type refunds struct {
	runs int
	keys []string
}

func (r *refunds) Execute(ctx context.Context, args *RefundOrderArgs) (*RefundOrderResult, error) {
	r.runs++
	r.keys = append(r.keys, runtime.IdempotencyKeyFrom(ctx))
	return &RefundOrderResult{RefundID: "r-" + args.OrderID}, nil
}

// TestModelKey calls the generated registry as a model would: with the key
// as an argument that the tool's closed schema does not declare.
func TestModelKey(t *testing.T) {
	impl := &refunds{}
	reg, err := NewRegistry(Tools{RefundOrder: impl, ListRefunds: &listRefunds{}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	call := func(raw string) runtime.Result {
		return reg.Call(ctx, "refund_order", []byte(raw), runtime.CallOptions{})
	}
	first := call(`{"order_id":"991","idempotency_key":"conv-42/refund-991"}`)
	retry := call(`{"idempotency_key":"conv-42/refund-991","order_id":"991"}`)
	if !first.Success || first.Replayed || !retry.Success || !retry.Replayed {
		t.Fatalf("first %s\nretry %s", first.JSON(), retry.JSON())
	}
	if impl.runs != 1 || impl.keys[0] != "conv-42/refund-991" {
		t.Errorf("runs %d, keys %q", impl.runs, impl.keys)
	}
	if res := call(`{"order_id":"992","idempotency_key":"conv-42/refund-991"}`); res.Error == nil || res.Error.Code != runtime.CodeIdempotencyConflict {
		t.Errorf("other order under the same key: %s", res.JSON())
	}
	if res := call(`{"order_id":"993"}`); res.Error == nil || res.Error.Code != runtime.CodeInvalidArgs ||
		!strings.Contains(res.Error.Suggestion, "idempotency_key") {
		t.Errorf("no key: %s", res.JSON())
	}
	if res := call(`{"order_id":"993","idempotency_key":"k","extra":1}`); res.Error == nil || res.Error.Code != runtime.CodeInvalidArgs ||
		!strings.Contains(res.Error.Message, "extra") {
		t.Errorf("the generated validator no longer rejects unknown arguments: %s", res.JSON())
	}
	// A tool without side effects keeps the host's key only: the argument
	// is unknown to it.
	if res := reg.Call(ctx, "list_refunds", []byte(`{"order_id":"1","idempotency_key":"k"}`), runtime.CallOptions{}); res.Error == nil || res.Error.Code != runtime.CodeInvalidArgs {
		t.Errorf("list_refunds took idempotency_key: %s", res.JSON())
	}
}

// TestModelKeyExported checks that the metadata shows the argument to the
// model on refund_order only.
func TestModelKeyExported(t *testing.T) {
	b, err := export.MCP(Metas())
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), `"idempotency_key"`); n != 2 { // the property and required
		t.Errorf("idempotency_key appears %d times in\n%s", n, b)
	}
}
