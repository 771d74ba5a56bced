// Package conformance checks tool implementations against the promises of
// their catalog entries. The conformance tests toolcat generates call
// [Run] with the package's registry and the catalog's examples.
package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/toolcat/toolcat/runtime"
)

// Example is a catalog example of a call: arguments as JSON and, when the
// catalog states them, the expected result (JSON) or error code.
type Example struct {
	Description string
	Args        string
	Result      string
	Error       string
	// Pos is the example's position in the catalog, for failure messages.
	Pos string
}

// Run checks every tool of reg: each example validates and runs through
// the registry, with the stated result or error code.
func Run(t *testing.T, reg *runtime.Registry, examples map[string][]Example) {
	t.Helper()
	for _, tool := range reg.List() {
		name := tool.Meta.Name
		t.Run(name, func(t *testing.T) {
			for i, ex := range examples[name] {
				t.Run(fmt.Sprintf("example_%d", i+1), func(t *testing.T) {
					checkExample(t, reg, tool, ex)
				})
			}
		})
	}
}

func checkExample(t *testing.T, reg *runtime.Registry, tool runtime.Tool, ex Example) {
	t.Helper()
	name := tool.Meta.Name
	opts := runtime.CallOptions{Autonomy: runtime.AutonomyFull, Approved: true}
	if tool.Meta.IdempotencyRequired {
		opts.IdempotencyKey = runtime.NewToken()
	}
	res := reg.Call(context.Background(), name, []byte(ex.Args), opts)
	where := fmt.Sprintf("%s: example of %s (%s)", ex.Pos, name, ex.Args)
	switch {
	case ex.Error != "":
		if res.Success || string(res.Error.Code) != ex.Error {
			t.Errorf("%s: want error %s, got %s", where, ex.Error, envelope(res))
		}
	case !res.Success && res.Error.Code == runtime.CodeUnsupported:
		t.Errorf("%s: the tool is not implemented yet (%s)", where, res.Error.Message)
	case !res.Success:
		t.Errorf("%s: want success, got %s", where, envelope(res))
	case ex.Result != "":
		got, err := json.Marshal(res.Data)
		if err != nil {
			t.Fatalf("%s: result does not encode: %v", where, err)
		}
		if !jsonEqual(got, []byte(ex.Result)) {
			t.Errorf("%s: result %s, want %s", where, got, ex.Result)
		}
	}
}

func envelope(r runtime.Result) string {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Sprintf("%+v", r)
	}
	return string(b)
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
