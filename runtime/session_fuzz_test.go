package runtime_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/internal/sessionflow"
)

// FuzzSessionCall sends arbitrary arguments to the session's built-in
// tools and to a hidden and a composite tool: every answer is one JSON
// envelope, and nothing panics.
func FuzzSessionCall(f *testing.F) {
	for _, seed := range []string{`{"query":"add a label"}`, `{"pattern":"^create_"}`, `{"pattern":"(?<=x)"}`,
		`{"count":3}`, `{"query":"` + string(make([]byte, 400)) + `"}`, `[]`, `{"limit":1e400,"query":"x"}`, "\xff"} {
		f.Add(seed, uint8(0))
	}
	w := sessionflow.NewWorld()
	reg := w.Replicas(f, 1, runtime.NewMemorySessionStore())[0]
	tools := []string{runtime.SearchToolsByKeywords, runtime.SearchToolsByRegex, runtime.UndoLastActions, "create_label", "digest_and_post"}
	f.Fuzz(func(t *testing.T, args string, which uint8) {
		s := reg.Session("fuzz", runtime.SessionUndoTool(true), runtime.SessionAutonomy(runtime.AutonomySupervised))
		res := s.Call(context.Background(), tools[int(which)%len(tools)], []byte(args), runtime.CallOptions{})
		if !json.Valid(res.JSON()) {
			t.Fatalf("not JSON: %q", res.JSON())
		}
		if !res.Success && res.Error == nil {
			t.Fatal("a failure without an error")
		}
	})
}
