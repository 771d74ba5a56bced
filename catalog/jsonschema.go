package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/format"
	"cuelang.org/go/encoding/jsonschema"
)

// FormatSchemaID is the $id of the catalog format's JSON Schema.
const FormatSchemaID = "https://github.com/toolcat/toolcat/catalog/catalog.schema.json"

// FormatJSONSchema returns the catalog format as a JSON Schema (2020-12),
// generated from the embedded CUE definition, for editors that complete
// and check YAML catalogs (yaml-language-server's $schema comment).
func FormatJSONSchema() ([]byte, error) {
	ctx := cuecontext.New()
	v := ctx.CompileBytes(formatSource, cue.Filename(formatFile))
	if err := v.Err(); err != nil {
		return nil, err
	}
	m, err := generate(v, "#Catalog")
	if err != nil {
		return nil, err
	}
	// The generator inlines the definitions only patterns refer to.
	defs, _ := m["$defs"].(map[string]any)
	for _, name := range []string{"#ErrorHint"} {
		d, err := generate(v, name)
		if err != nil {
			return nil, err
		}
		delete(d, "$schema")
		defs[name[1:]] = d
	}
	m["$id"] = FormatSchemaID
	m["title"] = "toolcat catalog"
	fixSchema(m, v)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// generate returns the JSON Schema of one definition of the format.
func generate(spec cue.Value, def string) (map[string]any, error) {
	expr, err := jsonschema.Generate(spec.LookupPath(cue.MakePath(cue.Def(def))), &jsonschema.GenerateConfig{})
	if err != nil {
		return nil, fmt.Errorf("generating the JSON Schema of %s: %w", def, err)
	}
	src, err := format.Node(expr)
	if err != nil {
		return nil, err
	}
	sv := spec.Context().CompileBytes(src)
	if err := sv.Err(); err != nil {
		return nil, err
	}
	raw, err := sv.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var m map[string]any
	err = json.Unmarshal(raw, &m)
	return m, err
}

// fixSchema mends what the generator cannot say: a field with a default
// comes out as anyOf [constraint, default], which becomes the constraint
// with a "default" keyword; the errors map is keyed by error code; the
// other top-level fields are metadata; and YAML and JSON catalogs may list
// their tools.
func fixSchema(m map[string]any, format cue.Value) {
	fixDefaults(m, format.LookupPath(cue.MakePath(cue.Def("#Catalog"))))
	defs, _ := m["$defs"].(map[string]any)
	for name, d := range defs {
		if dm, ok := d.(map[string]any); ok {
			fixDefaults(dm, format.LookupPath(cue.MakePath(cue.Def("#"+name))))
		}
	}
	if tool, ok := defs["Tool"].(map[string]any); ok {
		props := tool["properties"].(map[string]any)
		errs := props["errors"].(map[string]any)
		delete(errs, "additionalProperties")
		errs["propertyNames"] = map[string]any{"$ref": "#/$defs/ErrorCode"}
		errs["additionalProperties"] = map[string]any{"$ref": "#/$defs/ErrorHint"}
	}
	// The generator cannot express the pattern of the catalog metadata
	// (every name but the declared fields); what it matches is the rest.
	m["additionalProperties"] = map[string]any{
		"description": "Catalog metadata, such as version, agent or last_updated.",
		"type":        []any{"string", "number", "boolean"},
	}
	props := m["properties"].(map[string]any)
	if tools, ok := props["tools"].(map[string]any); ok {
		desc := tools["description"]
		delete(tools, "description")
		props["tools"] = map[string]any{
			"description": desc,
			"anyOf": []any{tools, map[string]any{
				"type":  "array",
				"items": map[string]any{"$ref": "#/$defs/Tool", "required": []any{"name"}},
			}},
		}
	}
}

func fixDefaults(schema map[string]any, def cue.Value) {
	props, _ := schema["properties"].(map[string]any)
	for name, p := range props {
		pm, ok := p.(map[string]any)
		if !ok {
			continue
		}
		alts, ok := pm["anyOf"].([]any)
		if !ok || len(alts) != 2 {
			continue
		}
		dv, ok := def.LookupPath(cue.MakePath(cue.Str(name))).Default()
		if !ok || !dv.IsConcrete() {
			continue
		}
		var dflt any
		raw, err := dv.MarshalJSON()
		if err != nil || json.Unmarshal(raw, &dflt) != nil {
			continue
		}
		first, ok := alts[0].(map[string]any)
		if !ok {
			continue
		}
		delete(pm, "anyOf")
		for k, x := range first {
			pm[k] = x
		}
		pm["default"] = dflt
	}
}
