// Command toolcat lints tool catalogs for LLM agents and compiles them into
// typed Go code, provider definitions and docs.
//
// Run "toolcat help" for the commands.
package main

import "os"

func main() {
	tuneGC()
	os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
