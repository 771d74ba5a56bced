package export_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/export"
)

// sessionRegistry registers one core and two hidden tools.
func sessionRegistry(t *testing.T) *runtime.Registry {
	t.Helper()
	r := runtime.New()
	exec := func(context.Context, any) (any, error) { return map[string]any{}, nil }
	schema := json.RawMessage(`{"type":"object","additionalProperties":false,"required":["id"],"properties":{"id":{"type":"string"}}}`)
	for _, m := range []runtime.Meta{
		{Name: "read_order", Description: "Reads an order.", Risk: runtime.RiskLow, Exposure: runtime.ExposureCore, ArgsSchema: schema},
		{Name: "read_invoice", Description: "Reads an invoice.", Risk: runtime.RiskLow, Exposure: runtime.ExposureHidden, ArgsSchema: schema},
		{Name: "read_refund", Description: "Reads a refund.", Risk: runtime.RiskLow, Exposure: runtime.ExposureHidden, ArgsSchema: schema},
	} {
		if err := r.Register(runtime.Tool{Meta: m, Execute: exec}); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// anthropicTools decodes an Anthropic tools array: the names of the tools
// (search tools included), and those deferred.
func anthropicTools(t *testing.T, b []byte) (names, deferred []string) {
	t.Helper()
	var list []struct {
		Name  string `json:"name"`
		Defer bool   `json:"defer_loading"`
	}
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	for _, d := range list {
		names = append(names, d.Name)
		if d.Defer {
			deferred = append(deferred, d.Name)
		}
	}
	return names, deferred
}

// TestSessionDefinitions renders a session's tools with Format both ways:
// provider-side search (SessionProviderSearch and DeferHidden) sends every
// hidden tool deferred and Anthropic's search tool, and no toolcat search
// tool; toolcat-side search sends the core tools and toolcat's search
// tools, and no hidden tool.
func TestSessionDefinitions(t *testing.T) {
	ctx := context.Background()
	r := sessionRegistry(t)

	provider := r.Session("conv-provider", runtime.SessionProviderSearch(true))
	b, err := provider.Definitions(ctx, export.Format(export.Anthropic, export.DeferHidden()))
	if err != nil {
		t.Fatal(err)
	}
	names, deferred := anthropicTools(t, b)
	if want := []string{"read_invoice", "read_refund"}; !slices.Equal(deferred, want) {
		t.Errorf("deferred %v, want %v", deferred, want)
	}
	// In the session's order: core tools, then hidden ones, then the search tool.
	if want := []string{"read_order", "read_invoice", "read_refund", "tool_search_tool_bm25"}; !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}

	own := r.Session("conv-own")
	b, err = own.Definitions(ctx, export.Format(export.Anthropic))
	if err != nil {
		t.Fatal(err)
	}
	names, deferred = anthropicTools(t, b)
	if len(deferred) != 0 || slices.Contains(names, "read_invoice") || !slices.Contains(names, "read_order") {
		t.Errorf("toolcat-side search lists %v (deferred %v)", names, deferred)
	}
	if !slices.Contains(names, runtime.SearchToolsByKeywords) {
		t.Errorf("toolcat-side search lists no %s: %v", runtime.SearchToolsByKeywords, names)
	}

	// KeepOrder keeps the session's order: Tools, then the search tool.
	tools, err := provider.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err = provider.Definitions(ctx, export.Format(export.Anthropic, export.KeepOrder(), export.DeferHidden()))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, m := range tools {
		want = append(want, m.Name)
	}
	want = append(want, "tool_search_tool_bm25")
	if names, _ := anthropicTools(t, b); !slices.Equal(names, want) {
		t.Errorf("with KeepOrder %v, want %v", names, want)
	}

	// A provider without deferred tools says so through the session.
	if _, err := provider.Definitions(ctx, export.Format(export.OpenAIChat, export.DeferHidden())); err == nil {
		t.Error("OpenAIChat with DeferHidden rendered a session")
	}
}
