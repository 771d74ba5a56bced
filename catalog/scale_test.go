package catalog

import (
	"fmt"
	"strings"
	"testing"

	"cuelang.org/go/cue/parser"
)

// cuePos answers from its index what a scan of the CUE files finds: the
// first field at the path, in file order, depth first, into struct
// literals only.
func TestCUEPosIndexMatchesScan(t *testing.T) {
	srcs := []string{
		`package c
tools: {
	get_a: {description: "A.", args: {type: "object"}}
	get_b: description: "B."
}
tools: get_a: sla_ms: 100
x: y: z: w: 1
`,
		`package c
tools: get_b: {args: {type: "object", properties: {}}}
tools: get_c: (#T & {description: "C."})
"quoted name": 1
#T: {...}
`,
	}
	l := newLoader()
	for i, src := range srcs {
		f, err := parser.ParseFile(fmt.Sprintf("f%d.cue", i), src)
		if err != nil {
			t.Fatal(err)
		}
		l.asts = append(l.asts, f)
	}
	paths := [][]string{
		{"tools"}, {"tools", "get_a"}, {"tools", "get_b"}, {"tools", "get_c"}, {"tools", "get_d"},
		{"tools", "get_a", "sla_ms"}, {"tools", "get_a", "args"}, {"tools", "get_b", "args"},
		{"tools", "get_b", "description"}, {"tools", "get_c", "description"},
		{"x", "y", "z"}, {"x", "y", "z", "w"}, {"quoted name"}, {"#T"}, {"nothing"},
	}
	found := 0
	for _, path := range paths {
		var want Pos
		for _, f := range l.asts {
			if p := fieldPos(f.Decls, path); p.IsValid() {
				want = l.pos(p)
				break
			}
		}
		if want.IsValid() {
			found++
		}
		if got := l.cuePos(path...); got != want {
			t.Errorf("cuePos(%s) = %v, want %v", strings.Join(path, "."), got, want)
		}
	}
	if found < 10 {
		t.Errorf("only %d of the paths are in the files: the test checks little", found)
	}
}
