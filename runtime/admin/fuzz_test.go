package admin_test

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/admin"
)

// FuzzPutState sends arbitrary bodies, media types and tool names to
// PUT /api/tools/{name}/state: the answer is 200, 400, 404, 409, 413 or 415,
// always JSON, and the tool's state is what the last 200 said.
func FuzzPutState(f *testing.F) {
	f.Add("get_order", "application/json", `{"enabled": false, "reason": "x"}`)
	f.Add("get_order", "application/json", `{"enabled": true}`)
	f.Add("get_order", "application/json; charset=utf-8", `{"enabled": false} x`)
	f.Add("refund_order", "text/plain", `{}`)
	f.Add("nope", "application/json", `{"enabled": 1}`)
	f.Add("get_order", "application/json", `{"enabled": false, "reason": "`+strings.Repeat("é", 300)+`"}`)
	f.Add("get_order/../x", "application/json", `[`)
	f.Add("get_order", "application/json", `{"enabled": true, "approve": "abc"}`)
	reg := registry(f)
	srv, err := admin.New(reg, admin.WithToken(token), admin.WithLogger(quiet()), admin.WithMaxBodyBytes(512))
	if err != nil {
		f.Fatal(err)
	}
	h := srv.Handler()
	f.Fuzz(func(t *testing.T, name, ctype, body string) {
		req := httptest.NewRequest("PUT", "/api/tools/x/state", strings.NewReader(body))
		req.URL.Path = "/api/tools/" + name + "/state"
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", ctype)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		var out map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
			t.Fatalf("status %d, body not JSON: %q", w.Code, w.Body.String())
		}
		switch w.Code {
		case 200:
			st, ok := reg.ToolStatus(name)
			if !ok || string(st.State) != out["state"] {
				t.Fatalf("answered %v, the registry has %+v", out, st)
			}
			if st.State == runtime.ToolDisabled && (st.Reason == "" || len(st.Reason) > runtime.MaxToolStateReason) {
				t.Fatalf("reason %q", st.Reason)
			}
		case 400, 404, 409, 413, 415:
			if e, ok := out["error"].(map[string]any); !ok || e["code"] == "" {
				t.Fatalf("error body %v", out)
			}
		default:
			t.Fatalf("status %d: %s", w.Code, w.Body.String())
		}
	})
}
