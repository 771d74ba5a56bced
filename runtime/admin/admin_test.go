package admin_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/admin"
)

const token = "test-token-0123456789abcdef"

var obj = json.RawMessage(`{"type":"object","properties":{"order_id":{"type":"string"}}}`)

// registry returns a registry with a read tool, a side-effect tool with a
// result schema, and a composite of the read tool.
func registry(t testing.TB, opts ...runtime.Option) *runtime.Registry {
	t.Helper()
	reg := runtime.New(opts...)
	ok := func(context.Context, any) (any, error) { return map[string]any{"ok": true}, nil }
	for _, tool := range []runtime.Tool{
		{Meta: runtime.Meta{Name: "get_order", Description: "Reads an order.", Category: "orders", ArgsSchema: obj, SLA: time.Hour}, Execute: ok},
		{Meta: runtime.Meta{Name: "refund_order", Description: "Refunds an order.", Category: "payments", Risk: runtime.RiskHigh,
			HasSideEffects: true, ArgsSchema: obj, ResultSchema: json.RawMessage(`{"type":"object"}`), MaxRetries: 2,
			ErrorHints: map[runtime.Code]string{runtime.CodeNotFound: "Check the order id."}}, Execute: ok},
		{Meta: runtime.Meta{Name: "summarise_order", Description: "Summarises an order.", Dependencies: []string{"get_order"},
			Exposure: runtime.ExposureHidden, ArgsSchema: obj},
			Execute: func(ctx context.Context, _ any) (any, error) {
				return runtime.CallTool(ctx, "get_order", []byte(`{}`)).Data, nil
			}},
	} {
		if err := reg.Register(tool); err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

func server(t testing.TB, reg *runtime.Registry, opts ...admin.Option) (*admin.Server, *httptest.Server) {
	t.Helper()
	srv, err := admin.New(reg, append([]admin.Option{admin.WithToken(token), admin.WithLogger(quiet())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return srv, hs
}

type answer struct {
	status int
	header http.Header
	body   []byte
}

func (a answer) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(a.body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v\n%s", err, a.body)
	}
	return m
}

func do(t testing.TB, hs *httptest.Server, method, path, tok, contentType, body string) answer {
	t.Helper()
	req, err := http.NewRequest(method, hs.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{resp.StatusCode, resp.Header, b}
}

// TestTools checks GET /api/tools and /api/tools/{name}, and a state
// change through PUT that the registry applies at once, hook included.
func TestTools(t *testing.T) {
	reg := registry(t)
	var changes atomic.Int64
	reg.OnToolsChanged(func() { changes.Add(1) })
	_, hs := server(t, reg)

	a := do(t, hs, "GET", "/api/tools", token, "", "")
	if a.status != 200 || !strings.HasPrefix(a.header.Get("Content-Type"), "application/json") {
		t.Fatalf("GET /api/tools: %d %s", a.status, a.body)
	}
	var list struct {
		Tools []map[string]any `json:"tools"`
	}
	if err := json.Unmarshal(a.body, &list); err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{
		{"name": "get_order", "category": "orders", "risk": "low", "exposure": "core", "has_side_effects": false, "state": "enabled"},
		{"name": "refund_order", "category": "payments", "risk": "high", "exposure": "core", "has_side_effects": true, "state": "enabled"},
		{"name": "summarise_order", "risk": "low", "exposure": "hidden", "has_side_effects": false, "state": "enabled"},
	}
	if diff := cmp.Diff(want, list.Tools); diff != "" {
		t.Errorf("GET /api/tools (-want +got):\n%s", diff)
	}

	a = do(t, hs, "GET", "/api/tools/refund_order", token, "", "")
	if a.status != 200 {
		t.Fatalf("GET /api/tools/refund_order: %d %s", a.status, a.body)
	}
	d := a.json(t)
	if d["description"] != "Refunds an order." || d["max_retries"] != 2.0 || d["additional_args"] != "reject" ||
		d["errors"].(map[string]any)["not_found"] != "Check the order id." {
		t.Errorf("tool detail: %s", a.body)
	}
	if diff := cmp.Diff(map[string]any{"type": "object", "properties": map[string]any{"order_id": map[string]any{"type": "string"}}}, d["args"]); diff != "" {
		t.Errorf("args schema (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"type": "object"}, d["result"]); diff != "" {
		t.Errorf("result schema (-want +got):\n%s", diff)
	}

	// Disable: the registry refuses the call with the reason, and the
	// composite is blocked.
	a = do(t, hs, "PUT", "/api/tools/get_order/state", token, "application/json", `{"enabled": false, "reason": "orders DB migration"}`)
	if a.status != 200 {
		t.Fatalf("PUT state: %d %s", a.status, a.body)
	}
	if st := a.json(t); st["state"] != "disabled" || st["reason"] != "orders DB migration" || st["since"] == nil {
		t.Errorf("PUT answer: %s", a.body)
	}
	if changes.Load() != 1 {
		t.Errorf("OnToolsChanged called %d times", changes.Load())
	}
	res := reg.Call(context.Background(), "get_order", []byte(`{}`), runtime.CallOptions{})
	if res.Success || res.Error.Code != runtime.CodePermissionDenied || !strings.Contains(res.Error.Message, "orders DB migration") {
		t.Fatalf("call of the disabled tool: %s", res.JSON())
	}
	a = do(t, hs, "GET", "/api/tools/summarise_order/state", token, "", "")
	if st := a.json(t); st["state"] != "blocked" || st["disabled_dependency"] != "get_order" {
		t.Errorf("composite state: %s", a.body)
	}
	a = do(t, hs, "GET", "/api/tools", token, "", "")
	if !strings.Contains(string(a.body), `"reason": "orders DB migration"`) {
		t.Errorf("list after disabling: %s", a.body)
	}
	// Enable again, with a media type parameter.
	a = do(t, hs, "PUT", "/api/tools/get_order/state", token, "application/json; charset=utf-8", `{"enabled": true}`)
	if a.status != 200 || a.json(t)["state"] != "enabled" {
		t.Fatalf("enable: %d %s", a.status, a.body)
	}
	if res := reg.Call(context.Background(), "get_order", []byte(`{}`), runtime.CallOptions{}); !res.Success {
		t.Fatalf("enabled again: %s", res.JSON())
	}
	// HEAD answers without a body.
	if a := do(t, hs, "HEAD", "/api/tools", token, "", ""); a.status != 200 || len(a.body) != 0 {
		t.Errorf("HEAD: %d %q", a.status, a.body)
	}
}

// TestAuth checks that a missing, wrong or malformed token gets 401 on
// every path, with WWW-Authenticate, and changes nothing.
func TestAuth(t *testing.T) {
	reg := registry(t)
	_, hs := server(t, reg)
	for _, tok := range []string{"", "wrong-token-0123456789abcdef", token + "x", token[:len(token)-1]} {
		for _, req := range []struct{ method, path, body string }{
			{"GET", "/api/tools", ""},
			{"GET", "/api/tools/get_order", ""},
			{"PUT", "/api/tools/get_order/state", `{"enabled": false}`},
			{"GET", "/api/metrics", ""},
			{"GET", "/metrics", ""},
			{"GET", "/nowhere", ""},
		} {
			a := do(t, hs, req.method, req.path, tok, "application/json", req.body)
			if a.status != 401 || a.header.Get("WWW-Authenticate") == "" || a.json(t)["error"].(map[string]any)["code"] != "unauthorized" {
				t.Errorf("%s %s with token %q: %d %s", req.method, req.path, tok, a.status, a.body)
			}
		}
	}
	// Other schemes and spellings.
	for _, h := range []string{"Basic " + token, "Bearer", "Bearer  " + token, token, "bearer " + token} {
		req, _ := http.NewRequest("PUT", hs.URL+"/api/tools/get_order/state", strings.NewReader(`{"enabled": false}`))
		req.Header.Set("Authorization", h)
		req.Header.Set("Content-Type", "application/json")
		resp, err := hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := 401
		if h == "bearer "+token {
			want = 200 // the scheme is case-insensitive
		}
		if resp.StatusCode != want {
			t.Errorf("Authorization %q: %d, want %d", h, resp.StatusCode, want)
		}
		if want == 401 {
			if st, _ := reg.ToolStatus("get_order"); st.State != runtime.ToolEnabled {
				t.Fatalf("a refused request changed the state: %+v", st)
			}
		}
	}
}

// TestErrors checks every error answer: its status, its JSON body, and
// that nothing changed.
func TestErrors(t *testing.T) {
	reg := registry(t)
	_, hs := server(t, reg, admin.WithMaxBodyBytes(1024))
	big := `{"enabled": false, "reason": "` + strings.Repeat("x", 2000) + `"}`
	tests := []struct {
		desc, method, path, ctype, body string
		status                          int
		code                            string
	}{
		{"unknown path", "GET", "/api/nothing", "", "", 404, "not_found"},
		{"root", "GET", "/", "", "", 404, "not_found"},
		{"unknown tool", "GET", "/api/tools/no_such_tool", "", "", 404, "not_found"},
		{"unknown tool state", "PUT", "/api/tools/no_such_tool/state", "application/json", `{"enabled": false}`, 404, "not_found"},
		{"a path below a tool", "GET", "/api/tools/get_order/other", "", "", 404, "not_found"},
		{"empty name", "GET", "/api/tools/", "", "", 404, "not_found"},
		{"POST tools", "POST", "/api/tools", "", "", 405, "method_not_allowed"},
		{"DELETE tool", "DELETE", "/api/tools/get_order", "", "", 405, "method_not_allowed"},
		{"POST state", "POST", "/api/tools/get_order/state", "application/json", `{"enabled": false}`, 405, "method_not_allowed"},
		{"PUT metrics", "PUT", "/api/metrics", "", "", 405, "method_not_allowed"},
		{"POST prometheus", "POST", "/metrics", "", "", 405, "method_not_allowed"},
		{"no content type", "PUT", "/api/tools/get_order/state", "", `{"enabled": false}`, 415, "unsupported_media_type"},
		{"text body", "PUT", "/api/tools/get_order/state", "text/plain", `{"enabled": false}`, 415, "unsupported_media_type"},
		{"bad media type", "PUT", "/api/tools/get_order/state", "application/json; =", `{"enabled": false}`, 415, "unsupported_media_type"},
		{"too large", "PUT", "/api/tools/get_order/state", "application/json", big, 413, "payload_too_large"},
		{"empty body", "PUT", "/api/tools/get_order/state", "application/json", ``, 400, "bad_request"},
		{"not JSON", "PUT", "/api/tools/get_order/state", "application/json", `enabled=false`, 400, "bad_request"},
		{"array", "PUT", "/api/tools/get_order/state", "application/json", `[false]`, 400, "bad_request"},
		{"no enabled", "PUT", "/api/tools/get_order/state", "application/json", `{"reason": "x"}`, 400, "bad_request"},
		{"enabled null", "PUT", "/api/tools/get_order/state", "application/json", `{"enabled": null}`, 400, "bad_request"},
		{"enabled a string", "PUT", "/api/tools/get_order/state", "application/json", `{"enabled": "false"}`, 400, "bad_request"},
		{"unknown member", "PUT", "/api/tools/get_order/state", "application/json", `{"enabled": false, "until": "tomorrow"}`, 400, "bad_request"},
		{"two objects", "PUT", "/api/tools/get_order/state", "application/json", `{"enabled": false} {"enabled": true}`, 400, "bad_request"},
		{"trailing garbage", "PUT", "/api/tools/get_order/state", "application/json", `{"enabled": false}]`, 400, "bad_request"},
		{"reason too long", "PUT", "/api/tools/get_order/state", "application/json", `{"enabled": false, "reason": "` + strings.Repeat("y", 501) + `"}`, 400, "bad_request"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			a := do(t, hs, tt.method, tt.path, token, tt.ctype, tt.body)
			if a.status != tt.status {
				t.Fatalf("status %d, want %d: %s", a.status, tt.status, a.body)
			}
			e, ok := a.json(t)["error"].(map[string]any)
			if !ok || e["code"] != tt.code || e["message"] == "" {
				t.Errorf("error body: %s", a.body)
			}
			if tt.status == 405 && a.header.Get("Allow") == "" {
				t.Error("405 without Allow")
			}
			if st, _ := reg.ToolStatus("get_order"); st.State != runtime.ToolEnabled {
				t.Fatalf("a refused request changed the state: %+v", st)
			}
		})
	}
}

// TestStoreDown checks that a state store that cannot be written answers
// 503 and changes nothing.
func TestStoreDown(t *testing.T) {
	reg := registry(t, runtime.WithToolStateStore(downStore{}))
	_, hs := server(t, reg)
	a := do(t, hs, "PUT", "/api/tools/get_order/state", token, "application/json", `{"enabled": false}`)
	if a.status != 503 || a.json(t)["error"].(map[string]any)["code"] != "unavailable" {
		t.Fatalf("store down: %d %s", a.status, a.body)
	}
	if st, _ := reg.ToolStatus("get_order"); st.State != runtime.ToolEnabled {
		t.Fatalf("state changed: %+v", st)
	}
}

type downStore struct{}

func (downStore) Load(context.Context) (map[string]runtime.ToolSetting, error) {
	return nil, errors.New("down")
}
func (downStore) Save(context.Context, string, runtime.ToolSetting) error { return errors.New("down") }
func (downStore) Watch(ctx context.Context, _ func()) error               { <-ctx.Done(); return ctx.Err() }

// TestNew checks New's refusals.
func TestNew(t *testing.T) {
	reg := registry(t)
	for desc, opts := range map[string][]admin.Option{
		"no token":    nil,
		"short token": {admin.WithToken("short")},
		"bad limit":   {admin.WithToken(token), admin.WithMaxBodyBytes(0)},
	} {
		if _, err := admin.New(reg, opts...); err == nil {
			t.Errorf("%s: New returned no error", desc)
		}
	}
	if _, err := admin.New(nil, admin.WithToken(token)); err == nil {
		t.Error("New(nil) returned no error")
	}
}

// TestListenAndServe checks the server's own listener: it answers, and
// stops when its context ends.
func TestListenAndServe(t *testing.T) {
	reg := registry(t)
	srv, err := admin.New(reg, admin.WithToken(token))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ln, err := netListen()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	req, _ := http.NewRequest("GET", "http://"+ln.Addr().String()+"/api/tools", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after its context ended")
	}
}

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }
