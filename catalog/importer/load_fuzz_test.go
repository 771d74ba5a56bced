package importer_test

import (
	"strings"
	"testing"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/catalog/importer"
)

// FuzzImportLoads checks that whatever Build writes loads as a catalog,
// unless the source's own schemas are not valid JSON Schema: then only
// they are reported.
func FuzzImportLoads(f *testing.F) {
	f.Add(`{"tools":[{"name":"getUser","description":"x\ny","inputSchema":{"type":"object","definitions":{"a":{"type":"dict"}},"properties":{"x":{"$ref":"#/definitions/a"}}},"annotations":{"readOnlyHint":true}}]}`)
	f.Add(`[{"type":"function","function":{"name":"a-b","parameters":{"type":"object","properties":{"n":{"type":"int","minimum":1,"exclusiveMinimum":true}}}}}]`)
	f.Add(`[{"name":"t","input_schema":{"type":"object"},"input_examples":[{"a":1}],"cache_control":{"type":"ephemeral"}}]`)
	f.Add(`{"type":"object","title":"x.y","items":[{"type":"tuple"}],"dependencies":{"a":["b"]}}`)
	f.Add(`{"tools":[{"name":"f","inputSchema":{"type":"object","properties":{"a":{"type":"string","default":null},"b":{"type":"boolean","default":"false"},"c":{"type":"","enum":["x"],"default":"dontcare"},"d":{"type":"integer","default":"None","minimum":3}}}}]}`)
	f.Add(`[{"name":"g","parameters":{"type":"object","properties":{"e":{"type":["int","foo"],"enum":[1,"a",99999999999999999999]},"t":{"type":"string","format":"date-time","const":"x"}}}}]`)
	f.Fuzz(func(t *testing.T, in string) {
		tools, err := importer.Parse("f.json", strings.NewReader(in))
		if err != nil {
			return
		}
		res, err := importer.Build(tools, importer.Options{})
		if err != nil {
			t.Fatalf("Build: %v", err)
		}
		_, err = catalog.LoadFiles(catalog.File{Name: "tools.yaml", Data: res.YAML})
		if err == nil {
			return
		}
		var list catalog.ErrorList
		if !errorsAs(err, &list) {
			t.Fatalf("Load: %v\n%s", err, res.YAML)
		}
		for _, e := range list {
			msg := e.Error()
			if !strings.Contains(msg, ".args") && !strings.Contains(msg, ".result") && !strings.Contains(msg, ".examples") && !strings.Contains(msg, "schema") {
				t.Fatalf("Load reports a problem outside the source's schemas: %v\n%s", msg, res.YAML)
			}
		}
	})
}

func errorsAs(err error, list *catalog.ErrorList) bool {
	l, ok := err.(catalog.ErrorList)
	if ok {
		*list = l
	}
	return ok
}
