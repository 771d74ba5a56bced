package scalebench

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/catalog/catalogtest"
	"go.yaml.in/yaml/v3"
)

// TestPipeline runs what `make bench-scale` measures at 20 tools: the
// synthetic catalog and its OpenAPI twin, toolcat gen and oapi-codegen
// (both configurations), and go build of each generated package, then the
// conformance test of toolcat's.
func TestPipeline(t *testing.T) {
	if testing.Short() {
		t.Skip("builds toolcat, oapi-codegen and three generated packages")
	}
	root, module, err := Dirs()
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	bin, err := BuildBinaries(root, module, filepath.Join(work, "bin"))
	if err != nil {
		t.Fatal(err)
	}
	synth := filepath.Join(work, "synth")
	cat, err := Synth(20, synth)
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Tools) != 20 {
		t.Fatalf("Synth(20) made %d tools", len(cat.Tools))
	}
	lint, err := Run(Command(synth, "", bin.Toolcat, "lint", filepath.Join(synth, "catalog")), 1)
	if err != nil {
		t.Fatal(err)
	}
	if lint.Wall <= 0 {
		t.Errorf("lint took %v", lint.Wall)
	}
	if !strings.Contains(string(mustRead(t, filepath.Join(synth, "openapi.yaml"))), "operationId: "+cat.Tools[0].Name) {
		t.Errorf("openapi.yaml has no operation %s", cat.Tools[0].Name)
	}

	cache := "" // the user's build cache: this checks the pipeline, not its speed
	tc := filepath.Join(work, "toolcat")
	if err := bin.ToolcatProject(synth, tc, root); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"toolcat_gen.go", cat.Tools[0].Name + ".go", "conformance_tools_test.go"} {
		if _, err := os.Stat(filepath.Join(tc, ToolcatPackage, name)); err != nil {
			t.Errorf("toolcat gen wrote no %s: %v", name, err)
		}
	}
	built, err := Run(Build(tc, cache))
	if err != nil {
		t.Fatal(err)
	}
	if built.MaxRSS == 0 && hasRusage() {
		t.Errorf("go build: no peak RSS measured (%+v)", built)
	}
	if _, failed, err := RunConformance(Conformance(tc, cache)); err != nil {
		t.Fatal(err)
	} else if !failed {
		t.Error("the conformance test passed over bodies that answer ErrNotImplemented")
	}

	for _, cfg := range []OapiConfig{ModelsClient, Models} {
		dir := filepath.Join(work, "oapi-"+strings.ReplaceAll(string(cfg), "+", "-"))
		if err := bin.OapiProject(synth, dir, module, cfg); err != nil {
			t.Fatal(err)
		}
		src := string(mustRead(t, filepath.Join(dir, OapiPackage, "scale.gen.go")))
		if hasClient := strings.Contains(src, "type Client struct"); hasClient != (cfg == ModelsClient) {
			t.Errorf("%s: the output has a client: %v", cfg, hasClient)
		}
		if !strings.Contains(src, "ListInvoicesByRegion0JSONRequestBody") {
			t.Errorf("%s: no request body type of list_invoices_by_region_0", cfg)
		}
		if _, err := Run(Build(dir, cache)); err != nil {
			t.Fatal(err)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func load(t *testing.T, src string) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.LoadFiles(catalog.File{Name: "catalog.yaml", Data: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

const refCatalog = `package: refs
tools:
  get_order_status:
    description: |
      Get the status of an order.
      Use when: the user asks where an order is.
      Do not use: to change an order.
    args:
      type: object
      additionalProperties: false
      required: [order]
      $defs:
        order_ref:
          type: object
          properties:
            id: {type: string, description: The order's id.}
      properties:
        order: {$ref: "#/$defs/order_ref", description: The order.}
        mode: {const: fast, description: Only fast.}
        note: {type: [string, "null"], description: A note.}
        weight: {type: number, minimum: 0.5, description: Weight.}
    result:
      type: object
      properties:
        state: {type: string, description: The state.}
`

// TestOpenAPI checks the twin of a tool: its operation, schemas copied
// (2020-12 keywords included), $defs moved to components with $ref
// rewritten, and a result schema as the 200 response.
func TestOpenAPI(t *testing.T) {
	spec, err := OpenAPI(load(t, refCatalog))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(spec, &doc); err != nil {
		t.Fatalf("not YAML: %v\n%s", err, spec)
	}
	if doc["openapi"] != OpenAPIVersion {
		t.Errorf("openapi: %v", doc["openapi"])
	}
	op := dig(t, doc, "paths", "/tools/get_order_status", "post").(map[string]any)
	if op["operationId"] != "get_order_status" || op["summary"] != "Get the status of an order." {
		t.Errorf("operation: %v", op)
	}
	args := dig(t, op, "requestBody", "content", "application/json", "schema").(map[string]any)
	if _, ok := args["$defs"]; ok {
		t.Error("$defs left in the request schema")
	}
	props := args["properties"].(map[string]any)
	if ref := props["order"].(map[string]any)["$ref"]; ref != "#/components/schemas/get_order_status__order_ref" {
		t.Errorf("$ref = %v", ref)
	}
	if c := props["mode"].(map[string]any)["const"]; c != "fast" {
		t.Errorf("const = %v", c)
	}
	if ty := props["note"].(map[string]any)["type"].([]any); len(ty) != 2 || ty[1] != "null" {
		t.Errorf("type array = %v", ty)
	}
	if m := props["weight"].(map[string]any)["minimum"]; m != 0.5 {
		t.Errorf("minimum = %v (%T)", m, m)
	}
	if _, ok := dig(t, doc, "components", "schemas", "get_order_status__order_ref", "properties", "id").(map[string]any); !ok {
		t.Error("no component for $defs/order_ref")
	}
	res := dig(t, op, "responses", "200", "content", "application/json", "schema", "properties", "state").(map[string]any)
	if res["type"] != "string" {
		t.Errorf("result schema: %v", res)
	}
}

func dig(t *testing.T, v any, keys ...string) any {
	t.Helper()
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("at %q: %T is not an object", k, v)
		}
		if v, ok = m[k]; !ok {
			t.Fatalf("no %q in %v", k, m)
		}
	}
	return v
}

// TestOpenAPIRefs checks that a local reference with no OpenAPI form is an
// error naming the tool, not a broken document.
func TestOpenAPIRefs(t *testing.T) {
	src := strings.Replace(refCatalog, `#/$defs/order_ref`, `#/properties/mode`, 1)
	_, err := OpenAPI(load(t, src))
	if err == nil || !strings.Contains(err.Error(), "get_order_status") || !strings.Contains(err.Error(), "#/properties/mode") {
		t.Fatalf("err = %v", err)
	}
}

// TestRunMeasures checks that Run reports the wall time and peak RSS of a
// child and treats the listed exit codes as success.
func TestRunMeasures(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	s, err := Run(exec.Command(sh, "-c", "sleep 0.2"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Wall < 200*time.Millisecond {
		t.Errorf("wall %v, below the 0.2 s slept", s.Wall)
	}
	// A child that spins: its CPU time is counted.
	spin, err := Run(exec.Command(sh, "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done"))
	if err != nil {
		t.Fatal(err)
	}
	if spin.User+spin.Sys <= 0 {
		t.Errorf("a spinning child: user %v, sys %v", spin.User, spin.Sys)
	}
	if _, err := Run(exec.Command(sh, "-c", "echo findings; exit 1"), 1); err != nil {
		t.Errorf("exit 1 listed as success: %v", err)
	}
	_, err = Run(exec.Command(sh, "-c", "echo broken; exit 2"), 1)
	if err == nil || !strings.Contains(err.Error(), "broken") {
		t.Errorf("exit 2: err = %v, want the output in it", err)
	}
}

// TestMaxRSS checks the peak RSS against a child that holds 64 MiB.
func TestMaxRSS(t *testing.T) {
	if os.Getenv("SCALEBENCH_ALLOC") == "1" {
		b := bytes.Repeat([]byte{1}, 64<<20)
		time.Sleep(10 * time.Millisecond)
		_ = b[len(b)-1]
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run", "^TestMaxRSS$")
	cmd.Env = append(os.Environ(), "SCALEBENCH_ALLOC=1")
	s, err := Run(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if !hasRusage() {
		t.Skip("no rusage on this system")
	}
	if s.MaxRSS < 64<<20 || s.MaxRSS > 1<<30 {
		t.Errorf("MaxRSS = %s, want a little above 64 MiB", MiB(s.MaxRSS))
	}
}

// hasRusage says whether the system reports a child's peak RSS.
func hasRusage() bool {
	switch goruntime.GOOS {
	case "windows", "plan9", "js", "wasip1":
		return false
	}
	return true
}

func TestSamples(t *testing.T) {
	s := Samples{{Wall: 3 * time.Second, MaxRSS: 10}, {Wall: time.Second, MaxRSS: 30}, {Wall: 2 * time.Second, MaxRSS: 20}}
	if s.Median() != 2*time.Second || s.MaxRSS() != 30 {
		t.Errorf("median %v, max RSS %d", s.Median(), s.MaxRSS())
	}
	cpu := Samples{{User: 3, Sys: 1}, {User: 1, Sys: 3}, {User: 2, Sys: 2}, {User: 4, Sys: 4}}
	if u, k := cpu.MedianUserSys(); u != 2 || k != 2 {
		t.Errorf("median user %v, sys %v; want 2, 2", u, k)
	}
	if got := Ratio(3*time.Second, time.Second); got != "3.00×" {
		t.Errorf("Ratio = %q", got)
	}
	if got := Ratio(time.Second, 0); got != "-" {
		t.Errorf("Ratio over 0 = %q", got)
	}
}

// TestSplit checks that a synthetic catalog cut into files loads as the
// whole: every tool once, the package and services from the first file.
func TestSplit(t *testing.T) {
	files, err := split(catalogtest.YAML(5), "cat", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 {
		t.Fatalf("%d files, want 3", len(files))
	}
	for i, f := range files[1:] {
		if !strings.HasPrefix(string(f.Data), "tools:\n  ") {
			t.Errorf("file %d starts %q", i+2, f.Data[:min(20, len(f.Data))])
		}
	}
	cat, err := catalog.LoadFiles(files...)
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Tools) != 5 || cat.Package != "synthetic" || len(cat.Services) != 4 {
		t.Errorf("%d tools, package %q, %d services", len(cat.Tools), cat.Package, len(cat.Services))
	}
}
