package catalog

import (
	"strings"
	"testing"
	"time"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	"github.com/google/go-cmp/cmp"

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

// Top-level fields the format does not declare are the catalog's metadata,
// kept in the order written, from YAML and from CUE.
func TestMetadata(t *testing.T) {
	c, err := LoadFiles(files("t.yaml", "version: \"1.0\"\nagent: chat-assistant\nlast_updated: \"2026-05-01\"\nrevision: 3\nreviewed: true\ntools: {}\n")...)
	if err != nil {
		t.Fatal(err)
	}
	want := []Metadata{
		{Key: "version", Value: "1.0", Pos: Pos{File: "t.yaml", Line: 1, Col: 1}},
		{Key: "agent", Value: "chat-assistant", Pos: Pos{File: "t.yaml", Line: 2, Col: 1}},
		{Key: "last_updated", Value: "2026-05-01", Pos: Pos{File: "t.yaml", Line: 3, Col: 1}},
		{Key: "revision", Value: "3", Pos: Pos{File: "t.yaml", Line: 4, Col: 1}},
		{Key: "reviewed", Value: "true", Pos: Pos{File: "t.yaml", Line: 5, Col: 1}},
	}
	if diff := cmp.Diff(want, c.Metadata); diff != "" {
		t.Errorf("YAML metadata (-want +got):\n%s", diff)
	}
	c, err = LoadFiles(files("a.cue", "package tools\nagent: \"chat\"\ntools: {}\n")...)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Metadata{{Key: "agent", Value: "chat", Pos: Pos{File: "a.cue", Line: 2, Col: 1}}}, c.Metadata); diff != "" {
		t.Errorf("CUE metadata (-want +got):\n%s", diff)
	}
}

// The metadata pattern of #Catalog leaves out exactly the declared fields.
func TestMetadataPatternNamesDeclaredFields(t *testing.T) {
	ctx := cuecontext.New()
	def := ctx.CompileBytes(formatSource, cue.Filename(formatFile)).LookupPath(cue.MakePath(cue.Def("#Catalog")))
	for _, name := range fieldNames(def) {
		probe := def.FillPath(cue.MakePath(cue.Str(name+"_meta_probe")), "x")
		if err := probe.LookupPath(cue.MakePath(cue.Str(name + "_meta_probe"))).Err(); err != nil {
			t.Errorf("metadata %s_meta_probe refused: %v", name, err)
		}
	}
	src := string(formatSource)
	want := `[!~"^(` + strings.Join(fieldNames(def), "|") + `)$"]: #Metadata`
	if !strings.Contains(src, want) {
		t.Errorf("format.cue has no %s: the metadata pattern must name every declared field", want)
	}
}

// A file of many duplicate keys is reported key by key, and checked with a
// bounded number of extra evaluations.
func TestManyDuplicates(t *testing.T) {
	var b strings.Builder
	b.WriteString("tools:\n")
	const n = 5000
	for i := 0; i < n; i++ {
		b.WriteString("  a_b: {description: x, risk: extreme}\n")
	}
	start := time.Now()
	_, err := LoadFiles(files("t.yaml", b.String())...)
	lines := errorLines(t, err)
	dups, risks := 0, 0
	for _, l := range lines {
		switch {
		case strings.Contains(l, `duplicate key "a_b"`):
			dups++
		case strings.Contains(l, `risk: got "extreme"`):
			risks++
		}
	}
	if dups != n-1 || risks != 1+maxShadows || len(lines) != dups+risks {
		t.Errorf("%d duplicate-key errors, %d risk errors, %d in all; want %d, %d (the first definition and one per shadow), no other", dups, risks, len(lines), n-1, 1+maxShadows)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("loading took %v", d)
	}
}
