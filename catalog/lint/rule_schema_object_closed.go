package lint

import (
	"regexp"

	"github.com/toolcat/toolcat/catalog"
)

// SchemaObjectClosed checks that argument objects list every field they take.
var SchemaObjectClosed = &Rule{
	ID:       "SCHEMA_OBJECT_CLOSED",
	Category: "schemas",
	Purpose: "Checks that argument objects are closed (\"additionalProperties\": false or \"unevaluatedProperties\": false) so the model cannot invent fields. " +
		"Objects that set additionalProperties or unevaluatedProperties themselves (maps, or open on purpose), branches of allOf (closed by their parent with unevaluatedProperties) and objects without properties of their own whose anyOf, oneOf or allOf branches declare them are left alone. " +
		"At the top level the tool's additional_args decides: with reject (the default) the args object must be closed, so the model sees the contract the runtime enforces; " +
		"with strip or allow undeclared arguments are expected, so an open top level is intended, and a closed one contradicts allow.",
	Check: forEachSchema(true, checkSchemaObjectClosed),
}

func checkSchemaObjectClosed(p *Pass, t *catalog.Tool, s schemaRef) {
	n := s.Node
	closed := isFalse(n, "additionalProperties") || isFalse(n, "unevaluatedProperties")
	if s.Ptr == "" {
		switch t.AdditionalArgs {
		case "allow":
			if isFalse(n, "additionalProperties") {
				p.Reportf(t, t.PosOf("additional_args"), "additional_args: allow has no effect while args says \"additionalProperties\": false; remove one of them")
			}
			return
		case "strip":
			return
		}
	}
	if closed || !isObjectSchema(n) {
		return
	}
	if s.Ptr == "" {
		p.Reportf(t, s.KeyPos, "args object is open; add \"additionalProperties\": false, as additional_args: reject refuses undeclared arguments anyway (or set additional_args: strip or allow)")
		return
	}
	if n.Get("additionalProperties") != nil || n.Get("unevaluatedProperties") != nil || allOfBranch.MatchString(s.Ptr) {
		return // open or a map on purpose, or closed by its parent
	}
	if n.Get("properties") == nil && (n.Get("oneOf") != nil || n.Get("anyOf") != nil || n.Get("allOf") != nil) {
		return // its branches say which members it takes
	}
	p.Reportf(t, s.KeyPos, "object at %s is open; add \"additionalProperties\": false so the model cannot invent fields, or give additionalProperties a schema if it is a map", s.where())
}

// allOfBranch matches the pointer of an allOf branch.
var allOfBranch = regexp.MustCompile(`/allOf/[0-9]+$`)
