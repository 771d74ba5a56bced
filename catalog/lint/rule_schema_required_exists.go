package lint

import (
	"github.com/toolcat/toolcat/catalog"
)

// SchemaRequiredExists catches required names that no property declares.
var SchemaRequiredExists = &Rule{
	ID:       "SCHEMA_REQUIRED_EXISTS",
	Category: "schemas",
	Purpose:  "Checks that every name listed in required is a declared property, in objects that declare properties and have no additionalProperties or patternProperties schema: such a name is a typo that makes every call fail.",
	Check:    forEachSchema(false, checkSchemaRequiredExists),
}

func checkSchemaRequiredExists(p *Pass, t *catalog.Tool, s schemaRef) {
	n := s.Node
	req, props := n.Get("required"), n.Get("properties")
	if req == nil || req.Kind != catalog.Array || props == nil || props.Kind != catalog.Object {
		return
	}
	if n.Get("patternProperties") != nil {
		return
	}
	if ap := n.Get("additionalProperties"); ap != nil && ap.Kind == catalog.Object {
		return
	}
	var names []string
	for _, f := range props.Fields {
		names = append(names, f.Key)
	}
	for _, it := range req.Items {
		if it.Kind != catalog.String || props.Get(it.Str) != nil {
			continue
		}
		p.Reportf(t, it.Pos, "required names %q, which is not a property of %s%s", it.Str, s.where(), didYouMean(it.Str, names))
	}
}
