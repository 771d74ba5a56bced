package mcpclient_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/mcpclient"
)

var (
	buildOnce sync.Once
	serverBin string
	buildErr  error
)

// notesServer builds testdata/notesserver once per test binary.
func notesServer(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mcpclient-test")
		if err != nil {
			buildErr = err
			return
		}
		serverBin = filepath.Join(dir, "notesserver")
		out, err := exec.Command("go", "build", "-o", serverBin, "./testdata/notesserver").CombinedOutput()
		if err != nil {
			buildErr = err
			serverBin = string(out)
		}
	})
	if buildErr != nil {
		t.Fatalf("building the test server: %v\n%s", buildErr, serverBin)
	}
	return serverBin
}

type fixture struct {
	reg      *runtime.Registry
	m        *mcpclient.Mounted
	pidfile  string
	downfile string
}

func mount(t *testing.T, opts ...mcpclient.Option) *fixture {
	t.Helper()
	bin := notesServer(t)
	dir := t.TempDir()
	f := &fixture{reg: runtime.New(), pidfile: filepath.Join(dir, "pid"), downfile: filepath.Join(dir, "down")}
	opts = append([]mcpclient.Option{
		mcpclient.WithBackoff(20*time.Millisecond, 100*time.Millisecond),
		mcpclient.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
	}, opts...)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	m, err := mcpclient.Mount(ctx, f.reg, mcpclient.Command(bin, "-pidfile", f.pidfile, "-downfile", f.downfile), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	f.m = m
	return f
}

func (f *fixture) kill(t *testing.T) {
	t.Helper()
	b, err := os.ReadFile(f.pidfile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(string(b))
	p, err := os.FindProcess(pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

func call(t *testing.T, reg *runtime.Registry, name, args string) runtime.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return reg.Call(ctx, name, []byte(args), runtime.CallOptions{})
}

func TestMountListsToolsAsHidden(t *testing.T) {
	f := mount(t)
	if got, want := strings.Join(f.m.Tools(), ","), "notes_add_tool,notes_delete_note,notes_get_note"; got != want {
		t.Fatalf("Tools() = %s, want %s", got, want)
	}
	if f.m.Server() != "notes" {
		t.Errorf("Server() = %q", f.m.Server())
	}
	tool, ok := f.reg.Get("notes_get_note")
	if !ok {
		t.Fatal("notes_get_note not registered")
	}
	m := tool.Meta
	if m.Exposure != runtime.ExposureHidden || !m.ReturnsUntrusted || m.UntrustedSource != "mcp:notes" {
		t.Errorf("exposure %q untrusted %v source %q", m.Exposure, m.ReturnsUntrusted, m.UntrustedSource)
	}
	if m.HasSideEffects || m.Risk != runtime.RiskLow || !m.Idempotent {
		t.Errorf("read-only tool: side effects %v risk %s idempotent %v", m.HasSideEffects, m.Risk, m.Idempotent)
	}
	del, _ := f.reg.Get("notes_delete_note") // "delete-note" made legal
	if !del.Meta.HasSideEffects || del.Meta.Risk != runtime.RiskMedium || !del.Meta.Idempotent {
		t.Errorf("delete-note: side effects %v risk %s idempotent %v", del.Meta.HasSideEffects, del.Meta.Risk, del.Meta.Idempotent)
	}
	add, _ := f.reg.Get("notes_add_tool") // no annotations: MCP defaults
	if !add.Meta.HasSideEffects || add.Meta.Risk != runtime.RiskHigh || add.Meta.Idempotent {
		t.Errorf("add_tool: side effects %v risk %s idempotent %v", add.Meta.HasSideEffects, add.Meta.Risk, add.Meta.Idempotent)
	}
}

func TestMountCallThroughSession(t *testing.T) {
	f := mount(t)
	sess := f.reg.Session("conv-1")
	ctx := context.Background()
	res := sess.Call(ctx, "notes_get_note", []byte(`{"id":1}`), runtime.CallOptions{})
	if res.Success || res.Error.Code != runtime.CodeNotFound {
		t.Fatalf("hidden tool before search: %+v", res)
	}
	res = sess.Call(ctx, "search_tools_by_keywords", []byte(`{"query":"read stored note"}`), runtime.CallOptions{})
	if !res.Success {
		t.Fatalf("search: %+v", res.Error)
	}
	b, _ := json.Marshal(res.Data)
	if !strings.Contains(string(b), "notes_get_note") {
		t.Fatalf("search did not find notes_get_note: %s", b)
	}
	res = sess.Call(ctx, "notes_get_note", []byte(`{"id":7}`), runtime.CallOptions{})
	if !res.Success {
		t.Fatalf("call: %+v", res.Error)
	}
	if got := dataJSON(res); got != `"note 7: buy milk"` {
		t.Errorf("data = %s", got)
	}
	if res.Untrusted == nil || res.Untrusted.Source != "mcp:notes" {
		t.Errorf("untrusted = %+v, want source mcp:notes", res.Untrusted)
	}
}

func TestMountValidatesWithServerSchema(t *testing.T) {
	f := mount(t)
	res := call(t, f.reg, "notes_get_note", `{"id":"seven"}`)
	if res.Success || res.Error.Code != runtime.CodeInvalidArgs {
		t.Fatalf("want invalid_args, got %+v", res)
	}
	res = call(t, f.reg, "notes_get_note", `{"id":404}`)
	if res.Success || res.Error.Code != runtime.CodeExternalError || !strings.Contains(res.Error.Message, "no note 404") {
		t.Fatalf("isError result: want external_error with the server's text, got %+v", res.Error)
	}
	res = call(t, f.reg, "notes_delete_note", `{"id":3}`)
	if !res.Success {
		t.Fatalf("structured result: %+v", res.Error)
	}
	if got := dataJSON(res); got != `{"deleted":3}` {
		t.Errorf("data = %s", got)
	}
}

func TestMountOverlay(t *testing.T) {
	overlay := []runtime.Meta{{
		Name:             "delete_note",
		OriginalName:     "delete-note",
		Description:      "Deletes a note for good. Use when the user asks to remove a note.",
		Risk:             runtime.RiskHigh,
		HasSideEffects:   true,
		Idempotent:       false,
		ReturnsUntrusted: false,
		Exposure:         runtime.ExposureCore,
		MaxRetries:       1,
		ErrorHints:       map[runtime.Code]string{runtime.CodeNotFound: "List the notes first."},
	}}
	f := mount(t, mcpclient.WithOverlay(overlay), mcpclient.WithPrefix("n_"))
	tool, ok := f.reg.Get("n_delete_note")
	if !ok {
		t.Fatalf("n_delete_note missing; have %v", f.reg.Names())
	}
	m := tool.Meta
	if m.Risk != runtime.RiskHigh || m.Idempotent || m.ReturnsUntrusted || m.Exposure != runtime.ExposureCore ||
		m.MaxRetries != 1 || m.ErrorHints[runtime.CodeNotFound] == "" || !strings.HasPrefix(m.Description, "Deletes a note for good") {
		t.Errorf("overlay not applied: %+v", m)
	}
	if len(m.ArgsSchema) == 0 || !strings.Contains(string(m.ArgsSchema), `"id"`) {
		t.Errorf("server schema not kept: %s", m.ArgsSchema)
	}
	res := call(t, f.reg, "n_delete_note", `{"id":1}`)
	if !res.Success || res.Untrusted != nil {
		t.Errorf("trusted by overlay: %+v", res)
	}
	if other, _ := f.reg.Get("n_get_note"); !other.Meta.ReturnsUntrusted {
		t.Error("a tool without overlay must stay untrusted")
	}
}

func TestMountReconnects(t *testing.T) {
	f := mount(t)
	if res := call(t, f.reg, "notes_get_note", `{"id":1}`); !res.Success {
		t.Fatalf("before: %+v", res.Error)
	}
	if err := os.WriteFile(f.downfile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f.kill(t)
	waitFor(t, "the disconnection", func() bool { return !f.m.Connected() })
	res := call(t, f.reg, "notes_get_note", `{"id":1}`)
	if res.Success || res.Error.Code != runtime.CodeDependencyUnavailable || !res.Error.RetryAllowed {
		t.Fatalf("dead server: want dependency_unavailable, got %+v", res)
	}
	os.Remove(f.pidfile)
	if err := os.Remove(f.downfile); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the reconnection", f.m.Connected)
	if res := call(t, f.reg, "notes_get_note", `{"id":2}`); !res.Success || dataJSON(res) != `"note 2: buy milk"` {
		t.Fatalf("after restart: %+v", res)
	}
	if _, err := os.Stat(f.pidfile); err != nil {
		t.Fatalf("no new server process: %v", err)
	}
}

func TestMountListChanged(t *testing.T) {
	f := mount(t)
	if res := call(t, f.reg, "notes_add_tool", `{}`); !res.Success {
		t.Fatalf("add_tool: %+v", res.Error)
	}
	waitFor(t, "notes_archive_note", func() bool { _, ok := f.reg.Get("notes_archive_note"); return ok })
	res := call(t, f.reg, "notes_archive_note", `{"id":5}`)
	if !res.Success {
		t.Fatalf("new tool: %+v", res.Error)
	}
	waitFor(t, "get_note to leave Tools()", func() bool { return !strings.Contains(strings.Join(f.m.Tools(), ","), "notes_get_note") })
	res = call(t, f.reg, "notes_get_note", `{"id":1}`)
	if res.Success || res.Error.Code != runtime.CodeUnsupported || !strings.Contains(res.Error.Message, "no longer offers") {
		t.Fatalf("removed tool: want unsupported, got %+v", res)
	}
}

func TestMountCloseAnswersUnavailable(t *testing.T) {
	f := mount(t)
	f.m.Close()
	res := call(t, f.reg, "notes_get_note", `{"id":1}`)
	if res.Success || res.Error.Code != runtime.CodeDependencyUnavailable {
		t.Fatalf("after Close: %+v", res)
	}
}

func TestMountBadSource(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	reg := runtime.New()
	if _, err := mcpclient.Mount(ctx, reg, mcpclient.Source{}); err == nil {
		t.Error("empty source: no error")
	}
	if _, err := mcpclient.Mount(ctx, reg, mcpclient.Command(filepath.Join(t.TempDir(), "missing"))); err == nil {
		t.Error("missing command: no error")
	}
	if _, err := mcpclient.Mount(ctx, nil, mcpclient.Command("true")); err == nil {
		t.Error("nil registry: no error")
	}
}

func dataJSON(res runtime.Result) string {
	b, _ := json.Marshal(res.Data)
	return string(b)
}
