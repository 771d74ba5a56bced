package collisions

import (
	"testing"

	"github.com/toolcat/toolcat/conformance"
)

// conformanceTools replaces the scaffolded one in the golden module: the
// tools are the scaffolded stubs, so the check that they are implemented is
// skipped, and every other check runs against them.
func conformanceTools(t *testing.T) (Tools, conformance.Options) {
	impls := Tools{
		GetUserResult: &getUserResult{},
		GetUser:       &getUser{},
		GetUserArgs:   &getUserArgs{},
		NewRegistry2:  &newRegistry{},
		RunTest:       &runTest{},
		Tools2:        &tools{},
	}
	stub := map[conformance.Check]string{conformance.CheckImplemented: "the golden case has the scaffolded stubs"}
	opts := conformance.Options{Skip: map[string]map[conformance.Check]string{
		"get-user-result": stub,
		"get_user":        stub,
		"get_user_args":   stub,
		"new_registry":    stub,
		"run_test":        stub,
		"tools":           stub,
	}}
	return impls, opts
}
