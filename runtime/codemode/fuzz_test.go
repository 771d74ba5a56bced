package codemode_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/codemode"
)

// FuzzRun runs arbitrary programs: each answers one envelope that decodes,
// with a valid code, a position inside the program when it gives one, and
// nothing outside the limits.
func FuzzRun(f *testing.F) {
	for _, seed := range []string{
		"return 1;",
		"return tools.list_tickets({status: 'open'});",
		"while (true) {}",
		"function f() { return f(); } f();",
		"return 'x'.repeat(1 << 30);",
		"throw {toString() { throw 1; }};",
		"const a = []; a.length = 4294967295; return a.reverse();",
		"return tools.close_ticket({id: 'T-1'}).error;",
		"Object.prototype.toJSON = () => ({success: false}); return {a: 1};",
		"return new Proxy({}, {get() { throw new Error('no'); }});",
		"await null; return [1, 2].map(x => x * 2);",
		"}); (function() {",
		"return JSON.parse = null, tools.list_tickets({status: 'closed'});",
		"eval('//# sourceMappingURL=/dev/zero\\n1')",
		"for (;;) console.log('x'.repeat(1000));",
	} {
		f.Add(seed)
	}
	d := newDesk()
	m := codemode.New(d.registry(f), codemode.ModeLimits(codemode.Limits{
		Time: 200 * time.Millisecond, Calls: 5, Memory: 16 << 20, ResultBytes: 4096, LogBytes: 512, StackDepth: 100,
	}))
	s := m.Registry().Session("fuzz", runtime.SessionAutonomy(runtime.AutonomySupervised))
	f.Fuzz(func(t *testing.T, code string) {
		res, _ := run(t, m, s, code)
		var env struct {
			Success bool               `json:"success"`
			Error   *runtime.ToolError `json:"error"`
		}
		if err := json.Unmarshal(res.JSON(), &env); err != nil {
			t.Fatalf("%v: %s", err, res.JSON())
		}
		if !env.Success {
			if env.Error == nil || !env.Error.Code.Valid() {
				t.Fatalf("no valid error: %s", res.JSON())
			}
			if line, ok := env.Error.Details["line"].(float64); ok && (line < 1 || int(line) > strings.Count(code, "\n")+1) {
				t.Fatalf("line %v outside the program of %d lines: %s", line, strings.Count(code, "\n")+1, res.JSON())
			}
			return
		}
		o := outcome(t, res)
		if len(o.Value) > 4096 || len(o.Calls) > 5 {
			t.Fatalf("past the limits: %d bytes, %d calls", len(o.Value), len(o.Calls))
		}
		n := 0
		for _, l := range o.Log {
			n += len(l)
		}
		if n > 512+len("…") {
			t.Fatalf("log of %d bytes", n)
		}
	})
}
