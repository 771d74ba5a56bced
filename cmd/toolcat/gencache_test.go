package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// exampleCatalog is the catalog of the example package.
const exampleCatalog = "../../examples/articles/catalog"

// genInto runs toolcat gen on the catalog at cat into dir.
func genInto(tb testing.TB, cat, dir string, args ...string) {
	tb.Helper()
	var out, errb bytes.Buffer
	args = append(append([]string{"gen", "--out", dir}, args...), cat)
	if code := Main(args, nil, &out, &errb); code != 0 {
		tb.Fatalf("toolcat %v: exit %d\n%s%s", args, code, out.String(), errb.String())
	}
}

// useGenCache gives toolcat gen a cache of its own for the test, as the
// build named build.
func useGenCache(tb testing.TB, build string) {
	tb.Setenv("XDG_CACHE_HOME", tb.TempDir())
	tb.Setenv("HOME", tb.TempDir())
	old := buildKey
	tb.Cleanup(func() { buildKey = old })
	buildKey = func() string { return build }
}

// The cache of toolcat gen keeps the key of each tool file it writes; a
// later run reuses a file only while it is as written, and the files are
// those of a run without the cache.
func TestGenCache(t *testing.T) {
	useGenCache(t, "test build")

	dir := t.TempDir()
	genInto(t, exampleCatalog, dir)
	cache := openGenCache(dir)
	toolFiles, err := filepath.Glob(filepath.Join(dir, "*_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	if want := len(toolFiles) - 1; len(cache.old) != want || want < 4 { // all but toolcat_gen.go
		t.Fatalf("the cache index holds %d files, want the %d tool files", len(cache.old), want)
	}
	// And what the tools' one-pass validators declare, which a run reuses
	// with their files.
	if len(cache.oldNames) == 0 {
		t.Fatal("the cache index holds no validator's names")
	}
	for key, names := range cache.oldNames {
		if got, ok := cache.GetNames(key); !ok || len(got) != len(names) {
			t.Fatalf("GetNames(%s) = %v, %v; want %v", key, got, ok, names)
		}
	}
	file := filepath.Join(dir, "publish_article_gen.go")
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// A file changed behind gen's back is not reused: it is rendered and
	// written again.
	if err := os.WriteFile(file, append(bytes.Clone(want), "// edited\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := openGenCache(dir).Get("publish_article_gen.go", cache.old["publish_article_gen.go"].Key); ok {
		t.Fatal("Get reused a file whose contents changed")
	}
	genInto(t, exampleCatalog, dir)
	if got, _ := os.ReadFile(file); !bytes.Equal(got, want) {
		t.Fatal("gen with the cache did not restore an edited generated file")
	}
	// Unchanged: reused, and the same bytes as without the cache.
	if _, ok := openGenCache(dir).Get("publish_article_gen.go", cache.old["publish_article_gen.go"].Key); !ok {
		t.Fatal("Get did not reuse an unchanged file")
	}
	fresh := t.TempDir()
	genInto(t, exampleCatalog, fresh, "--cache=false")
	for name := range cache.old {
		a, _ := os.ReadFile(filepath.Join(dir, name))
		b, _ := os.ReadFile(filepath.Join(fresh, name))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between runs with and without the cache", name)
		}
	}
	// Another build of toolcat starts afresh.
	buildKey = func() string { return "another build" }
	if c := openGenCache(dir); len(c.old) != 0 {
		t.Errorf("another build reads the index of the first: %d files", len(c.old))
	}
	b, err := os.ReadFile(cache.index)
	if err != nil {
		t.Fatal(err)
	}
	var idx cacheIndex
	if err := json.Unmarshal(b, &idx); err != nil || idx.Build != "test build" {
		t.Fatalf("index %s: %v, build %q", cache.index, err, idx.Build)
	}
}
