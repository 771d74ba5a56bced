package scalebench

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/toolcat/toolcat/catalog"
	"go.yaml.in/yaml/v3"
)

// OpenAPIVersion is the version of the OpenAPI documents [OpenAPI] writes.
// OpenAPI 3.1 schemas are JSON Schema 2020-12, the dialect of a catalog,
// and oapi-codegen v2.8 reads 3.1 (const, type arrays, prefixItems,
// $defs), so the schemas are copied without translation.
const OpenAPIVersion = "3.1.0"

// OpenAPI returns the OpenAPI twin of cat as YAML: one operation per tool,
// POST /tools/<name> with operationId the tool's name, a request body
// (application/json) holding the tool's args schema and a 200 response
// holding its result schema, or a plain object when the catalog states
// none.
//
// A schema is copied as the catalog holds it, but for local references:
// a tool's "$defs" move to components/schemas, named <tool>__<def>, and
// every "$ref" to "#/$defs/<def>" is rewritten to point there, since "#" in
// an OpenAPI document is the document, not the schema. Any other local
// reference is an error.
func OpenAPI(cat *catalog.Catalog) ([]byte, error) {
	paths := mapping()
	components := mapping()
	for _, t := range cat.Tools {
		args, err := schemaNode(t.Name, t.Args, components)
		if err != nil {
			return nil, fmt.Errorf("tool %s: args: %w", t.Name, err)
		}
		var result *yaml.Node
		if t.Result != nil {
			if result, err = schemaNode(t.Name, t.Result, components); err != nil {
				return nil, fmt.Errorf("tool %s: result: %w", t.Name, err)
			}
		} else {
			result = mapping()
			add(result, "type", str("object"))
		}
		summary := t.Description
		if i := strings.IndexByte(summary, '\n'); i >= 0 {
			summary = summary[:i]
		}
		op := mapping()
		add(op, "operationId", str(t.Name))
		add(op, "summary", str(summary))
		add(op, "requestBody", jsonContent("required", true, args))
		ok := jsonContent("description", "The tool's result.", result)
		responses := mapping()
		add(responses, "200", ok)
		add(op, "responses", responses)
		item := mapping()
		add(item, "post", op)
		add(paths, "/tools/"+t.Name, item)
	}
	doc := mapping()
	add(doc, "openapi", str(OpenAPIVersion))
	info := mapping()
	add(info, "title", str("Tools of package "+cat.Package))
	add(info, "version", str("1.0.0"))
	add(doc, "info", info)
	add(doc, "paths", paths)
	if len(components.Content) > 0 {
		c := mapping()
		add(c, "schemas", components)
		add(doc, "components", c)
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// jsonContent is a request body or response: {key: value, content:
// {application/json: {schema: schema}}}.
func jsonContent(key string, value any, schema *yaml.Node) *yaml.Node {
	n := mapping()
	switch v := value.(type) {
	case bool:
		add(n, key, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(v)})
	case string:
		add(n, key, str(v))
	}
	media := mapping()
	add(media, "schema", schema)
	content := mapping()
	add(content, "application/json", media)
	add(n, "content", content)
	return n
}

// schemaNode converts a tool's schema, moving its $defs into components.
func schemaNode(tool string, s *catalog.Node, components *yaml.Node) (*yaml.Node, error) {
	if s == nil {
		n := mapping()
		add(n, "type", str("object"))
		return n, nil
	}
	if defs := s.Get("$defs"); defs != nil {
		if defs.Kind != catalog.Object {
			return nil, fmt.Errorf("$defs is a %s, not an object", defs.Kind)
		}
		for _, f := range defs.Fields {
			d, err := convert(tool, f.Value, false)
			if err != nil {
				return nil, fmt.Errorf("$defs/%s: %w", f.Key, err)
			}
			add(components, defName(tool, f.Key), d)
		}
	}
	return convert(tool, s, true)
}

func defName(tool, def string) string { return tool + "__" + def }

// convert turns a JSON value of tool's schema into YAML; at the root of
// the schema (root true) the $defs member is left out, since schemaNode
// moved it.
func convert(tool string, n *catalog.Node, root bool) (*yaml.Node, error) {
	switch n.Kind {
	case catalog.Null:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	case catalog.Bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(n.Bool)}, nil
	case catalog.Number:
		tag := "!!int"
		if strings.ContainsAny(n.Num, ".eE") {
			tag = "!!float"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: n.Num}, nil
	case catalog.String:
		return str(n.Str), nil
	case catalog.Array:
		out := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, it := range n.Items {
			c, err := convert(tool, it, false)
			if err != nil {
				return nil, err
			}
			out.Content = append(out.Content, c)
		}
		return out, nil
	case catalog.Object:
		out := mapping()
		for _, f := range n.Fields {
			if root && f.Key == "$defs" {
				continue
			}
			if f.Key == "$ref" && f.Value.Kind == catalog.String {
				ref, err := rewriteRef(tool, f.Value.Str)
				if err != nil {
					return nil, err
				}
				add(out, f.Key, str(ref))
				continue
			}
			c, err := convert(tool, f.Value, false)
			if err != nil {
				return nil, err
			}
			add(out, f.Key, c)
		}
		return out, nil
	}
	return nil, fmt.Errorf("a JSON value of unknown kind %d", n.Kind)
}

func rewriteRef(tool, ref string) (string, error) {
	if !strings.HasPrefix(ref, "#") {
		return ref, nil
	}
	def, ok := strings.CutPrefix(ref, "#/$defs/")
	if !ok || def == "" || strings.ContainsAny(def, "/~%") {
		return "", fmt.Errorf("$ref %q: only references to #/$defs/<name> have an OpenAPI form here", ref)
	}
	return "#/components/schemas/" + defName(tool, def), nil
}

func mapping() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"} }

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func add(m *yaml.Node, key string, v *yaml.Node) {
	m.Content = append(m.Content, str(key), v)
}
