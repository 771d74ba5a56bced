package export

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/runtime"
)

// TestOriginalNameOnTheWire checks that every exporter sends a tool's
// OriginalName, not its catalog name, and that two tools cannot share one
// wire name.
func TestOriginalNameOnTheWire(t *testing.T) {
	metas := []runtime.Meta{{
		Name:         "get_user",
		OriginalName: "getUser",
		Description:  "Reads one user.",
		ArgsSchema:   json.RawMessage(`{"type":"object","properties":{}}`),
	}}
	for _, e := range exporters {
		t.Run(e.desc, func(t *testing.T) {
			got, err := e.fn(metas)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(got), `"getUser"`) || strings.Contains(string(got), `"get_user"`) {
				t.Errorf("want the wire name getUser and not get_user:\n%s", got)
			}
			twice := append(metas, runtime.Meta{Name: "getUser", Description: "x", ArgsSchema: metas[0].ArgsSchema})
			if _, err := e.fn(twice); err == nil || !strings.Contains(err.Error(), "listed twice") {
				t.Errorf("two tools with wire name getUser: err = %v, want listed twice", err)
			}
		})
	}
}
