package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolcat/toolcat/internal/gomodtest"
)

// An importSet is one toolcat import run: its name in logs and its
// arguments (files, directories or --mcp-command).
type importSet struct {
	name string
	args []string
}

// importCounts are the totals of importAndBuild.
type importCounts struct {
	sets, tools, renamed, merged, decide, lintLines int
}

var importSummary = regexp.MustCompile(`toolcat import: (\d+) tools \((\d+) renamed, (\d+) duplicates merged\), (\d+) values to decide`)

// importAndBuild takes every set through what a team adopting toolcat
// does: toolcat import, toolcat lint (which must load the catalog),
// toolcat gen, then go vet of all generated packages in one module, which
// builds them.
func importAndBuild(t *testing.T, sets []importSet) importCounts {
	t.Helper()
	mod := t.TempDir()
	if err := gomodtest.Write(mod, "example.com/imported"); err != nil {
		t.Fatal(err)
	}
	var c importCounts
	for i, set := range sets {
		pkg := fmt.Sprintf("imp%02d", i)
		out := filepath.Join(mod, pkg, "catalog", "tools.yaml")
		var stdout, stderr bytes.Buffer
		args := append([]string{"import", "--quiet", "--package", pkg, "--out", out}, set.args...)
		if code := Main(args, nil, &stdout, &stderr); code != 0 {
			t.Errorf("%s: toolcat import exits %d:\n%s", set.name, code, stderr.String())
			continue
		}
		m := importSummary.FindStringSubmatch(stderr.String())
		if m == nil {
			t.Fatalf("%s: no summary in %q", set.name, stderr.String())
		}
		n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
		stdout.Reset()
		stderr.Reset()
		if code := Main([]string{"lint", "--format", "text", filepath.Dir(out)}, nil, &stdout, &stderr); code == 2 {
			t.Errorf("%s: the imported catalog does not load:\n%s%s", set.name, firstLines(stdout.String(), 10), stderr.String())
			continue
		}
		lint := strings.Count(stdout.String(), "\n")
		stderr.Reset()
		if code := Main([]string{"gen", "--cache=false", "--out", filepath.Join(mod, pkg), filepath.Dir(out)}, nil, &stdout, &stderr); code != 0 {
			t.Errorf("%s: toolcat gen exits %d:\n%s", set.name, code, stderr.String())
			continue
		}
		c.sets++
		c.tools += n(1)
		c.renamed += n(2)
		c.merged += n(3)
		c.decide += n(4)
		c.lintLines += lint
		t.Logf("%s: %d tools, %d renamed, %d merged, %d to decide, %d lint lines", set.name, n(1), n(2), n(3), n(4), lint)
	}
	if c.sets > 0 {
		for _, args := range [][]string{{"mod", "tidy"}, {"vet", "./..."}} {
			gomodtest.Go(t, mod, args...)
		}
	}
	t.Logf("imported %d of %d sets, %d tools (%d renamed, %d duplicates merged, %d values to decide); every one lints, generates and builds",
		c.sets, len(sets), c.tools, c.renamed, c.merged, c.decide)
	return c
}

// TestImportCorpus imports every tool set of the corpus in
// $TOOLCAT_CORPUS as a team would: each tools/list file, and each folder
// of one-tool snapshots, read in place; then lint, gen and go vet. `make
// test-corpus` runs it.
func TestImportCorpus(t *testing.T) {
	t.Parallel() // child processes build Go packages: such tests run side by side
	dir := os.Getenv(CorpusEnv)
	if dir == "" {
		t.Skipf("%s is not set: `make test-corpus` runs this test on a corpus of real tool definitions", CorpusEnv)
	}
	importDir(t, CorpusEnv, dir)
}

// PoolEnv names the discovery evaluation's pool of public tool lists
// (make discovery-pool builds one): a folder of <server>.json files,
// each with a "tools" list, and a manifest.json.
const PoolEnv = "TOOLCAT_DISCOVERY_POOL"

