package export

import "github.com/toolcat/toolcat/runtime"

// MCPAnnotations are the behaviour hints of an MCP tool (ToolAnnotations
// in the MCP schema). MCP reads a missing hint as its most cautious value
// (destructiveHint and openWorldHint default to true), so MCP writes every
// hint explicitly.
type MCPAnnotations struct {
	// ReadOnlyHint: the tool does not modify its environment.
	ReadOnlyHint bool
	// DestructiveHint: the tool may perform destructive updates; false
	// means its updates are additive or can be undone. Meaningful only
	// when ReadOnlyHint is false.
	DestructiveHint bool
	// IdempotentHint: calling it again with the same arguments has no
	// further effect. Meaningful only when ReadOnlyHint is false.
	IdempotentHint bool
	// OpenWorldHint: the tool interacts with an open world of outside
	// entities, such as the web, rather than a closed domain.
	OpenWorldHint bool
}

// AnnotationsOf derives a tool's MCP hints from its catalog metadata:
//
//   - readOnlyHint = !has_side_effects
//   - destructiveHint = Meta.Destructive: false for a read-only tool and
//     for side_effect additive (MCP's "additive updates"), true for
//     overwrites and destructive; a catalog that does not say keeps the
//     older reading: a side effect is destructive unless the tool can
//     undo it, and a high-risk one always is
//   - idempotentHint = idempotent
//   - openWorldHint = returns_untrusted: the tool reads content that
//     outsiders control (web pages, e-mail, user uploads); a tool that only
//     talks to the team's own services works in a closed domain
func AnnotationsOf(m *runtime.Meta) MCPAnnotations {
	return MCPAnnotations{
		ReadOnlyHint:    !m.HasSideEffects,
		DestructiveHint: m.Destructive(),
		IdempotentHint:  m.Idempotent,
		OpenWorldHint:   m.ReturnsUntrusted,
	}
}

// MCP returns the result of an MCP tools/list request:
//
//	{"tools": [{"name", "description", "inputSchema", "outputSchema", "annotations"}]}
//
// inputSchema is the args schema as the catalog wrote it. outputSchema is
// the result schema, the shape of the data of a successful call (the
// envelope's "data", which an MCP server returns as structuredContent),
// written when it is an object schema, as MCP requires; for a tool returning
// untrusted output too, since the untrusted block wraps the envelope and
// leaves the data as the tool returned it. annotations holds the hints of
// AnnotationsOf, every one written.
//
// MCP has no deferred tools (a client lists what tools/list returns): with
// DeferHidden MCP returns an error wrapping ErrDeferUnsupported.
func MCP(metas []runtime.Meta, opts ...Option) ([]byte, error) {
	o := newOptions(opts)
	if o.deferHidden {
		return nil, deferUnsupported("MCP", "a tools/list result has no deferred tools; a client lists every tool it is given")
	}
	tools, err := prepare(metas, o, mcpNames)
	if err != nil {
		return nil, err
	}
	list := array()
	for _, t := range tools {
		o := withDescription(object().set("name", str(t.meta.WireName())), t.desc)
		o.set("inputSchema", t.args)
		if t.result != nil && t.result.get("type").text() == "object" {
			o.set("outputSchema", t.result)
		}
		a := AnnotationsOf(t.meta)
		o.set("annotations", object().
			set("readOnlyHint", boolean(a.ReadOnlyHint)).
			set("destructiveHint", boolean(a.DestructiveHint)).
			set("idempotentHint", boolean(a.IdempotentHint)).
			set("openWorldHint", boolean(a.OpenWorldHint)))
		list.items = append(list.items, o)
	}
	return render(object().set("tools", list)), nil
}
