package lint

import (
	"strings"
	"testing"

	"github.com/toolcat/toolcat/catalog"
)

// TOOL_NAME_FORMAT follows the providers setting: a dotted name is fine for
// a catalog served over MCP only, and a finding once openai is listed.
func TestToolNameFormatProviders(t *testing.T) {
	cat, err := catalog.LoadFiles(catalog.File{Name: "t.yaml", Data: []byte("tools:\n  search.web: {description: x}\n")})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		providers []string
		want      string
	}{
		{nil, ""},
		{[]string{"mcp"}, ""},
		{[]string{"gemini", "mcp"}, ""},
		{[]string{"mcp", "openai"}, `t.yaml:2:3: error TOOL_NAME_FORMAT: tool name "search.web" is not accepted by openai; rename it "search_web", or remove openai from providers`},
	} {
		cfg := DefaultConfig()
		cfg.Providers = tc.providers
		got := strings.Join(diagLines(RunRule(ToolNameFormat, cat, cfg)), "\n")
		if got != tc.want {
			t.Errorf("providers %v: findings %q; want %q", tc.providers, got, tc.want)
		}
	}
}
