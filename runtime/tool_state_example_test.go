package runtime_test

import (
	"context"
	"fmt"

	"github.com/toolcat/toolcat/runtime"
)

// An operator switches a tool off: its calls answer permission_denied with
// the reason, and it leaves the tools listed to models until it is
// switched on again.
func ExampleRegistry_DisableTool() {
	ctx := context.Background()
	reg := runtime.New()
	reg.MustRegister(runtime.Tool{
		Meta:    runtime.Meta{Name: "refund_order", Description: "Refunds an order.", HasSideEffects: true},
		Execute: func(context.Context, any) (any, error) { return "refunded", nil },
	})
	reg.OnToolsChanged(func() { fmt.Println("the tool list changed") })

	if err := reg.DisableTool(ctx, "refund_order", "refunds paused for the audit"); err != nil {
		panic(err)
	}
	res := reg.Call(ctx, "refund_order", []byte(`{}`), runtime.CallOptions{})
	fmt.Println(res.Error.Code, "-", res.Error.Message)
	fmt.Println("listed:", len(reg.Visible(runtime.AutonomyFull)))

	if err := reg.EnableTool(ctx, "refund_order"); err != nil {
		panic(err)
	}
	fmt.Println(reg.Call(ctx, "refund_order", []byte(`{}`), runtime.CallOptions{}).Success)
	// Output:
	// the tool list changed
	// permission_denied - tool refund_order is disabled by an operator: refunds paused for the audit
	// listed: 0
	// the tool list changed
	// true
}

// An observer sees every call the registry answers, for metrics.
func ExampleWithObserver() {
	reg := runtime.New(runtime.WithObserver(func(ev runtime.CallEvent) {
		fmt.Printf("%s code=%q unknown=%v\n", ev.Tool, ev.Code, ev.Unknown)
	}))
	reg.MustRegister(runtime.Tool{
		Meta:    runtime.Meta{Name: "get_order", Description: "Reads an order."},
		Execute: func(context.Context, any) (any, error) { return "order", nil },
	})
	reg.Call(context.Background(), "get_order", []byte(`{}`), runtime.CallOptions{})
	reg.Call(context.Background(), "get_ordr", []byte(`{}`), runtime.CallOptions{})
	// Output:
	// get_order code="" unknown=false
	// get_ordr code="not_found" unknown=true
}
