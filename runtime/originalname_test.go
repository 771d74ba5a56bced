package runtime_test

import (
	"context"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/runtime"
)

// TestCallByOriginalName checks that a tool with an OriginalName answers
// calls by either name, and that no other tool may take that name.
func TestCallByOriginalName(t *testing.T) {
	r := runtime.New()
	mustRegister(t, r, runtime.Tool{Meta: runtime.Meta{Name: "get_user", OriginalName: "getUser"}, Execute: echo})
	for _, name := range []string{"get_user", "getUser"} {
		if res := r.Call(context.Background(), name, []byte(`{}`), runtime.CallOptions{}); !res.Success {
			t.Errorf("Call(%s): %+v, want success", name, res.Error)
		}
	}
	err := r.Register(runtime.Tool{Meta: runtime.Meta{Name: "getUser"}, Execute: echo})
	if err == nil || !strings.Contains(err.Error(), "already registered") {
		t.Errorf("Register(getUser) = %v, want already registered", err)
	}
	err = r.Register(runtime.Tool{Meta: runtime.Meta{Name: "fetch_user", OriginalName: "get_user"}, Execute: echo})
	if err == nil || !strings.Contains(err.Error(), "already registered") {
		t.Errorf("Register(original name get_user) = %v, want already registered", err)
	}
	err = r.Register(runtime.Tool{Meta: runtime.Meta{Name: "list_users", OriginalName: "list users"}, Execute: echo})
	if err == nil || !strings.Contains(err.Error(), "original name") {
		t.Errorf("Register(original name with a space) = %v, want an original name error", err)
	}
}

// TestDisableByOriginalName checks that switching a tool off by its
// original name switches it off under both names.
func TestDisableByOriginalName(t *testing.T) {
	r := runtime.New()
	mustRegister(t, r, runtime.Tool{Meta: runtime.Meta{Name: "get_user", OriginalName: "getUser"}, Execute: echo})
	if err := r.DisableTool(context.Background(), "getUser", "maintenance"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"get_user", "getUser"} {
		if st, ok := r.ToolStatus(name); !ok || st.State == runtime.ToolEnabled || st.Tool != "get_user" {
			t.Errorf("ToolStatus(%s) = %+v, %v; want get_user switched off", name, st, ok)
		}
		if res := r.Call(context.Background(), name, []byte(`{}`), runtime.CallOptions{}); res.Success {
			t.Errorf("Call(%s) succeeded on a tool switched off", name)
		}
	}
}
