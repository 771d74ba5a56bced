package main

import (
	"fmt"
	"runtime/debug"
)

// version is set at link time (-ldflags "-X main.version=v1.2.3"); otherwise
// it comes from the module's build information.
var version = ""

func toolcatVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

func runVersion(e *env, args []string) int {
	fs := newFlags(e, "version", "", "Print toolcat's version.")
	if code := parse(e, fs, args); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(e.stderr, "toolcat version: takes no arguments")
		return exitUsage
	}
	fmt.Fprintf(e.stdout, "toolcat %s\n", toolcatVersion())
	return exitOK
}
