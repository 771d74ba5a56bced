package admin_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/admin"
)

// The admin API switches a tool off over HTTP. A host serves it on a
// listener of its own with srv.ListenAndServe(ctx, "127.0.0.1:9091").
func Example() {
	reg := runtime.New()
	reg.MustRegister(runtime.Tool{
		Meta:    runtime.Meta{Name: "refund_order", Description: "Refunds an order.", HasSideEffects: true},
		Execute: func(context.Context, any) (any, error) { return "refunded", nil },
	})
	srv, err := admin.New(reg, admin.WithToken("example-token-0123456789"), admin.WithLogger(quiet()))
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()

	req, _ := http.NewRequest("PUT", hs.URL+"/api/tools/refund_order/state",
		strings.NewReader(`{"enabled": false, "reason": "refunds paused"}`))
	req.Header.Set("Authorization", "Bearer example-token-0123456789")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, strings.Contains(string(body), `"state": "disabled"`))

	res := reg.Call(context.Background(), "refund_order", []byte(`{}`), runtime.CallOptions{})
	fmt.Println(res.Error.Code)
	// Output:
	// 200 true
	// permission_denied
}
