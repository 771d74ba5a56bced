package lint

import (
	"regexp"
	"slices"
	"strings"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/runtime/export"
)

// SchemaStrictMode tells which tools lose OpenAI's strict mode.
var SchemaStrictMode = &Rule{
	ID:       "SCHEMA_STRICT_MODE",
	Category: "schemas",
	Purpose: "Notes, once per tool, args schemas that OpenAI strict mode (structured outputs) cannot take, so the exporter sends strict: false and the model's arguments are not guaranteed to match. " +
		"The verdict is the exporter's own (runtime/export.StrictProblem): every object closed with \"additionalProperties\": false and every property in required (optional ones typed [T, \"null\"]), " +
		"one type per schema (or one and null), arrays with items, a $ref alone, only the keywords and string formats OpenAI supports (default, minLength, maxLength and uniqueItems are not), and its size limits. " +
		"Only checked when providers lists openai.",
	// The exporter's check costs enough, on large catalogs, to share the
	// tools among workers.
	Check: forEachToolParallel(func() struct{} { return struct{}{} }, checkSchemaStrictMode),
}

// strictAt finds the keyword, the property and the pointer ("at /a/b" or
// "at the top") in the exporter's reason.
var strictAt = regexp.MustCompile(`^(?:"([^"]+)")?(?:.*?property "([^"]+)")?.*? at (/\S*|the top)`)

func checkSchemaStrictMode(p *Pass, _ struct{}, t *catalog.Tool) {
	if !slices.Contains(p.Config.Providers, "openai") || t.Args == nil || t.Args.Kind != catalog.Object {
		return
	}
	args := t.Args
	if hasAnnotations(args) {
		args = withoutAnnotations(args)
	}
	problem := export.StrictProblem(args.JSON())
	if problem == "" {
		return
	}
	pos := t.PosOf("args")
	if m := strictAt.FindStringSubmatch(problem); m != nil {
		ptr := strings.TrimRight(m[3], ",;:")
		if ptr == "the top" {
			ptr = ""
		}
		if n := t.Args.Lookup(ptr); n != nil {
			if ptr != "" {
				pos = n.Pos
			}
			switch {
			case m[1] != "" && n.Get(m[1]) != nil:
				pos = n.KeyPos(m[1])
			case m[2] != "" && n.Get("properties") != nil:
				pos = n.Get("properties").KeyPos(m[2])
			}
		}
	}
	p.Reportf(t, pos, "args are not openai strict-compatible: %s; the exporter will send strict: false", problem)
}

// hasAnnotations reports whether "$schema" or "$comment" appear anywhere
// in n.
func hasAnnotations(n *catalog.Node) bool {
	found := false
	n.Walk(func(_ string, x *catalog.Node) bool {
		if x.Kind == catalog.Object && (x.Get("$schema") != nil || x.Get("$comment") != nil) {
			found = true
		}
		return !found
	})
	return found
}

// withoutAnnotations returns the schema as the OpenAI exporter sends it:
// without "$schema" and "$comment", wherever they are.
func withoutAnnotations(n *catalog.Node) *catalog.Node {
	switch n.Kind {
	case catalog.Object:
		c := *n
		c.Fields = nil
		for _, f := range n.Fields {
			if f.Key == "$schema" || f.Key == "$comment" {
				continue
			}
			c.Fields = append(c.Fields, &catalog.Field{Key: f.Key, KeyPos: f.KeyPos, Value: withoutAnnotations(f.Value)})
		}
		return &c
	case catalog.Array:
		c := *n
		c.Items = make([]*catalog.Node, len(n.Items))
		for i, it := range n.Items {
			c.Items[i] = withoutAnnotations(it)
		}
		return &c
	}
	return n
}
