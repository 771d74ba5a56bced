package mcpserver_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestOnlyThisPackageLinksTheSDK: runtime and the packages generated code
// imports do not depend on the MCP SDK; importing runtime/mcpserver does.
func TestOnlyThisPackageLinksTheSDK(t *testing.T) {
	const sdk = "github.com/modelcontextprotocol/go-sdk"
	deps := func(pkgs ...string) string {
		out, err := exec.Command("go", append([]string{"list", "-deps"}, pkgs...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %v: %v\n%s", pkgs, err, out)
		}
		return string(out)
	}
	if out := deps("github.com/toolcat/toolcat/runtime", "github.com/toolcat/toolcat/runtime/export",
		"github.com/toolcat/toolcat/runtime/discovery"); strings.Contains(out, sdk) {
		t.Errorf("runtime, runtime/export or runtime/discovery depends on %s", sdk)
	}
	if out := deps("github.com/toolcat/toolcat/runtime/mcpserver"); !strings.Contains(out, sdk+"/mcp") {
		t.Errorf("runtime/mcpserver does not depend on %s/mcp", sdk)
	}
}
