package main

import (
	"fmt"

	"github.com/toolcat/toolcat/catalog"
)

const schemaDoc = `
Print the JSON Schema of the catalog format, generated from its CUE
definition. Point YAML editors at it to complete and check catalogs:

    # yaml-language-server: $schema=<path or URL of catalog.schema.json>`

func runSchema(e *env, args []string) int {
	fs := newFlags(e, "schema", "", schemaDoc)
	if code := parse(e, fs, args); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(e.stderr, "toolcat schema: takes no arguments")
		return exitUsage
	}
	b, err := catalog.FormatJSONSchema()
	if err != nil {
		fmt.Fprintf(e.stderr, "toolcat schema: %v\n", err)
		return exitUsage
	}
	e.stdout.Write(b)
	return exitOK
}
