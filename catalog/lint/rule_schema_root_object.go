package lint

import (
	"github.com/toolcat/toolcat/catalog"
)

// SchemaRootObject checks the shape every provider requires of arguments.
var SchemaRootObject = &Rule{
	ID:       "SCHEMA_ROOT_OBJECT",
	Category: "schemas",
	Purpose:  "Checks that a tool's args schema is an object schema (\"type\": \"object\"), the only top level OpenAI, Anthropic, Gemini and MCP accept for tool input.",
	Check:    forEachTool(checkSchemaRootObject),
}

func checkSchemaRootObject(p *Pass, t *catalog.Tool) {
	a := t.Args
	if a == nil {
		return
	}
	if a.Kind != catalog.Object {
		p.Reportf(t, t.PosOf("args"), "args must be an object schema, not a %s; write {type: object, properties: {...}}", a.Kind)
		return
	}
	types := a.SchemaTypes()
	switch {
	case a.Get("type") == nil:
		p.Reportf(t, t.PosOf("args"), "args schema does not say \"type\": \"object\"; add it, providers require an object at the top")
	case len(types) != 1 || types[0] != "object":
		p.Reportf(t, a.KeyPos("type"), "args schema has type %s; tool arguments must be one object: use \"type\": \"object\" and put the value in a property", a.Get("type").JSON())
	}
}
