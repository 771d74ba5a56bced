package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/internal/gomodtest"
)

// splitTool is a tool of the split test catalog: its name and category
// ("" for none).
type splitTool struct{ name, category string }

var splitTools = []splitTool{
	{"list_alerts", "alerts"},
	{"mute_alert", "alerts"},
	{"get_invoice", "Billing"},
	{"search_articles", "content"},
	{"get_server_time", ""},
}

// splitCatalog writes a catalog of tools into dir/catalog/tools.yaml.
func splitCatalog(t *testing.T, dir string, tools []splitTool) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("package: agenttools\ntools:\n")
	for _, tl := range tools {
		fmt.Fprintf(&b, "  %s:\n    description: |\n      Returns the %s the user asks about.\n      Use when: the user asks about %s.\n      Do not use: to change anything.\n", tl.name, strings.ReplaceAll(tl.name, "_", " "), strings.ReplaceAll(tl.name, "_", " "))
		if tl.category != "" {
			fmt.Fprintf(&b, "    category: %s\n", tl.category)
		}
		b.WriteString("    args:\n      type: object\n      additionalProperties: false\n      properties:\n        query: {type: string, maxLength: 40, description: What to look for.}\n")
		b.WriteString("    examples:\n      - args: {query: today}\n")
	}
	cat := filepath.Join(dir, "catalog")
	if err := os.MkdirAll(cat, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cat, "tools.yaml"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return cat
}

