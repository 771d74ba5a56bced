package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	// toolcat gen in tests, and in the scripts, keeps no cache in the
	// user's cache directory; the tests of the cache give it one of its
	// own (useGenCache).
	buildKey = func() string { return "" }
	testscript.Main(m, map[string]func(){
		"toolcat": func() { os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the CLI scripts in testdata/script: each is a txtar
// archive of files and toolcat commands with their expected output.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
	})
}