// TestImportDiscoveryPool imports every server's tool list of the pool in
// $TOOLCAT_DISCOVERY_POOL, as TestImportCorpus does the corpus: each one
// must import, load, generate and build with no hand edit. `make
// eval-discovery` runs it.
func TestImportDiscoveryPool(t *testing.T) {
	dir := os.Getenv(PoolEnv)
	if dir == "" {
		t.Skipf("%s is not set: `make eval-discovery` runs this test on a pool of public tool lists", PoolEnv)
	}
	importDir(t, PoolEnv, dir)
}

// importDir imports each .json file under dir, and each folder of .snap
// files, as a set of its own, and takes them all through importAndBuild.
func importDir(t *testing.T, env, dir string) {
	var sets []importSet
	folders := map[string]bool{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "packages" || d.Name() == "home" || d.Name() == "node_modules" {
				return filepath.SkipDir // a pool's installed servers
			}
			return nil
		}
		switch {
		case filepath.Ext(path) == ".snap":
			folders[filepath.Dir(path)] = true
		case filepath.Ext(path) == ".json" && d.Name() != "manifest.json":
			sets = append(sets, importSet{name: path, args: []string{path}})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for f := range folders {
		sets = append(sets, importSet{name: f + "/", args: []string{f}})
	}
	slices.SortFunc(sets, func(a, b importSet) int { return strings.Compare(a.name, b.name) })
	if len(sets) == 0 {
		t.Fatalf("%s=%s holds no tool definitions", env, dir)
	}
	c := importAndBuild(t, sets)
	if c.sets != len(sets) {
		t.Errorf("%d of %d sets imported and built", c.sets, len(sets))
	}
}

// liveServers are the npm reference MCP servers TestImportLive runs.
var liveServers = []struct{ pkg, version, entry string }{
	{"@modelcontextprotocol/server-everything", "2026.8.31", "dist/index.js"},
	{"@modelcontextprotocol/server-memory", "2026.8.31", "dist/index.js"},
}

// TestImportLive runs real MCP servers from npm over stdio, imports their
// tools with --mcp-command, and takes the catalogs through lint, gen and
// go vet. The packages are installed under the cache directory
// (TOOLCAT_NPM_DIR, else toolcat/npm in the user's cache directory); the
// test fails when npm or node is missing (make deps installs them).
func TestImportLive(t *testing.T) {
	t.Parallel() // child processes build Go packages: such tests run side by side
	if testing.Short() {
		t.Skip("runs MCP servers from npm")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not on PATH: TestImportLive runs MCP servers from npm (make deps installs Node.js and npm)")
	}
	var sets []importSet
	for _, s := range liveServers {
		entry := npmPackage(t, s.pkg, s.version, s.entry)
		sets = append(sets, importSet{name: s.pkg + "@" + s.version, args: []string{"--mcp-command", fmt.Sprintf("%q %q", node, entry), "--timeout", "60s"}})
	}
	c := importAndBuild(t, sets)
	if c.sets != len(sets) || c.tools < 10 {
		t.Errorf("%d of %d servers imported, %d tools", c.sets, len(sets), c.tools)
	}
}

// npmPackage returns the path of entry in the npm package pkg@version,
// installing it into a folder of its own under the cache directory when
// it is missing.
func npmPackage(t *testing.T, pkg, version, entry string) string {
	t.Helper()
	dir := os.Getenv("TOOLCAT_NPM_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Fatalf("no cache directory for npm packages (set TOOLCAT_NPM_DIR): %v", err)
		}
		dir = filepath.Join(cache, "toolcat", "npm")
	}
	dir = filepath.Join(dir, filepath.Base(pkg)+"@"+version)
	root := filepath.Join(dir, "node_modules", filepath.FromSlash(pkg))
	if b, err := os.ReadFile(filepath.Join(root, "package.json")); err == nil && strings.Contains(string(b), `"version": "`+version+`"`) {
		return filepath.Join(root, filepath.FromSlash(entry))
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatal("npm is not on PATH: TestImportLive installs MCP servers from npm (make deps installs Node.js and npm)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, npm, "install", "--prefix", dir, "--no-audit", "--no-fund", pkg+"@"+version).CombinedOutput()
	if err != nil {
		t.Fatalf("npm install %s@%s: %v\n%s", pkg, version, err, out)
	}
	return filepath.Join(root, filepath.FromSlash(entry))
}
