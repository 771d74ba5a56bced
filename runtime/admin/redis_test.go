package admin_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/internal/redistest"
	"github.com/toolcat/toolcat/runtime/redisstore"
)

// TestStateAcrossReplicas switches a tool off through the admin API of one
// replica and checks that another replica, sharing the Redis state store,
// refuses its calls and leaves it out of a session's tools, calls its
// OnToolsChanged hook, and lists it on again after the tool is switched
// back on; the admin API of the second replica reports the state too.
func TestStateAcrossReplicas(t *testing.T) {
	srv := redistest.Start(t)
	replica := func() *runtime.Registry {
		c := redis.NewClient(&redis.Options{Addr: srv.Addr, DialTimeout: 200 * time.Millisecond, ReadTimeout: time.Second,
			WriteTimeout: time.Second, MaxRetries: -1, ContextTimeoutEnabled: true})
		t.Cleanup(func() { _ = c.Close() })
		reg := registry(t, runtime.WithToolStateStore(redisstore.NewToolStateStore(c, redisstore.ToolStateStorePoll(time.Second))))
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Go(func() { _ = reg.WatchToolStates(ctx) })
		t.Cleanup(func() { cancel(); wg.Wait() })
		return reg
	}
	a, b := replica(), replica()
	changed := make(chan struct{}, 16)
	b.OnToolsChanged(func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	_, hsA := server(t, a)
	_, hsB := server(t, b)
	time.Sleep(200 * time.Millisecond) // the watchers subscribe

	if r := do(t, hsA, "PUT", "/api/tools/refund_order/state", token, "application/json",
		`{"enabled": false, "reason": "refunds paused for the audit"}`); r.status != 200 {
		t.Fatalf("PUT on replica A: %d %s", r.status, r.body)
	}
	select {
	case <-changed:
	case <-time.After(3 * time.Second):
		t.Fatal("replica B's OnToolsChanged was not called within 3s")
	}
	ctx := context.Background()
	res := b.Call(ctx, "refund_order", []byte(`{}`), runtime.CallOptions{})
	if res.Success || res.Error.Code != runtime.CodePermissionDenied || !strings.Contains(res.Error.Message, "refunds paused for the audit") {
		t.Fatalf("call on replica B: %s", res.JSON())
	}
	tools, err := b.Session("conv-1").Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range tools {
		if m.Name == "refund_order" {
			t.Error("replica B's session lists the disabled tool")
		}
	}
	if r := do(t, hsB, "GET", "/api/tools/refund_order/state", token, "", ""); r.json(t)["state"] != "disabled" {
		t.Errorf("replica B's admin API: %s", r.body)
	}

	if r := do(t, hsB, "PUT", "/api/tools/refund_order/state", token, "application/json", `{"enabled": true}`); r.status != 200 {
		t.Fatalf("PUT on replica B: %d %s", r.status, r.body)
	}
	deadline := time.Now().Add(3 * time.Second)
	for {
		if st, _ := a.ToolStatus("refund_order"); st.State == runtime.ToolEnabled {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("replica A did not see the tool enabled within 3s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if res := a.Call(ctx, "refund_order", []byte(`{}`), runtime.CallOptions{}); !res.Success {
		t.Fatalf("call on replica A: %s", res.JSON())
	}
}
