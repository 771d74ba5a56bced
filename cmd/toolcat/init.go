package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

const initDoc = `
Start a tool package in a directory (default: the current one): a starter
catalog in catalog/tools.yaml and generate.go with the go:generate lines
of toolcat gen and toolcat docs. Existing files are never overwritten.
Then:

  go get -tool github.com/toolcat/toolcat/cmd/toolcat
  go generate ./...
  go mod tidy

With toolcat from a local checkout (a replace in go.mod), go get -tool
fails; add the tool by hand instead:

  go mod edit -require=github.com/toolcat/toolcat@v0.0.0 \
    -replace=github.com/toolcat/toolcat=../toolcat \
    -tool=github.com/toolcat/toolcat/cmd/toolcat
  go mod tidy`

const starterCatalog = `# yaml-language-server: $schema=` + schemaURL + `
#
# Offline, or at another version: toolcat schema > catalog/catalog.schema.json
# and point $schema at ./catalog.schema.json.
#
# The tools of this package. After a change: go generate ./...
# Format: https://github.com/toolcat/toolcat/blob/main/docs/catalog.md
package: %s
tools:
  get_current_time:
    description: |
      Returns the current date and time in a time zone.
      Use when: the user asks what time or day it is somewhere.
      Do not use: to convert a time given by the user; this tool only reads the clock.
    version: 1.0.0
    args:
      type: object
      additionalProperties: false
      required: [time_zone]
      properties:
        time_zone:
          type: string
          pattern: "^[A-Za-z_]+(/[A-Za-z_]+)*$"
          description: IANA time zone name, such as Europe/Rome or UTC.
    result:
      type: object
      additionalProperties: false
      required: [time]
      properties:
        time:
          type: string
          format: date-time
          description: The current time in that zone.
    errors:
      not_found:
        suggestion: No such time zone. Use an IANA name such as Europe/Rome.
    examples:
      - args: {time_zone: UTC}
`

// starterGenerate is generate.go. Its directive is assembled so that
// go generate, which reads every line of this file too, does not run it.
const starterGenerate = `package %s

// The catalog in ./catalog is compiled into the *_gen.go files of this
// package, and written as the model reads it into ./docs.
` + "//go:" + "generate go tool toolcat gen ./catalog\n" +
	"//go:" + "generate go tool toolcat docs --out docs ./catalog\n"

// schemaURL serves the format's JSON Schema for editors; toolcat schema
// writes the same file for the version installed.
const schemaURL = "https://raw.githubusercontent.com/toolcat/toolcat/main/catalog/catalog.schema.json"

func runInit(e *env, args []string) int {
	fs := newFlags(e, "init", "", initDoc)
	dir := fs.String("dir", ".", "directory of the new tool package")
	pkg := fs.String("package", "", "Go package name (default: from the directory's name)")
	if code := parse(e, fs, args); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(e.stderr, "toolcat init: takes no arguments; use --dir")
		return exitUsage
	}
	name := *pkg
	if name == "" {
		abs, err := filepath.Abs(*dir)
		if err != nil {
			fmt.Fprintf(e.stderr, "toolcat init: %v\n", err)
			return exitUsage
		}
		name = packageName(filepath.Base(abs))
	}
	if !isPackageName(name) {
		fmt.Fprintf(e.stderr, "toolcat init: %q is not a Go package name; use --package\n", name)
		return exitUsage
	}
	files := []struct{ path, data string }{
		{filepath.Join(*dir, "catalog", "tools.yaml"), fmt.Sprintf(starterCatalog, name)},
		{filepath.Join(*dir, "generate.go"), fmt.Sprintf(starterGenerate, name)},
	}
	for _, f := range files {
		if _, err := os.Stat(f.path); err == nil {
			fmt.Fprintf(e.stderr, "toolcat init: %s exists; nothing written\n", f.path)
			return exitUsage
		}
	}
	for _, f := range files {
		if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
			fmt.Fprintf(e.stderr, "toolcat init: %v\n", err)
			return exitUsage
		}
		if err := os.WriteFile(f.path, []byte(f.data), 0o644); err != nil {
			fmt.Fprintf(e.stderr, "toolcat init: %v\n", err)
			return exitUsage
		}
		fmt.Fprintf(e.stdout, "created %s\n", f.path)
	}
	fmt.Fprintln(e.stdout, "next: go get -tool github.com/toolcat/toolcat/cmd/toolcat && go generate ./... && go mod tidy")
	fmt.Fprintln(e.stdout, "  (toolcat from a local checkout: see toolcat init -h)")
	return exitOK
}

// packageName makes a Go package name of a directory name: lower case,
// letters and digits only.
func packageName(dir string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(dir) {
		if r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
		}
	}
	s := b.String()
	if s == "" || !unicode.IsLetter(rune(s[0])) {
		s = "tools" + s
	}
	return s
}

func isPackageName(s string) bool {
	if s == "" || !unicode.IsLetter(rune(s[0])) {
		return false
	}
	for _, r := range s {
		if r >= 0x80 || !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_') {
			return false
		}
	}
	return true
}
