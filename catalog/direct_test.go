package catalog_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/catalog/catalogtest"
	"github.com/toolcat/toolcat/catalog/importer"
)

// A catalog written in YAML and JSON only is decoded without CUE when it
// can be (catalog/direct.go). These tests hold that decoder to CUE's
// evaluation: on every catalog they load, both give the same catalog, or
// the same errors.

// sameBothWays loads files both ways, fails t on any difference and
// reports whether the load decoded the catalog directly.
func sameBothWays(t *testing.T, what string, files ...catalog.File) bool {
	t.Helper()
	fast, viaCUE, fastErr, cueErr, direct := catalog.LoadBothWays(files...)
	if fmt.Sprint(fastErr) != fmt.Sprint(cueErr) {
		t.Errorf("%s: errors differ (direct: %v)\nloaded: %v\nin CUE: %v", what, direct, fastErr, cueErr)
		return direct
	}
	if !reflect.DeepEqual(fast, viaCUE) {
		t.Errorf("%s: the catalog decoded directly differs from CUE's:\n%s", what, firstDifference(fast, viaCUE))
	}
	return direct
}

// firstDifference shows where two catalogs' JSON forms part.
func firstDifference(a, b *catalog.Catalog) string {
	ja, _ := json.MarshalIndent(a, "", " ")
	jb, _ := json.MarshalIndent(b, "", " ")
	la, lb := strings.Split(string(ja), "\n"), strings.Split(string(jb), "\n")
	for i := 0; i < len(la) || i < len(lb); i++ {
		if i >= len(la) || i >= len(lb) || la[i] != lb[i] {
			from := max(0, i-6)
			return fmt.Sprintf("direct, lines %d on:\n%s\nCUE:\n%s", from+1,
				strings.Join(la[from:min(len(la), i+3)], "\n"), strings.Join(lb[from:min(len(lb), i+3)], "\n"))
		}
	}
	return "(the same JSON: a difference JSON does not show, such as a nil and an empty slice)"
}

// richTools uses every field of a tool, and their defaults.
const richTools = `tools:
  - name: get_order
    original_name: getOrder
    description: |
      Gets an order.
      Use when: the user names an order.
    category: orders
    version: "1.2.0"
    owner: team-a
    risk: medium
    capability_required: orders:read
    exposure: hidden
    max_retries: 2
    sla_ms: 1500
    max_result_bytes: 65536
    dependencies: [db, list_orders]
    fallback_tool: list_orders
    additional_args: strip
    args:
      type: object
      properties: {id: {type: string}, n: {type: number, minimum: -0}}
      required: [id]
    result: {type: object}
    errors:
      not_found: {suggestion: List the orders first., retry_allowed: false}
      timeout: {}
    examples:
      - description: One order.
        args: {id: o_1, n: -0, x: [1.50, 1e3, null, true, {"a b": "é"}]}
        result: {id: o_1, total: 12.5}
      - args: {id: nope}
        error: not_found
      - description: No args.
    queries: ["show order o_1", "where is my order"]
    suppress:
      - {rule: NAME_VERB_NOUN, reason: legacy name}
    renamed_from: [fetch_order]
  - name: list_orders
    description: Lists orders.
    fallback_tool: null
  - name: cancel_order
    description: Cancels an order.
    has_side_effects: true
    idempotency_required: true
    supports_dry_run: true
    revertible: true
    returns_untrusted: true
  - name: purge_orders
    description: Purges orders.
    has_side_effects: true
    risk: high
    idempotent: false
    idempotency_key: host
  - name: tag_order
    description: Tags an order.
    has_side_effects: true
    autonomy: read_only
    idempotent: true
`

const richTop = `package: shop
title: The shop
version: 2
released: 2026-01-02
stable: true
ratio: 0.25
idempotency_key: argument
services:
  db: {description: The database., url: "https://db.example"}
  mail: {}
suppress:
  - rule: DESCRIPTION_WHEN_TO_USE
    reason: short descriptions here
`

