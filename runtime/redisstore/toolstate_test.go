package redisstore_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/internal/redistest"
	"github.com/toolcat/toolcat/runtime/redisstore"
)

func stateReplica(t *testing.T, addr string, poll time.Duration) (*runtime.Registry, chan struct{}) {
	t.Helper()
	reg := runtime.New(runtime.WithToolStateStore(redisstore.NewToolStateStore(client(t, addr), redisstore.ToolStateStorePoll(poll))))
	obj := json.RawMessage(`{"type":"object"}`)
	ok := func(context.Context, any) (any, error) { return "ok", nil }
	reg.MustRegister(runtime.Tool{Meta: runtime.Meta{Name: "get_order", Description: "Reads an order.", ArgsSchema: obj}, Execute: ok})
	reg.MustRegister(runtime.Tool{Meta: runtime.Meta{Name: "refund_order", Description: "Refunds an order.", HasSideEffects: true, ArgsSchema: obj}, Execute: ok})
	changed := make(chan struct{}, 64)
	reg.OnToolsChanged(func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	return reg, changed
}

func watch(t *testing.T, reg *runtime.Registry) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = reg.WatchToolStates(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
}

// awaitState waits until tool is in state want on reg, within d.
func awaitState(t *testing.T, reg *runtime.Registry, changed <-chan struct{}, tool string, want runtime.ToolState, d time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	deadline := time.After(d)
	for {
		if st, _ := reg.ToolStatus(tool); st.State == want {
			return time.Since(start)
		}
		select {
		case <-changed:
		case <-time.After(5 * time.Millisecond):
		case <-deadline:
			st, _ := reg.ToolStatus(tool)
			t.Fatalf("%s is %s after %v, want %s", tool, st.State, d, want)
		}
	}
}

// TestToolStatesAcrossReplicas checks that a tool disabled on one replica
// is disabled on another at once (pub/sub), with its hook called, and is
// enabled again on both; and that a replica started later loads it.
func TestToolStatesAcrossReplicas(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	a, _ := stateReplica(t, srv.Addr, time.Hour) // no polling: pub/sub only
	b, changedB := stateReplica(t, srv.Addr, time.Hour)
	watch(t, a)
	watch(t, b)
	time.Sleep(200 * time.Millisecond) // let b subscribe (a missed message would wait an hour)

	if err := a.DisableTool(ctx, "refund_order", "refunds are paused during the audit"); err != nil {
		t.Fatal(err)
	}
	took := awaitState(t, b, changedB, "refund_order", runtime.ToolDisabled, 2*time.Second)
	t.Logf("disabled on the other replica after %v", took)
	res := b.Call(ctx, "refund_order", []byte(`{}`), runtime.CallOptions{})
	if res.Success || res.Error.Code != runtime.CodePermissionDenied || !strings.Contains(res.Error.Message, "refunds are paused during the audit") {
		t.Fatalf("call on the other replica: %s", res.JSON())
	}
	if v := b.Visible(runtime.AutonomyFull); len(v) != 1 || v[0].Meta.Name != "get_order" {
		t.Errorf("Visible on the other replica: %v", v)
	}

	c, _ := stateReplica(t, srv.Addr, time.Hour)
	if err := c.SyncToolStates(ctx); err != nil {
		t.Fatal(err)
	}
	if st, _ := c.ToolStatus("refund_order"); st.State != runtime.ToolDisabled || st.Reason != "refunds are paused during the audit" || st.Since.IsZero() {
		t.Errorf("a replica started later: %+v", st)
	}

	if err := b.EnableTool(ctx, "refund_order"); err != nil {
		t.Fatal(err)
	}
	awaitState(t, a, nil, "refund_order", runtime.ToolEnabled, 2*time.Second)
	if res := a.Call(ctx, "refund_order", []byte(`{}`), runtime.CallOptions{}); !res.Success {
		t.Fatalf("enabled again: %s", res.JSON())
	}
}

// TestToolStatesPollAfterRestart checks that a change made while a
// replica's subscription was down (Redis restarted) reaches it through the
// version poll, and that a field that does not decode reads as disabled.
func TestToolStatesPollAfterRestart(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	a, _ := stateReplica(t, srv.Addr, time.Hour)
	b, changedB := stateReplica(t, srv.Addr, 100*time.Millisecond)
	watch(t, b)
	if err := a.DisableTool(ctx, "get_order", "migrating"); err != nil {
		t.Fatal(err)
	}
	awaitState(t, b, changedB, "get_order", runtime.ToolDisabled, 2*time.Second)

	srv.Stop() // saves the data
	srv.Restart()
	// A write straight into Redis, with no message: only the poll sees it.
	raw := client(t, srv.Addr)
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := raw.HSet(ctx, "toolcat:tools:state", "refund_order", "{not json").Err()
		if err == nil {
			err = raw.Incr(ctx, "toolcat:tools:version").Err()
		}
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("writing to the restarted Redis: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	awaitState(t, b, changedB, "refund_order", runtime.ToolDisabled, 5*time.Second)
	st, _ := b.ToolStatus("refund_order")
	if !strings.Contains(st.Reason, "cannot be read") {
		t.Errorf("corrupt record: %+v", st)
	}
	if st, _ := b.ToolStatus("get_order"); st.State != runtime.ToolDisabled {
		t.Errorf("state saved before the restart: %+v", st)
	}
}

// TestToolStatesRedisDown checks that disabling with Redis down fails and
// changes nothing.
func TestToolStatesRedisDown(t *testing.T) {
	srv := redistest.Start(t)
	a, _ := stateReplica(t, srv.Addr, time.Hour)
	srv.Kill()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := a.DisableTool(ctx, "get_order", "x"); err == nil {
		t.Fatal("DisableTool with Redis down returned nil")
	}
	if st, _ := a.ToolStatus("get_order"); st.State != runtime.ToolEnabled {
		t.Errorf("state changed: %+v", st)
	}
}
