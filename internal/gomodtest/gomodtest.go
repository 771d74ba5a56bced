// Package gomodtest makes Go modules that require toolcat from this
// checkout, so that tests build, vet and test generated code as a user's
// module would.
package gomodtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
)

// Root is the directory of toolcat's go.mod.
func Root() (string, error) {
	_, file, _, ok := goruntime.Caller(0)
	if !ok {
		return "", fmt.Errorf("gomodtest: no source file to find the module root from")
	}
	root := filepath.Join(filepath.Dir(file), "..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return "", fmt.Errorf("gomodtest: the module root: %w", err)
	}
	return root, nil
}

// Write writes into dir the go.mod of a module called path that requires
// toolcat, replaced by this checkout, and toolcat's go.sum.
func Write(dir, path string) error {
	root, err := Root()
	if err != nil {
		return err
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		return err
	}
	gomod := "module " + path + "\n\ngo 1.26\n\nrequire github.com/toolcat/toolcat v0.0.0\n\nreplace github.com/toolcat/toolcat => " + root + "\n"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644)
}

// Go runs the go command with args in dir, with module downloads allowed
// for go mod tidy, and fails t with its output if it fails.
func Go(t testing.TB, dir string, args ...string) {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal("the go command is needed to build the generated code:", err)
	}
	cmd := exec.Command(goBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}
