package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	goruntime "runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/internal/storetest"
)

// TestResultJSONWhenMarshalJSONPanics: JSON never fails, and MarshalJSON
// gives an error, whichever part of the envelope panics while encoding.
func TestResultJSONWhenMarshalJSONPanics(t *testing.T) {
	tests := []struct {
		desc string
		res  runtime.Result
	}{
		{desc: "data", res: runtime.OK(storetest.PanickingJSON{})},
		{desc: "nested data", res: runtime.OK(map[string]any{"a": []any{storetest.PanickingJSON{}}})},
		{desc: "replayed data", res: runtime.Result{Success: true, Replayed: true, Data: storetest.PanickingJSON{}}},
		{desc: "error detail", res: runtime.Fail(runtime.NotFound("no such order").WithDetail("x", storetest.PanickingJSON{}))},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			var env map[string]any
			out := tt.res.JSON()
			if err := json.Unmarshal(out, &env); err != nil {
				t.Fatalf("JSON() = %s: not JSON: %v", out, err)
			}
			e, _ := env["error"].(map[string]any)
			if env["success"] != false || e["code"] != string(runtime.CodeInternal) {
				t.Fatalf("JSON() = %s, want an internal error envelope", out)
			}
			if _, err := tt.res.MarshalJSON(); err == nil {
				t.Error("MarshalJSON: want an error")
			}
			if _, err := json.Marshal(tt.res); err == nil {
				t.Error("json.Marshal of the result: want an error")
			}
		})
	}
	// The encoder the panic interrupted is not reused: the next results
	// encode whole.
	for range 3 {
		if got := string(runtime.OK(map[string]int{"n": 1}).JSON()); got != `{"success":true,"data":{"n":1}}` {
			t.Fatalf("after a panic: JSON() = %s", got)
		}
	}
}

func goexitTool(runs *atomic.Int32, sla time.Duration) runtime.Tool {
	return runtime.Tool{
		Meta: runtime.Meta{Name: "send_mail", HasSideEffects: true, SLA: sla},
		Execute: func(context.Context, any) (any, error) {
			if runs.Add(1) == 1 {
				goruntime.Goexit() // as t.FailNow does
			}
			return "sent", nil
		},
	}
}

// TestGoexitIsInternal: a tool calling runtime.Goexit on a goroutine of its
// own answers internal, and its idempotency key is free for the retry.
func TestGoexitIsInternal(t *testing.T) {
	tests := []struct {
		desc string
		opts []runtime.Option
		sla  time.Duration
	}{
		{desc: "WithToolGoroutine, no SLA", opts: []runtime.Option{runtime.WithToolGoroutine(true)}},
		{desc: "WithToolGoroutine, SLA", opts: []runtime.Option{runtime.WithToolGoroutine(true)}, sla: time.Hour},
		{desc: "WithDetachOnTimeout, SLA", opts: []runtime.Option{runtime.WithDetachOnTimeout(true)}, sla: time.Hour},
	}
	for _, tt := range tests {
		for _, key := range []string{"", "mail-1"} {
			t.Run(fmt.Sprintf("%s, key %q", tt.desc, key), func(t *testing.T) {
				var runs atomic.Int32
				var logs logBuffer
				r := runtime.New(append(tt.opts, runtime.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))), runtime.WithIdempotencyLease(time.Hour))...)
				mustRegister(t, r, goexitTool(&runs, tt.sla))
				opts := runtime.CallOptions{IdempotencyKey: key}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				res := r.Call(ctx, "send_mail", nil, opts)
				if res.Success || res.Error.Code != runtime.CodeInternal {
					t.Fatalf("tool calling Goexit: want internal, got %s", res.JSON())
				}
				if !strings.Contains(logs.String(), "Goexit") {
					t.Errorf("the log does not say the tool called Goexit:\n%s", logs.String())
				}
				res = r.Call(ctx, "send_mail", nil, opts)
				if !res.Success || res.Replayed || runs.Load() != 2 {
					t.Fatalf("retry: want a second execution at once, got %s (runs %d)", res.JSON(), runs.Load())
				}
			})
		}
	}
}

// TestGoexitOnCallersGoroutine: by default the tool runs on the caller's
// goroutine, which Goexit ends, as documented; the key is released all the
// same.
func TestGoexitOnCallersGoroutine(t *testing.T) {
	var runs atomic.Int32
	r := runtime.New(runtime.WithLogger(quietLogger()), runtime.WithIdempotencyLease(time.Hour))
	mustRegister(t, r, goexitTool(&runs, 0))
	opts := runtime.CallOptions{IdempotencyKey: "mail-1"}
	returned := make(chan bool, 1)
	go func() {
		ok := false
		defer func() { returned <- ok }()
		r.Call(context.Background(), "send_mail", nil, opts)
		ok = true
	}()
	if <-returned {
		t.Fatal("Call returned although the tool called Goexit on its goroutine")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if res := r.Call(ctx, "send_mail", nil, opts); !res.Success || res.Replayed || runs.Load() != 2 {
		t.Fatalf("retry: want a second execution at once, got %s (runs %d)", res.JSON(), runs.Load())
	}
}