// splitImpl writes the implementation of a tool, as a user would, and a
// function returning the package's Tools for the root package's test.
func splitImpl(t *testing.T, dir, pkg, tool string) {
	t.Helper()
	iface := goName(tool)
	impl := strings.ToLower(iface[:1]) + iface[1:]
	src := fmt.Sprintf(`package %s

import "context"

type %[2]s struct{}

var _ %[3]s = (*%[2]s)(nil)

func (*%[2]s) Execute(ctx context.Context, args *%[3]sArgs) (%[3]sResult, error) {
	return map[string]any{"tool": %[4]q}, ctx.Err()
}
`, pkg, impl, iface, tool)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, tool+".go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

func goName(tool string) string {
	var b strings.Builder
	for _, w := range strings.Split(tool, "_") {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

func runMain(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(args, nil, &out, &errb)
	return code, out.String(), errb.String()
}

// TestGenSplit generates a catalog of three categories and a tool without
// one with --split=category into a module, then builds, vets and tests
// it: the root package registers every tool, each package's conformance
// test runs. --check is clean after, and stale after a change; a category
// that goes takes its generated files with it.
func TestGenSplit(t *testing.T) {
	t.Parallel() // child processes build Go packages: such tests run side by side
	if testing.Short() {
		t.Skip("builds and tests generated code")
	}
	mod := t.TempDir()
	if err := gomodtest.Write(mod, "example.com/split"); err != nil {
		t.Fatal(err)
	}
	cat := splitCatalog(t, mod, splitTools)
	out := filepath.Join(mod, "agenttools")
	pkgs := map[string]string{"alerts": "alerts", "Billing": "billing", "content": "content", "": "uncategorized"}
	// The user writes two bodies before the first run, the others after.
	splitImpl(t, filepath.Join(out, "alerts"), "alerts", "list_alerts")
	splitImpl(t, filepath.Join(out, "uncategorized"), "uncategorized", "get_server_time")

	code, stdout, stderr := runMain(t, "gen", "--split=category", "--cache=false", "--out", out, cat)
	if code != 0 {
		t.Fatalf("gen --split=category exits %d:\n%s", code, stderr)
	}
	for _, want := range []string{
		"wrote " + filepath.Join(out, "toolcat_gen.go"),
		"wrote " + filepath.Join(out, "alerts", "mute_alert_gen.go"),
		"created " + filepath.Join(out, "alerts", "mute_alert.go"),
		"created " + filepath.Join(out, "billing", "get_invoice.go"),
		"created " + filepath.Join(out, "billing", "conformance_tools_test.go"),
		"wrote " + filepath.Join(out, "content", "toolcat_conformance_test.go"),
		"wrote " + filepath.Join(out, "uncategorized", "get_server_time_gen.go"),
	} {
		if !strings.Contains(stdout, want+"\n") {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "created "+filepath.Join(out, "alerts", "list_alerts.go")) {
		t.Errorf("gen scaffolded list_alerts.go over the user's implementation")
	}
	for _, f := range []string{"toolcat_gen.go", ".toolcat.manifest"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	for _, f := range []string{"list_alerts_gen.go", "mute_alert_gen.go", "toolcat_conformance_test.go", "get_invoice_gen.go"} {
		if _, err := os.Stat(filepath.Join(out, f)); err == nil {
			t.Errorf("%s is in the root package", f)
		}
	}
	for _, tl := range splitTools {
		dir := filepath.Join(out, pkgs[tl.category])
		for _, f := range []string{tl.name + "_gen.go", tl.name + ".go", "toolcat_gen.go", "toolcat_conformance_test.go", "conformance_tools_test.go", ".toolcat.manifest"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Error(err)
			}
		}
		// The scaffolded bodies answer ErrNotImplemented: write them.
		splitImpl(t, dir, pkgs[tl.category], tl.name)
	}
	// Each package gives the root's test its implementations.
	for _, pkg := range pkgs {
		var b strings.Builder
		fmt.Fprintf(&b, "package %s\n\nfunc Impls() Tools {\n\treturn Tools{\n", pkg)
		for _, tl := range splitTools {
			if pkgs[tl.category] == pkg {
				iface := goName(tl.name)
				fmt.Fprintf(&b, "\t\t%s: &%s{},\n", iface, strings.ToLower(iface[:1])+iface[1:])
			}
		}
		b.WriteString("\t}\n}\n")
		if err := os.WriteFile(filepath.Join(out, pkg, "impls.go"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rootTest := `package agenttools

import (
	"context"
	"slices"
	"testing"

	"example.com/split/agenttools/alerts"
	"example.com/split/agenttools/billing"
	"example.com/split/agenttools/content"
	"example.com/split/agenttools/uncategorized"
	"github.com/toolcat/toolcat/runtime"
)

func TestRoot(t *testing.T) {
	want := []string{"get_invoice", "get_server_time", "list_alerts", "mute_alert", "search_articles"}
	var names []string
	for _, m := range Metas() {
		names = append(names, m.Name)
	}
	if !slices.Equal(names, want) {
		t.Errorf("Metas lists %v, want %v", names, want)
	}
	reg, err := NewRegistry(Tools{Alerts: alerts.Impls(), Billing: billing.Impls(), Content: content.Impls(), Uncategorized: uncategorized.Impls()})
	if err != nil {
		t.Fatal(err)
	}
	if got := reg.Names(); !slices.Equal(got, want) {
		t.Errorf("the registry holds %v, want %v", got, want)
	}
	for _, name := range want {
		res := reg.Call(context.Background(), name, []byte(` + "`" + `{"query": "today"}` + "`" + `), runtime.CallOptions{})
		if !res.Success {
			t.Errorf("%s: %+v", name, res.Error)
		}
	}
	if _, err := NewRegistry(Tools{Alerts: alerts.Impls()}); err == nil {
		t.Error("NewRegistry without the implementations of three packages: no error")
	}
}
`
	if err := os.WriteFile(filepath.Join(out, "root_test.go"), []byte(rootTest), 0o644); err != nil {
		t.Fatal(err)
	}
	gomodtest.Go(t, mod, "build", "./...")
	gomodtest.Go(t, mod, "vet", "./...")
	testOut := goOutput(t, mod, "test", "-count=1", "-v", "-run", "TestRoot|TestConformance", "./...")
	for _, pkg := range []string{"alerts", "billing", "content", "uncategorized"} {
		if !regexp.MustCompile(`(?m)^ok\s+example.com/split/agenttools/` + pkg + `\s`).MatchString(testOut) {
			t.Errorf("go test: package %s did not pass:\n%s", pkg, testOut)
		}
	}
	if n := strings.Count(testOut, "--- PASS: TestConformance "); n != 4 {
		t.Errorf("%d conformance tests passed, want 4:\n%s", n, testOut)
	}
	if !strings.Contains(testOut, "--- PASS: TestRoot ") {
		t.Errorf("the root package's test did not pass:\n%s", testOut)
	}

	// Nothing changed: --check is clean and gen writes nothing.
	if code, stdout, stderr := runMain(t, "gen", "--split=category", "--check", "--out", out, cat); code != 0 || stdout != "" {
		t.Errorf("--check right after gen exits %d:\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr := runMain(t, "gen", "--split=category", "--cache=false", "--out", out, cat); code != 0 || stdout != "" {
		t.Errorf("gen again exits %d and writes:\n%s%s", code, stdout, stderr)
	}
	// Without --split the layout is stale.
	if code, _, _ := runMain(t, "gen", "--check", "--out", out, cat); code != exitFindings {
		t.Errorf("--check without --split on a split package exits %d, want %d", code, exitFindings)
	}

	// A tool is added to a category: --check fails on its package.
	changed := append(append([]splitTool(nil), splitTools...), splitTool{"get_alert_rule", "alerts"})
	splitCatalog(t, mod, changed)
	code, stdout, stderr = runMain(t, "gen", "--split=category", "--check", "--out", out, cat)
	if code != exitFindings || !strings.Contains(stdout, filepath.Join(out, "alerts", "get_alert_rule_gen.go")+" (generated)") {
		t.Errorf("--check after a change exits %d:\n%s%s", code, stdout, stderr)
	}

	// The category Billing goes: its generated files and manifest go, the
	// user's files stay and are named.
	var kept []splitTool
	for _, tl := range splitTools {
		if tl.category != "Billing" {
			kept = append(kept, tl)
		}
	}
	splitCatalog(t, mod, kept)
	code, stdout, stderr = runMain(t, "gen", "--split=category", "--cache=false", "--out", out, cat)
	if code != 0 {
		t.Fatalf("gen after removing a category exits %d:\n%s", code, stderr)
	}
	billing := filepath.Join(out, "billing")
	for _, f := range []string{"get_invoice_gen.go", "toolcat_gen.go", "toolcat_conformance_test.go", ".toolcat.manifest"} {
		if _, err := os.Stat(filepath.Join(billing, f)); err == nil {
			t.Errorf("%s is still there", filepath.Join(billing, f))
		}
		if f != ".toolcat.manifest" && !strings.Contains(stdout, "removed "+filepath.Join(billing, f)+"\n") {
			t.Errorf("stdout does not report removing %s:\n%s", f, stdout)
		}
	}
	for _, f := range []string{"get_invoice.go", "impls.go", "conformance_tools_test.go"} {
		if _, err := os.Stat(filepath.Join(billing, f)); err != nil {
			t.Errorf("the user's file: %v", err)
		}
	}
	if !strings.Contains(stderr, "the package in "+billing+" is no longer generated") || !strings.Contains(stderr, "get_invoice.go") {
		t.Errorf("stderr does not name the files kept:\n%s", stderr)
	}
	root, err := os.ReadFile(filepath.Join(out, "toolcat_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(root, []byte("billing")) {
		t.Errorf("the root package still refers to billing:\n%s", root)
	}
	if code, stdout, stderr := runMain(t, "gen", "--split=category", "--check", "--out", out, cat); code != 0 {
		t.Errorf("--check after removing a category exits %d:\n%s%s", code, stdout, stderr)
	}
}

// goOutput runs the go command in dir and returns its output, failing t
// if it fails.
func goOutput(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestGenSplitFromOnePackage switches an existing package to
// --split=category: gen refuses while the implementations are in the
// root directory, naming where each goes, and succeeds once they are
// moved, scaffolding none of them again.
func TestGenSplitFromOnePackage(t *testing.T) {
	mod := t.TempDir()
	if err := gomodtest.Write(mod, "example.com/split"); err != nil {
		t.Fatal(err)
	}
	tools := []splitTool{{"list_alerts", "alerts"}, {"get_server_time", ""}}
	cat := splitCatalog(t, mod, tools)
	out := filepath.Join(mod, "agenttools")
	if code, _, stderr := runMain(t, "gen", "--cache=false", "--out", out, cat); code != 0 {
		t.Fatalf("gen exits %d:\n%s", code, stderr)
	}
	code, stdout, stderr := runMain(t, "gen", "--split=category", "--cache=false", "--out", out, cat)
	if code != exitUsage || stdout != "" {
		t.Fatalf("gen --split=category over one package exits %d, want %d, and writes:\n%s", code, exitUsage, stdout)
	}
	for _, want := range []string{
		"was generated as one package",
		"list_alerts.go (tool list_alerts): move it to " + filepath.Join(out, "alerts") + " and change its package clause to package alerts",
		"get_server_time.go (tool get_server_time): move it to " + filepath.Join(out, "uncategorized"),
		"conformance_tools_test.go: each package gets one of its own",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "alerts")); err == nil {
		t.Error("gen wrote the alerts package though it failed")
	}
	// The user moves the files.
	for _, m := range []struct{ file, pkg string }{{"list_alerts.go", "alerts"}, {"get_server_time.go", "uncategorized"}} {
		src, err := os.ReadFile(filepath.Join(out, m.file))
		if err != nil {
			t.Fatal(err)
		}
		src = bytes.Replace(src, []byte("package agenttools"), []byte("package "+m.pkg), 1)
		if err := os.MkdirAll(filepath.Join(out, m.pkg), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, m.pkg, m.file), src, 0o644); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(out, m.file))
	}
	os.Remove(filepath.Join(out, "conformance_tools_test.go"))
	code, stdout, stderr = runMain(t, "gen", "--split=category", "--cache=false", "--out", out, cat)
	if code != 0 {
		t.Fatalf("gen --split=category after the move exits %d:\n%s", code, stderr)
	}
	if strings.Contains(stdout, "created "+filepath.Join(out, "alerts", "list_alerts.go")) || strings.Contains(stdout, "created "+filepath.Join(out, "uncategorized", "get_server_time.go")) {
		t.Errorf("gen scaffolded a moved implementation again:\n%s", stdout)
	}
	for _, f := range []string{"list_alerts_gen.go", "get_server_time_gen.go", "toolcat_conformance_test.go"} {
		if !strings.Contains(stdout, "removed "+filepath.Join(out, f)+"\n") {
			t.Errorf("stdout does not report removing the one package's %s:\n%s", f, stdout)
		}
	}
	ents, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range ents {
		left = append(left, e.Name())
	}
	if got := strings.Join(left, " "); got != ".toolcat.manifest alerts toolcat_gen.go uncategorized" {
		t.Errorf("the root directory holds %s", got)
	}

	// list_alerts moves to no category: a scaffold in its new package, and
	// the old implementation is named.
	splitCatalog(t, mod, []splitTool{{"list_alerts", ""}, {"mute_alert", "alerts"}, {"get_server_time", ""}})
	code, stdout, stderr = runMain(t, "gen", "--split=category", "--cache=false", "--out", out, cat)
	if code != 0 {
		t.Fatalf("gen after moving a tool exits %d:\n%s", code, stderr)
	}
	for _, want := range []string{"removed " + filepath.Join(out, "alerts", "list_alerts_gen.go"), "created " + filepath.Join(out, "uncategorized", "list_alerts.go"), "wrote " + filepath.Join(out, "uncategorized", "list_alerts_gen.go")} {
		if !strings.Contains(stdout, want+"\n") {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if want := "tool list_alerts moved to the package in " + filepath.Join(out, "uncategorized") + "; its implementation " + filepath.Join(out, "alerts", "list_alerts.go") + " is kept"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
}

// TestGenSplitErrors: bad --split values, an output directory outside any
// module, and categories that make one package name, are usage errors.
func TestGenSplitErrors(t *testing.T) {
	dir := t.TempDir()
	cat := splitCatalog(t, dir, []splitTool{{"list_alerts", "alerts"}})
	for _, tc := range []struct {
		desc string
		args []string
		err  string
	}{
		{"an unknown mode", []string{"gen", "--split=tool", "--out", filepath.Join(dir, "out"), cat}, "--split=tool: want none or category"},
		{"no go.mod", []string{"gen", "--split=category", "--out", filepath.Join(dir, "out"), cat}, "is in no Go module (no go.mod in it or above it)"},
	} {
		code, stdout, stderr := runMain(t, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.err) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", tc.desc, code, stderr, exitUsage, tc.err)
		}
		if stdout != "" {
			t.Errorf("%s: stdout %q", tc.desc, stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Error("a failed gen created the output directory")
	}
	if err := gomodtest.Write(dir, "example.com/clash"); err != nil {
		t.Fatal(err)
	}
	cat = splitCatalog(t, dir, []splitTool{{"list_alerts", "Alerts"}, {"mute_alert", "alerts!"}})
	code, _, stderr := runMain(t, "gen", "--split=category", "--out", filepath.Join(dir, "out"), cat)
	if code != exitUsage || !strings.Contains(stderr, `category "Alerts" and category "alerts!" both make the Go package alerts`) {
		t.Errorf("two categories, one package: exit %d, stderr %q", code, stderr)
	}
}

func TestModulePathOf(t *testing.T) {
	for _, tc := range []struct{ gomod, want string }{
		{"module example.com/a\n\ngo 1.26\n", "example.com/a"},
		{"// a comment\nmodule \"example.com/quoted\" // trailing\n", "example.com/quoted"},
		{"go 1.26\nmodule\texample.com/tab\n", "example.com/tab"},
		{"modules example.com/no\n", ""},
		{"go 1.26\n", ""},
	} {
		got, err := modulePathOf([]byte(tc.gomod))
		if tc.want == "" {
			if err == nil {
				t.Errorf("modulePathOf(%q) = %q; want an error", tc.gomod, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("modulePathOf(%q) = %q, %v; want %q", tc.gomod, got, err, tc.want)
		}
	}
}
