package export

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/toolcat/toolcat/runtime"
)

// names returns the "name" of each entry of a tools array, or of each
// function declaration or MCP tool.
func names(t *testing.T, data []byte) []string {
	t.Helper()
	var list []map[string]any
	if err := json.Unmarshal(data, &list); err != nil {
		var wrapped struct {
			Tools []map[string]any `json:"tools"`
			Decls []map[string]any `json:"functionDeclarations"`
		}
		if err := json.Unmarshal(data, &wrapped); err != nil {
			t.Fatal(err)
		}
		list = append(wrapped.Tools, wrapped.Decls...)
	}
	var out []string
	for _, d := range list {
		if fn, ok := d["function"].(map[string]any); ok {
			d = fn
		}
		name, _ := d["name"].(string)
		out = append(out, name)
	}
	return out
}

func TestKeepOrder(t *testing.T) {
	metas := []runtime.Meta{{Name: "zeta_tool"}, {Name: "alpha_tool"}, {Name: "mid_tool", Exposure: runtime.ExposureHidden}}
	for _, e := range exporters {
		t.Run(e.desc, func(t *testing.T) {
			got, err := e.fn(metas, KeepOrder(), IncludeHidden())
			if err != nil {
				t.Fatal(err)
			}
			if n := names(t, got); !slices.Equal(n, []string{"zeta_tool", "alpha_tool", "mid_tool"}) {
				t.Errorf("KeepOrder gives %v", n)
			}
			sorted, _ := e.fn(metas, IncludeHidden())
			if n := names(t, sorted); !slices.Equal(n, []string{"alpha_tool", "mid_tool", "zeta_tool"}) {
				t.Errorf("without KeepOrder %v", n)
			}
			if _, err := e.fn([]runtime.Meta{{Name: "a_b"}, {Name: "c_d"}, {Name: "a_b"}}, KeepOrder()); err == nil {
				t.Error("a tool listed twice, not next to itself, passed KeepOrder")
			}
		})
	}
	// The tool-search tool stays last.
	got, err := Anthropic(metas, KeepOrder(), DeferHidden())
	if err != nil {
		t.Fatal(err)
	}
	if n := names(t, got); !slices.Equal(n, []string{"zeta_tool", "alpha_tool", "mid_tool", "tool_search_tool_bm25"}) {
		t.Errorf("KeepOrder with DeferHidden gives %v", n)
	}
}
