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

// Tools with the same schema share its compiled form, and its messages
// are those of the schema compiled for the tool alone.
func TestValueCheckerSharesSchemas(t *testing.T) {
	schema := func() *Node {
		n, errs := parseYAML("s.yaml", []byte("type: object\nrequired: [id]\nproperties:\n  id: {type: string, pattern: \"^a\"}\n  n: {$ref: \"#/$defs/count\"}\n$defs:\n  count: {type: integer, maximum: 3}\n"))
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		return n
	}
	value, errs := parseYAML("v.yaml", []byte("{id: b, n: 5}"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	vc := NewValueChecker()
	a, err := vc.Compile("get_a", "args", schema())
	if err != nil {
		t.Fatal(err)
	}
	b, err := vc.Compile("get_b", "args", schema())
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Error("the same schema compiled twice")
	}
	if r, err := vc.Compile("get_b", "result", schema()); err != nil || r == a {
		t.Errorf("a result schema shares the compiled args schema (%v)", err)
	}
	alone, err := NewValueChecker().Compile("get_b", "args", schema())
	if err != nil {
		t.Fatal(err)
	}
	got, want := b.Validate(value), alone.Validate(value)
	if len(want) != 2 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("shared schema: %v\nalone: %v", got, want)
	}
}
