// Command synth writes a synthetic catalog of n tools and its OpenAPI
// twin:
//
//	go run ./internal/scalebench/cmd/synth -n 1000 -out DIR
//
// DIR/catalog/catalog.yaml is catalogtest.YAML(n); DIR/openapi.yaml has
// one operation per tool with the same schemas (see scalebench.OpenAPI).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/toolcat/toolcat/internal/scalebench"
)

func main() {
	n := flag.Int("n", 1000, "number of tools")
	out := flag.String("out", "", "directory to write catalog/catalog.yaml and openapi.yaml into")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: synth -n N -out DIR")
		os.Exit(2)
	}
	if _, err := scalebench.Synth(*n, *out); err != nil {
		fmt.Fprintln(os.Stderr, "synth:", err)
		os.Exit(1)
	}
}
