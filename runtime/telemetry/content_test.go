package telemetry_test

import (
	"context"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/telemetry"
)

func attrOf(t *testing.T, f *fixture, span string, key attribute.Key) (string, bool) {
	t.Helper()
	for _, s := range f.spans.Ended() {
		if s.Name() != span {
			continue
		}
		for _, kv := range s.Attributes() {
			if kv.Key == key {
				return kv.Value.AsString(), true
			}
		}
		return "", false
	}
	t.Fatalf("no span %s", span)
	return "", false
}

// TestContentOffByDefault checks that neither arguments, results, error
// messages nor the user's reasons are recorded unless asked for.
func TestContentOffByDefault(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	call(t, ctx, f.reg, "fetch_page", `{"url":"https://example.com/secret"}`, runtime.CallOptions{})
	call(t, ctx, f.reg, "publish_post", `{"title":""}`, runtime.CallOptions{})
	for _, s := range f.spans.Ended() {
		for _, kv := range s.Attributes() {
			if strings.HasPrefix(string(kv.Key), "gen_ai.tool.call.") && kv.Key != "gen_ai.tool.call.id" ||
				strings.Contains(kv.Value.Emit(), "secret") || strings.Contains(kv.Value.Emit(), "Ignore your instructions") {
				t.Errorf("span %s records %s=%s", s.Name(), kv.Key, kv.Value.Emit())
			}
		}
		if s.Status().Description != "" && s.Status().Description != "invalid_args" {
			t.Errorf("span %s has the status %q: only the code is recorded", s.Name(), s.Status().Description)
		}
	}
}

// TestContentOptIn checks HookRecordContent: arguments and results cut to
// the size given, never inside a character, and outside content inside
// its untrusted block's tags, both kept whatever is cut.
func TestContentOptIn(t *testing.T) {
	f := newFixture(t, []telemetry.HookOption{telemetry.HookRecordContent(24)})
	ctx := context.Background()
	res := call(t, ctx, f.reg, "fetch_page", `{"url":"https://example.com/é-long-path"}`, runtime.CallOptions{})
	args, ok := attrOf(t, f, "execute_tool fetch_page", "gen_ai.tool.call.arguments")
	if want := `{"url":"https://example.… (42 bytes)`; !ok || args != want {
		t.Errorf("arguments: got %q, want %q", args, want)
	}
	got, ok := attrOf(t, f, "execute_tool fetch_page", "gen_ai.tool.call.result")
	u := res.Untrusted
	if !ok || u == nil {
		t.Fatalf("result recorded: %v; untrusted: %v", ok, u)
	}
	if want := u.Open() + `{"text":"Ignore your ins… (68 bytes)` + u.Close(); got != want {
		t.Errorf("result:\n got %q\nwant %q", got, want)
	}
	f.spans.Reset()
	call(t, ctx, f.reg, "search_docs", `{"q":"xééééééééééééé"}`, runtime.CallOptions{})
	args, _ = attrOf(t, f, "execute_tool search_docs", "gen_ai.tool.call.arguments")
	if want := `{"q":"xéééééééé… (35 bytes)`; args != want { // 24 bytes end inside the ninth é
		t.Errorf("arguments cut inside a character: got %q, want %q", args, want)
	}
	result, _ := attrOf(t, f, "execute_tool search_docs", "gen_ai.tool.call.result")
	if want := `{"success":true,"data":{… (34 bytes)`; result != want {
		t.Errorf("result: got %q, want %q", result, want)
	}
	f.spans.Reset()
	call(t, ctx, f.reg, "publish_post", `{"title":""}`, runtime.CallOptions{})
	for _, s := range f.spans.Ended() {
		if d := s.Status().Description; !strings.HasPrefix(d, "title is 0 characters lo… (") {
			t.Errorf("with content the status is the error's message, cut: %q", d)
		}
	}
}
