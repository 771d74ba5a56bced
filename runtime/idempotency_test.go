package runtime_test

import (
	"context"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/internal/storetest"
)

func TestMemoryStore(t *testing.T) {
	storetest.Run(t, func() runtime.IdempotencyStore { return runtime.NewMemoryStore() })
}

func TestIdempotencyKeyRequired(t *testing.T) {
	c := storetest.NewCounter()
	r := storetest.New(t, func() runtime.IdempotencyStore { return runtime.NewMemoryStore() }, c)
	res := r.Call(context.Background(), "refund_order", []byte(`{"order_id":"A","amount_cents":1}`), runtime.CallOptions{})
	if res.Success || res.Error.Code != runtime.CodeInvalidArgs {
		t.Fatalf("call without key: %s", res.JSON())
	}
	if !strings.Contains(res.Error.Suggestion, "idempotency key") || !strings.Contains(res.Error.Suggestion, "reuse the same key") {
		t.Errorf("suggestion does not say how to build a key: %q", res.Error.Suggestion)
	}
	if c.Runs("A") != 0 {
		t.Errorf("the tool ran without a key")
	}
}

func TestIdempotencyKeyHelper(t *testing.T) {
	a := runtime.IdempotencyKey("conv-1", "step-2", "refund")
	if a != runtime.IdempotencyKey("conv-1", "step-2", "refund") {
		t.Error("IdempotencyKey is not deterministic")
	}
	if a == runtime.IdempotencyKey("conv-1", "step-2refund") {
		t.Error("IdempotencyKey does not separate its parts")
	}
}
