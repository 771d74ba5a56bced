package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A default its own schema rejects is a load-time error of toolcat gen:
// exit code 2, the position on stderr, nothing written.
func TestGenBadDefaultExitCode(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "catalog.yaml")
	src := "tools:\n  delete_files:\n    description: Deletes files.\n    args:\n      type: object\n      properties:\n        dry_run: {type: boolean, default: \"false\"}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "pkg")
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"gen", "--out", out, file}, strings.NewReader(""), &stdout, &stderr); code != 2 {
		t.Fatalf("exit code %d, want 2; stderr:\n%s", code, stderr.String())
	}
	if want := file + ":7:43: tools.delete_files.args/properties/dry_run: default value \"false\""; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr:\n%s\nwant it to contain %s", stderr.String(), want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("gen wrote %s: %v", out, err)
	}
}
