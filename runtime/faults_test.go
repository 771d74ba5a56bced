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

// hangingStore blocks in the operations named in hang until their context
// ends, and records the deadline each operation was given.
type hangingStore struct {
	runtime.IdempotencyStore
	hang      map[string]bool
	deadlines chan opDeadline
}

type opDeadline struct {
	op       string
	deadline time.Time
	ok       bool
}

func (s *hangingStore) wait(ctx context.Context, op string) error {
	dl, ok := ctx.Deadline()
	s.deadlines <- opDeadline{op, dl, ok}
	if !s.hang[op] {
		return nil
	}
	<-ctx.Done()
	return ctx.Err()
}

func (s *hangingStore) Acquire(ctx context.Context, key, fp string, lease time.Duration) (runtime.Claim, error) {
	if err := s.wait(ctx, "Acquire"); err != nil {
		return runtime.Claim{}, err
	}
	return s.IdempotencyStore.Acquire(ctx, key, fp, lease)
}

func (s *hangingStore) Complete(ctx context.Context, key, token string, rec runtime.Record, ttl time.Duration) error {
	if err := s.wait(ctx, "Complete"); err != nil {
		return err
	}
	return s.IdempotencyStore.Complete(ctx, key, token, rec, ttl)
}

func (s *hangingStore) Release(ctx context.Context, key, token string) error {
	if err := s.wait(ctx, "Release"); err != nil {
		return err
	}
	return s.IdempotencyStore.Release(ctx, key, token)
}

// TestStoreOperationsAreBounded: every store operation gets a deadline no
// later than the tool's SLA and the caller's deadline, whatever the store;
// a store that never answers gets a message saying so.
func TestStoreOperationsAreBounded(t *testing.T) {
	const sla = 300 * time.Millisecond
	tests := []struct {
		desc     string
		hang     string
		caller   time.Duration // the caller's deadline; 0 is none
		wantCode runtime.Code  // "" is success
		says     string
	}{
		{desc: "Acquire hangs", hang: "Acquire", wantCode: runtime.CodeDependencyUnavailable, says: "did not answer in time (within 300ms)"},
		{desc: "Acquire hangs past the caller's deadline", hang: "Acquire", caller: 100 * time.Millisecond,
			wantCode: runtime.CodeTimeout, says: "the call ended before the idempotency store answered"},
		{desc: "Complete hangs: the result is kept", hang: "Complete"},
		{desc: "nothing hangs", caller: time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			s := &hangingStore{IdempotencyStore: runtime.NewMemoryIdempotencyStore(), hang: map[string]bool{tt.hang: true}, deadlines: make(chan opDeadline, 10)}
			r := runtime.New(runtime.WithIdempotencyStore(s), runtime.WithLogger(quietLogger()))
			mustRegister(t, r, runtime.Tool{Meta: runtime.Meta{Name: "send_mail", HasSideEffects: true, SLA: sla}, Execute: echo})
			ctx := context.Background()
			if tt.caller > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.caller)
				defer cancel()
			}
			start := time.Now()
			res := r.Call(ctx, "send_mail", []byte(`{}`), runtime.CallOptions{IdempotencyKey: "k"})
			if got := codeOf(res); got != tt.wantCode || !strings.Contains(string(res.JSON()), tt.says) {
				t.Fatalf("want %q saying %q, got %s", tt.wantCode, tt.says, res.JSON())
			}
			end := time.Now()
			close(s.deadlines)
			// The deadlines are set inside Call, a little after start:
			// slack covers that, not a store bound the size of the SLA.
			const slack = sla / 3
			bound := start.Add(sla)
			if cd, ok := ctx.Deadline(); ok && cd.Before(bound) {
				bound = cd
			}
			bound = bound.Add(slack)
			for d := range s.deadlines {
				if !d.ok {
					t.Errorf("%s got a context without a deadline", d.op)
					continue
				}
				if d.op == "Acquire" && d.deadline.After(bound) {
					t.Errorf("Acquire's deadline is %v after the earlier of the SLA and the caller's deadline", d.deadline.Sub(bound))
				}
				if d.op != "Acquire" && d.deadline.After(end.Add(sla)) {
					t.Errorf("%s's deadline is more than the SLA away", d.op)
				}
			}
		})
	}
}

func codeOf(res runtime.Result) runtime.Code {
	if res.Success {
		return ""
	}
	return res.Error.Code
}
