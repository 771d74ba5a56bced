package gen_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/gen"
)

// TestOriginalName checks that a tool's original_name reaches its
// runtime metadata, in gen.Meta and in the generated code, and that the
// catalog refuses one no provider accepts.
func TestOriginalName(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tools.yaml")
	src := "package: users\ntools:\n  get_user:\n    original_name: getUser\n    description: Reads one user.\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if m := gen.Meta(cat.Tools[0]); m.OriginalName != "getUser" || m.WireName() != "getUser" {
		t.Errorf("Meta: OriginalName %q WireName %q, want getUser", m.OriginalName, m.WireName())
	}
	files, err := gen.Generate(cat)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, data := range files {
		found = found || regexp.MustCompile(`OriginalName:\s+"getUser"`).Match(data)
	}
	if !found {
		t.Error(`no generated file sets OriginalName: "getUser"`)
	}
	bad := strings.Replace(src, "getUser", "get user", 1)
	if err := os.WriteFile(file, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := catalog.Load(file); err == nil || !strings.Contains(err.Error(), "original_name") {
		t.Errorf("original_name \"get user\": Load error %v, want one about original_name", err)
	}
}

// TestOriginalNameTaken checks that the catalog refuses an original_name
// another tool is called by.
func TestOriginalNameTaken(t *testing.T) {
	for _, src := range []string{
		"tools:\n  get_user: {description: A., original_name: getUser}\n  getUser: {description: B.}\n",
		"tools:\n  get_user: {description: A., original_name: getUser}\n  fetch_user: {description: B., original_name: getUser}\n",
	} {
		_, err := catalog.LoadFiles(catalog.File{Name: "c.yaml", Data: []byte(src)})
		if err == nil || !strings.Contains(err.Error(), `original_name "getUser"`) {
			t.Errorf("Load error %v, want one about original_name \"getUser\"\n%s", err, src)
		}
	}
}
