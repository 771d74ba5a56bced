package admin_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/internal/redistest"
	"github.com/toolcat/toolcat/runtime/mcpclient"
	"github.com/toolcat/toolcat/runtime/redisstore"
)

// TestHolds mounts a real MCP server (runtime/mcpclient's test server)
// whose count_notes tool is poisoned: the admin API lists it under
// /api/holds with its findings, its state carries the hold, /metrics
// counts it, and enabling it through PUT approves it.
func TestHolds(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "notesserver")
	if out, err := exec.Command("go", "build", "-o", bin, "../mcpclient/testdata/notesserver").CombinedOutput(); err != nil {
		t.Fatalf("building the test server: %v\n%s", err, out)
	}
	reg := runtime.New()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	m, err := mcpclient.Mount(ctx, reg, mcpclient.Command(bin, "-poison"), mcpclient.WithLogger(quiet()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	_, hs := server(t, reg)

	a := do(t, hs, "GET", "/api/holds", token, "", "")
	var holds struct {
		Tools []struct {
			Name   string
			Reason string
			Hold   runtime.ToolHold
		}
	}
	if err := json.Unmarshal(a.body, &holds); err != nil || a.status != 200 {
		t.Fatalf("GET /api/holds: %d %s", a.status, a.body)
	}
	if len(holds.Tools) != 1 || holds.Tools[0].Name != "notes_count_notes" || holds.Tools[0].Hold.Kind != runtime.HoldFlagged ||
		!strings.Contains(strings.Join(holds.Tools[0].Hold.Findings, "\n"), "~/.ssh") || strings.Contains(holds.Tools[0].Reason, "ssh") {
		t.Fatalf("holds %s", a.body)
	}
	st := do(t, hs, "GET", "/api/tools/notes_count_notes/state", token, "", "").json(t)
	if st["state"] != "disabled" || st["hold"] == nil {
		t.Errorf("state %v", st)
	}
	metrics := string(do(t, hs, "GET", "/metrics", token, "", "").body)
	for _, want := range []string{`toolcat_tools_held{kind="flagged"} 1`, `toolcat_tools_held{kind="changed"} 0`, `toolcat_tool_held{tool="notes_count_notes",kind="flagged"} 1`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}

	if a := do(t, hs, "PUT", "/api/tools/notes_count_notes/state", token, "application/json", `{"enabled": true, "approve": "`+strings.Repeat("0", 64)+`"}`); a.status != 409 {
		t.Fatalf("PUT approving another hash: %d %s", a.status, a.body)
	}
	if st, _ := reg.ToolStatus("notes_count_notes"); st.State != runtime.ToolDisabled {
		t.Fatalf("a refused approval changed the state: %+v", st)
	}
	if a := do(t, hs, "PUT", "/api/tools/notes_count_notes/state", token, "application/json", `{"enabled": true, "approve": "`+holds.Tools[0].Hold.Hash+`"}`); a.status != 200 {
		t.Fatalf("PUT: %d %s", a.status, a.body)
	}
	for deadline := time.Now().Add(15 * time.Second); len(m.Reviews()) > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the approval did not reach the mount")
		}
	}
	if err := json.Unmarshal(do(t, hs, "GET", "/api/holds", token, "", "").body, &holds); err != nil || len(holds.Tools) != 0 {
		t.Errorf("holds after approval: %+v (%v)", holds.Tools, err)
	}
	if metrics := string(do(t, hs, "GET", "/metrics", token, "", "").body); !strings.Contains(metrics, `toolcat_tools_held{kind="flagged"} 0`) {
		t.Errorf("/metrics still counts the approved tool")
	}
	if res := reg.Call(ctx, "notes_count_notes", []byte(`{}`), runtime.CallOptions{}); !res.Success {
		t.Errorf("call after approval: %+v", res.Error)
	}
}

// TestHoldsAcrossReplicas: two replicas share a Redis state store, each
// mounting the poisoned server; the hold shows on both, and approving the
// tool through one replica's admin API releases it on both mounts.
func TestHoldsAcrossReplicas(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "notesserver")
	if out, err := exec.Command("go", "build", "-o", bin, "../mcpclient/testdata/notesserver").CombinedOutput(); err != nil {
		t.Fatalf("building the test server: %v\n%s", err, out)
	}
	srv := redistest.Start(t)
	replica := func() (*runtime.Registry, *mcpclient.Mounted) {
		c := redis.NewClient(&redis.Options{Addr: srv.Addr, DialTimeout: 200 * time.Millisecond, ReadTimeout: time.Second,
			WriteTimeout: time.Second, MaxRetries: -1, ContextTimeoutEnabled: true})
		t.Cleanup(func() { _ = c.Close() })
		reg := runtime.New(runtime.WithToolStateStore(redisstore.NewToolStateStore(c, redisstore.ToolStateStorePoll(time.Second))))
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Go(func() { _ = reg.WatchToolStates(ctx) })
		t.Cleanup(func() { cancel(); wg.Wait() })
		mctx, mcancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer mcancel()
		m, err := mcpclient.Mount(mctx, reg, mcpclient.Command(bin, "-poison"), mcpclient.WithLogger(quiet()))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close() })
		return reg, m
	}
	a, ma := replica()
	b, mb := replica()
	_, hsB := server(t, b)
	if st, _ := a.ToolStatus("notes_count_notes"); st.Hold == nil || st.Hold.Kind != runtime.HoldFlagged {
		t.Fatalf("replica A: %+v", st)
	}
	if a := do(t, hsB, "PUT", "/api/tools/notes_count_notes/state", token, "application/json", `{"enabled": true}`); a.status != 200 {
		t.Fatalf("PUT on replica B: %d %s", a.status, a.body)
	}
	for deadline := time.Now().Add(15 * time.Second); len(ma.Reviews())+len(mb.Reviews()) > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("held after approval: A %+v, B %+v", ma.Reviews(), mb.Reviews())
		}
	}
	if res := a.Call(context.Background(), "notes_count_notes", []byte(`{}`), runtime.CallOptions{}); !res.Success {
		t.Errorf("call on replica A after approval on B: %+v", res.Error)
	}
}
