package catalog

import (
	"strings"
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"

	"github.com/toolcat/toolcat/runtime"
)

// The format's #Name and runtime.NamePattern are one rule: the same
// expression, and the same verdict on every name.
func TestNameDefMatchesRuntime(t *testing.T) {
	ctx := cuecontext.New()
	v := ctx.CompileBytes(formatSource, cue.Filename(formatFile))
	def := v.LookupPath(cue.MakePath(cue.Def("#Name")))
	if !isNameDef(def) {
		op, args := def.Expr()
		t.Fatalf("#Name is %v %v; want =~%q, the expression of runtime.NamePattern", op, args, runtime.NamePattern)
	}
	names := []string{
		"", "a", "get_user", "getComment", "search.web", "get-user", "_draft", "2fa", ".", "-",
		strings.Repeat("a", 64), strings.Repeat("a", 65), "get user", "get:user", "get/user",
		"héllo", "tab\tname", "a\nb", "emoji😀",
	}
	for _, name := range names {
		err := def.Unify(ctx.Encode(name)).Validate(cue.Concrete(true))
		if (err == nil) != runtime.ValidName(name) {
			t.Errorf("name %q: the format says %v, runtime.ValidName %v", name, err, runtime.ValidName(name))
		}
	}
}

// Every legal name loads, whatever its style: style is lint's business.
func TestLegalNamesLoad(t *testing.T) {
	c, err := LoadFiles(files("t.yaml", `services:
  search.engine: {}
tools:
  getComment: {description: x}
  search.web: {description: x, dependencies: [search.engine], fallback_tool: get-user}
  get-user: {description: x}
  `+strings.Repeat("a", 64)+`: {description: x}
`)...)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tl := range c.Tools {
		got = append(got, tl.Name)
	}
	if want := strings.Repeat("a", 64) + " get-user getComment search.web"; strings.Join(got, " ") != want {
		t.Errorf("tools %v; want %s", got, want)
	}
}
