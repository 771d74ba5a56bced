package mcpserver_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/runtime/mcpserver"
)

// TestHTTPBadRequests: requests that are not MCP get an HTTP error, in
// both modes, and the server goes on serving.
func TestHTTPBadRequests(t *testing.T) {
	reg, _ := newRegistry(t)
	hs := httptest.NewServer(mcpserver.New(reg, mcpserver.WithLogger(quiet())).Handler())
	defer hs.Close()
	huge := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_note","arguments":{"id":"` + strings.Repeat("x", 5<<20) + `"}}}`
	for _, tc := range []struct {
		desc, method, version, body, ctype string
		want                               int
		wantBody                           string
	}{
		{"not JSON", "POST", "", "{{{", "application/json", http.StatusBadRequest, ""},
		{"not JSON, stateless", "POST", "2026-07-28", "{{{", "application/json", http.StatusBadRequest, ""},
		{"a form", "POST", "", "a=b", "application/x-www-form-urlencoded", http.StatusUnsupportedMediaType, ""},
		{"a call outside a session", "POST", "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_note"}}`, "application/json",
			http.StatusOK, `"message":"method \"tools/call\" is invalid during session initialization"`},
		{"a session that does not exist", "POST", "", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "application/json", http.StatusNotFound, ""},
		{"over 4 MiB", "POST", "2026-07-28", huge, "application/json", http.StatusRequestEntityTooLarge, ""},
		{"PUT", "PUT", "", "", "application/json", http.StatusMethodNotAllowed, ""},
	} {
		req, _ := http.NewRequest(tc.method, hs.URL, strings.NewReader(tc.body))
		req.Header.Set("Content-Type", tc.ctype)
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tc.version != "" {
			req.Header.Set("Mcp-Protocol-Version", tc.version)
		}
		if tc.desc == "a session that does not exist" {
			req.Header.Set("Mcp-Session-Id", "NOSUCHSESSION")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tc.desc, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want || !bytes.Contains(b, []byte(tc.wantBody)) {
			t.Errorf("%s: status %d, want %d %s: %s", tc.desc, resp.StatusCode, tc.want, tc.wantBody, bytes.TrimSpace(b))
		}
	}
	// Still serving.
	c, _ := start(t, reg, modes[2], setup{})
	if len(c.list()) == 0 {
		t.Error("no tools listed after the bad requests")
	}
}
