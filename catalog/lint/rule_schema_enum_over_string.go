package lint

import (
	"regexp"
	"slices"

	"github.com/toolcat/toolcat/catalog"
)

// SchemaEnumOverString asks for enums where a free string invites guessing.
var SchemaEnumOverString = &Rule{
	ID:       "SCHEMA_ENUM_OVER_STRING",
	Category: "schemas",
	Purpose: "Checks that string arguments whose name suggests a closed set of values (status, mode, type, sort_order, output_format...; configurable: enum_hint_names) list their values with enum; a string with enum, const, pattern or format is fine. " +
		"A hint name matches the whole argument name; the last word of a longer name matches only for words that stay closed in compounds (status, mode, order, format, level...), since entity_type or secret_type are usually open vocabularies. " +
		"Strings described as an id or identifier are left alone.",
	Check: forEachProperty(true, checkSchemaEnumOverString),
}

// closedInCompounds are hint words that still name a closed set as the
// last word of a longer name: sort_order, output_format, log_level.
var closedInCompounds = map[string]bool{
	"status": true, "state": true, "mode": true, "order": true, "direction": true, "format": true,
	"level": true, "unit": true, "units": true, "priority": true, "severity": true,
	"visibility": true, "granularity": true, "interval": true, "period": true, "strategy": true,
	"sort": true,
}

// idWords finds descriptions of identifiers, which are open by nature.
var idWords = regexp.MustCompile(`(?i)\b(id|ids|identifier|identifiers|uuid)\b`)

func checkSchemaEnumOverString(p *Pass, t *catalog.Tool, pr propRef) {
	s := pr.Schema
	if s == nil || !hasType(s, "string") {
		return
	}
	for _, kw := range []string{"enum", "const", "pattern", "format", "$ref", "anyOf", "oneOf"} {
		if s.Get(kw) != nil {
			return
		}
	}
	words := nameWords(pr.Name)
	if len(words) == 0 {
		return
	}
	last := words[len(words)-1]
	if !slices.Contains(p.Config.EnumHintNames, snakeCase(pr.Name)) &&
		!(len(words) > 1 && slices.Contains(p.Config.EnumHintNames, last) && closedInCompounds[last]) {
		return
	}
	if d, _ := s.Get("description").StringValue(); idWords.MatchString(d) {
		return
	}
	p.Reportf(t, pr.Field.KeyPos, "string property %q looks like a closed set of values; list them with \"enum\" so the model cannot guess", pr.Name)
}