func TestDirectMatchesCUE(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []catalog.File
	}{
		{"one YAML file", []catalog.File{{Name: "c.yaml", Data: []byte(richTop + richTools)}}},
		{"two YAML files", []catalog.File{{Name: "top.yaml", Data: []byte(richTop)}, {Name: "tools.yml", Data: []byte(richTools)}}},
		{"JSON", []catalog.File{{Name: "c.json", Data: []byte(`{"package": "p", "n": 1E3, "m": -0, "tools": {"get_a": {"description": "d", "examples": [{"args": {"x": 1.50, "y": -0, "z": 1e-7}}], "errors": {"internal": {"retry_allowed": true}}}}}`)}}},
		{"synthetic", []catalog.File{{Name: "synthetic.yaml", Data: catalogtest.YAML(60)}}},
		{"a tool in two files", []catalog.File{{Name: "a.yaml", Data: []byte("tools: {get_a: {description: d}}\n")}, {Name: "b.yaml", Data: []byte("tools: {get_a: {owner: o}}\n")}}},
		{"metadata in two files", []catalog.File{{Name: "a.yaml", Data: []byte("zeta: 1\nk: 2\ntools: {get_b: {description: d}}\n")}, {Name: "b.yaml", Data: []byte("alpha: x\ntools: {get_a: {description: d}}\n")}}},
	} {
		direct := sameBothWays(t, tc.name, tc.files...)
		if want := !strings.HasSuffix(tc.name, "in two files"); direct != want {
			t.Errorf("%s: decoded directly: %v, want %v", tc.name, direct, want)
		}
	}
}

// The format's every constraint, broken once: the direct decoder gives up
// and CUE reports, as it would have anyway.
func TestDirectGivesUpOnInvalid(t *testing.T) {
	valid := "package: p\ntools:\n  get_a:\n    description: d\n"
	if !sameBothWays(t, "valid", catalog.File{Name: "c.yaml", Data: []byte(valid)}) {
		t.Fatal("a valid catalog was not decoded directly")
	}
	for _, bad := range []string{
		"package: P\ntools: {get_a: {description: d}}\n",
		"package: 5\n",
		"title: [x]\n",
		"idempotency_key: model\n",
		"services: {db: {description: d, port: 5}}\n",
		"services: {'d b': {}}\n",
		"services: {db: null}\n",
		"services: [db]\n",
		"suppress: [{rule: x, reason: r}]\n",
		"suppress: [{rule: X, reason: ' '}]\n",
		"suppress: [{rule: X}]\n",
		"packages: x\n",
		"Title: x\n",
		"meta: {a: 1}\n",
		"meta: null\n",
		"meta: [1]\n",
		"tools: {'a b': {description: d}}\n",
		"tools: {get_a: {}}\n",
		"tools: {get_a: null}\n",
		"tools: {get_a: {description: 5}}\n",
		"tools: {get_a: {description: d, descriptoin: d}}\n",
		"tools: {get_a: {description: d, name: get_b}}\n",
		"tools: {get_a: {description: d, original_name: 'get a'}}\n",
		"tools: {get_a: {description: d, category: null}}\n",
		"tools: {get_a: {description: d, version: 1.0}}\n",
		"tools: {get_a: {description: d, risk: extreme}}\n",
		"tools: {get_a: {description: d, has_side_effects: 'yes'}}\n",
		"tools: {get_a: {description: d, exposure: secret}}\n",
		"tools: {get_a: {description: d, autonomy: none}}\n",
		"tools: {get_a: {description: d, additional_args: keep}}\n",
		"tools: {get_a: {description: d, idempotency_key: model}}\n",
		"tools: {get_a: {description: d, max_retries: 101}}\n",
		"tools: {get_a: {description: d, max_retries: -1}}\n",
		"tools: {get_a: {description: d, max_retries: 1.5}}\n",
		"tools: {get_a: {description: d, sla_ms: 0}}\n",
		"tools: {get_a: {description: d, max_result_bytes: 1073741825}}\n",
		"tools: {get_a: {description: d, dependencies: ['d b']}}\n",
		"tools: {get_a: {description: d, dependencies: db}}\n",
		"tools: {get_a: {description: d, fallback_tool: 'x y'}}\n",
		"tools: {get_a: {description: d, renamed_from: [5]}}\n",
		"tools: {get_a: {description: d, queries: ['']}}\n",
		"tools: {get_a: {description: d, queries: ['   ']}}\n",
		"tools: {get_a: {description: d, queries: ['" + strings.Repeat("é", 301) + "']}}\n",
		"tools: {get_a: {description: d, queries: [" + strings.Repeat("q, ", 20) + "q]}}\n",
		"tools: {get_a: {description: d, errors: {oops: {}}}}\n",
		"tools: {get_a: {description: d, errors: {timeout: {suggestion: 5}}}}\n",
		"tools: {get_a: {description: d, errors: {timeout: {hint: h}}}}\n",
		"tools: {get_a: {description: d, errors: {timeout: null}}}\n",
		"tools: {get_a: {description: d, examples: [{args: 5}]}}\n",
		"tools: {get_a: {description: d, examples: [{error: oops}]}}\n",
		"tools: {get_a: {description: d, examples: [{argz: {}}]}}\n",
		"tools: {get_a: {description: d, examples: [5]}}\n",
		"tools: {get_a: {description: d, suppress: [{rule: A, reason: r, why: w}]}}\n",
	} {
		if sameBothWays(t, bad, catalog.File{Name: "c.yaml", Data: []byte(bad)}) {
			t.Errorf("decoded directly, though the format refuses it:\n%s", bad)
		}
	}
	// JSON writes numbers YAML cannot: beyond float64, CUE decides.
	for _, src := range []string{
		`{"n": 1e999999, "tools": {}}`,
		`{"tools": {"get_a": {"description": "d", "examples": [{"args": {"n": -1e400}}]}}}`,
		`{"tools": {"get_a": {"description": "d", "max_retries": 1e0}}}`,
	} {
		if sameBothWays(t, src, catalog.File{Name: "c.json", Data: []byte(src)}) {
			t.Errorf("decoded directly:\n%s", src)
		}
	}
}

