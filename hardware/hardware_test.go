package hardware

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/toolcat/toolcat/runtime"
)

// call calls tool through a registry of tools with full autonomy and a
// fresh idempotency key, and returns the envelope.
func call(t *testing.T, reg *runtime.Registry, tool string, args any, dry bool) runtime.Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return reg.Call(context.Background(), tool, raw, runtime.CallOptions{
		Autonomy:       runtime.AutonomyFull,
		IdempotencyKey: fmt.Sprintf("test-%d", keys.Add(1)),
		DryRun:         dry,
	})
}

var keys atomic.Int64

func registry(t *testing.T, cfg Config) *runtime.Registry {
	t.Helper()
	tools, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := NewRegistry(tools)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// wantCode fails unless res is an error with code.
func wantCode(t *testing.T, res runtime.Result, code runtime.Code) *runtime.ToolError {
	t.Helper()
	if res.Success || res.Error == nil {
		t.Fatalf("got success %+v; want error %s", res.Data, code)
	}
	if res.Error.Code != code {
		t.Fatalf("got error %s (%s); want %s", res.Error.Code, res.Error.Message, code)
	}
	return res.Error
}

// data decodes a successful result's data into out.
func data(t *testing.T, res runtime.Result, out any) {
	t.Helper()
	if !res.Success {
		t.Fatalf("got error %s: %s", res.Error.Code, res.Error.Message)
	}
	b, err := json.Marshal(res.Data)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
}
