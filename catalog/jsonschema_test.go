package catalog

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// The committed catalog.schema.json is what FormatJSONSchema generates.
func TestFormatJSONSchemaCommitted(t *testing.T) {
	got, err := FormatJSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("catalog.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("catalog/catalog.schema.json is stale: run make generate")
	}
}

// The format's JSON Schema accepts the example catalogs and rejects what
// the CUE definition rejects, so editors and toolcat agree.
func TestFormatJSONSchemaAgreesWithLoader(t *testing.T) {
	raw, err := FormatJSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(FormatSchemaID, doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile(FormatSchemaID)
	if err != nil {
		t.Fatal(err)
	}
	validate := func(src string) error {
		var v any
		if err := yaml.Unmarshal([]byte(src), &v); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(v)
		inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		return schema.Validate(inst)
	}
	examples, _ := filepath.Glob("../examples/*/catalog/*.yaml")
	if len(examples) == 0 {
		t.Fatal("no example catalogs found")
	}
	for _, name := range examples {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := validate(string(data)); err != nil {
			t.Errorf("%s: rejected by the format's JSON Schema: %v", name, err)
		}
		if _, err := LoadFiles(File{Name: name, Data: data}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, bad := range []string{
		"tools: {list_items: {description: x, risk: lowish}}",
		"tools: {list_items: {description: x, desciption: y}}",
		"tools: {list_items: {risk: low}}",
		"tools: {list_items: {description: x, errors: {bogus_code: {suggestion: s}}}}",
		"tools: [{description: x}]",
		"packages: {}",
		"agent: {name: x}",
		"tools: {get user: {description: x}}",
		"tools: [{name: get.user!, description: x}]",
	} {
		if err := validate(bad); err == nil {
			t.Errorf("accepted by the format's JSON Schema: %s", bad)
		}
		if _, err := LoadFiles(File{Name: "bad.yaml", Data: []byte(bad)}); err == nil {
			t.Errorf("accepted by the loader: %s", bad)
		}
	}
	for _, good := range []string{
		"tools: [{name: list_items, description: x}]",
		"version: \"1.0\"\nagent: chat\nreviewed: true\nrevision: 3\ntools: {getComment: {description: x}, search.web: {description: x}}",
	} {
		if err := validate(good); err != nil {
			t.Errorf("rejected by the format's JSON Schema: %s: %v", good, err)
		}
		if _, err := LoadFiles(File{Name: "good.yaml", Data: []byte(good)}); err != nil {
			t.Errorf("rejected by the loader: %s: %v", good, err)
		}
	}
	// A likely typo of a field is metadata to the JSON Schema, which
	// cannot tell; the loader refuses it.
	if _, err := LoadFiles(File{Name: "typo.yaml", Data: []byte("packages: x")}); err == nil {
		t.Error("packages: x accepted by the loader")
	}
	if !strings.Contains(string(raw), `"default": "reject"`) {
		t.Error("defaults are missing from the format's JSON Schema")
	}
}