// The repository's own catalogs, and the fuzz corpora of the loader.
func TestDirectMatchesCUEOnRepo(t *testing.T) {
	dirs := map[string]bool{}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "fuzz", "scalebench":
				return filepath.SkipDir
			}
			return nil
		}
		if ext := filepath.Ext(path); ext == ".yaml" || ext == ".yml" || ext == ".json" {
			data, err := os.ReadFile(path)
			if err == nil && (strings.Contains(string(data), "\ntools:") || strings.HasPrefix(string(data), "tools:") || strings.Contains(string(data), `"tools": {`)) {
				dirs[filepath.Dir(path)] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	direct := 0
	for dir := range dirs {
		names, err := catalog.CatalogFiles([]string{dir})
		if err != nil {
			t.Fatal(err)
		}
		var files []catalog.File
		for _, n := range names {
			data, err := os.ReadFile(n)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, catalog.File{Name: n, Data: data})
		}
		if sameBothWays(t, dir, files...) {
			direct++
		}
	}
	if len(dirs) < 10 || direct < len(dirs)/2 {
		t.Errorf("%d of %d catalog directories decoded directly", direct, len(dirs))
	}
	seeds := 0
	for _, target := range []string{"FuzzLoadYAML", "FuzzLoadJSON", "FuzzLoadInParts", "FuzzDirect"} {
		ents, _ := os.ReadDir(filepath.Join("testdata", "fuzz", target))
		for _, e := range ents {
			data, err := os.ReadFile(filepath.Join("testdata", "fuzz", target, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			src, ok := fuzzBytes(string(data))
			if !ok {
				continue
			}
			name := "f.yaml"
			if target == "FuzzLoadJSON" || target == "FuzzDirect" && strings.Contains(string(data), "\ntrue") {
				name = "f.json"
			}
			sameBothWays(t, target+"/"+e.Name(), catalog.File{Name: name, Data: src})
			seeds++
		}
	}
	if seeds < 10 {
		t.Errorf("only %d fuzz seeds read", seeds)
	}
}

// fuzzBytes reads the first []byte value of a Go fuzz corpus file.
func fuzzBytes(file string) ([]byte, bool) {
	for _, line := range strings.Split(file, "\n") {
		if rest, ok := strings.CutPrefix(line, "[]byte("); ok {
			s, err := strconv.Unquote(strings.TrimSuffix(rest, ")"))
			return []byte(s), err == nil
		}
	}
	return nil, false
}

// The catalogs toolcat import writes for tool definitions written by
// others: the corpus (`make test-corpus`) and the discovery evaluation's
// pool of public MCP servers (`make eval-discovery`).
func TestDirectMatchesCUEOnCorpus(t *testing.T) {
	var dirs []string
	for _, env := range []string{"TOOLCAT_CORPUS", "TOOLCAT_DISCOVERY_POOL"} {
		if dir := os.Getenv(env); dir != "" {
			dirs = append(dirs, dir)
		}
	}
	if len(dirs) == 0 {
		t.Skip("neither TOOLCAT_CORPUS nor TOOLCAT_DISCOVERY_POOL is set: `make test-corpus` and `make eval-discovery` run this test on tool definitions written by others")
	}
	sets, direct := 0, 0
	for _, dir := range dirs {
		if err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() && path != dir && (d.Name() == "node_modules" || d.Name() == "packages" || d.Name() == "home") {
				return filepath.SkipDir // the pool's installed servers
			}
			if err != nil || d.IsDir() || filepath.Ext(path) != ".json" {
				return err
			}
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			defer f.Close()
			tools, err := importer.Parse(path, f)
			if err != nil {
				return nil // not a tool list
			}
			res, err := importer.Build(tools, importer.Options{})
			if err != nil {
				return nil
			}
			sets++
			if sameBothWays(t, path, catalog.File{Name: "tools.yaml", Data: res.YAML}) {
				direct++
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d of %d imported catalogs decoded directly", direct, sets)
	if sets == 0 || direct < sets*9/10 {
		t.Errorf("%d of %d imported catalogs decoded directly", direct, sets)
	}
}

// FuzzDirect holds the direct decoder to CUE on any YAML or JSON input.
func FuzzDirect(f *testing.F) {
	f.Add([]byte(richTop+richTools), false)
	f.Add([]byte(`{"tools": {"get_a": {"description": "d", "examples": [{"args": {"x": 1.50}}]}}}`), true)
	f.Add([]byte("tools: {get_a: {description: d, queries: [q], max_retries: 3}}\nx: 1e3\n"), false)
	f.Fuzz(func(t *testing.T, data []byte, isJSON bool) {
		name := "f.yaml"
		if isJSON {
			name = "f.json"
		}
		sameBothWays(t, "input", catalog.File{Name: name, Data: data})
	})
}

// FuzzDirectTwoFiles does so for a catalog of two YAML files, where CUE
// unifies what both write.
func FuzzDirectTwoFiles(f *testing.F) {
	f.Add([]byte(richTop), []byte(richTools))
	f.Add([]byte("zeta: 1\ntools: {get_b: {description: d}}\n"), []byte("alpha: x\ntools: {get_a: {description: d}}\n"))
	f.Add([]byte("services: {db: {}}\n"), []byte("services: {mail: {}}\ntools: [{name: get_a, description: d}]\n"))
	f.Add([]byte("tools: {get_a: {description: d}}\n"), []byte("tools: {get_a: {owner: o}}\n"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		sameBothWays(t, "input", catalog.File{Name: "a.yaml", Data: a}, catalog.File{Name: "b.yaml", Data: b})
	})
}
