package lint

import (
	"strings"

	"github.com/toolcat/toolcat/catalog"
)

// SchemaLimitBounded checks that counts and limits cannot ask for everything.
var SchemaLimitBounded = &Rule{
	ID:       "SCHEMA_LIMIT_BOUNDED",
	Category: "schemas",
	Purpose:  "Checks that numeric arguments that are limits or counts (max_*, limit, count, page_size, per_page...; configurable: limit_names, matched on the whole name, a prefix ending in _, or the last word) have both a minimum and a maximum, so the model cannot ask for zero or for everything.",
	Check:    forEachProperty(true, checkSchemaLimitBounded),
}

func checkSchemaLimitBounded(p *Pass, t *catalog.Tool, pr propRef) {
	s := pr.Schema
	if s == nil || !(hasType(s, "integer") || hasType(s, "number")) || s.Get("enum") != nil || s.Get("const") != nil {
		return
	}
	if !isLimitName(p.Config, pr.Name) {
		return
	}
	hasMin := s.Get("minimum") != nil || s.Get("exclusiveMinimum") != nil
	hasMax := s.Get("maximum") != nil || s.Get("exclusiveMaximum") != nil
	var missing string
	switch {
	case !hasMin && !hasMax:
		missing = "no minimum or maximum"
	case !hasMax:
		missing = "no maximum"
	case !hasMin:
		missing = "no minimum"
	default:
		return
	}
	p.Reportf(t, pr.Field.KeyPos, "limit %q has %s; bound it, such as \"minimum\": 1, \"maximum\": 100, so the model cannot ask for zero or for everything", pr.Name, missing)
}

func isLimitName(cfg *Config, name string) bool {
	snake := snakeCase(name)
	words := nameWords(name)
	if len(words) == 0 {
		return false
	}
	last := words[len(words)-1]
	for _, l := range cfg.LimitNames {
		if strings.HasSuffix(l, "_") {
			if strings.HasPrefix(snake, l) {
				return true
			}
			continue
		}
		if snake == l || last == l || strings.HasSuffix(snake, "_"+l) {
			return true
		}
	}
	return false
}
