package lint

import (
	"github.com/toolcat/toolcat/catalog"
)

// SchemaComplexity keeps argument schemas within what a model fills well.
var SchemaComplexity = &Rule{
	ID:       "SCHEMA_COMPLEXITY",
	Category: "schemas",
	Purpose:  "Checks that args schemas nest objects and arrays at most max_schema_depth levels and that no object has more than max_properties properties: models fill deep or wide schemas badly.",
	Check:    forEachTool(checkSchemaComplexity),
}

func checkSchemaComplexity(p *Pass, t *catalog.Tool) {
	deepReported := false
	walkSchema(t, "args", func(s schemaRef) bool {
		if s.Depth > p.Config.MaxSchemaDepth {
			if !deepReported {
				p.Reportf(t, s.KeyPos, "args nest %d levels deep at %s, more than %d; flatten the structure or split the tool", s.Depth, s.where(), p.Config.MaxSchemaDepth)
				deepReported = true
			}
			return false
		}
		if props := s.Node.Get("properties"); props != nil && props.Kind == catalog.Object && len(props.Fields) > p.Config.MaxProperties {
			p.Reportf(t, s.KeyPos, "%s has %d properties, more than %d; split the tool or group related properties", s.where(), len(props.Fields), p.Config.MaxProperties)
		}
		return true
	})
}
