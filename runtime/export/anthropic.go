package export

import "github.com/toolcat/toolcat/runtime"

// Anthropic returns the "tools" array of an Anthropic Messages API request:
//
//	[{"name", "description", "input_schema"}]
//
// input_schema is the args schema as the catalog wrote it: Anthropic takes
// JSON Schema 2020-12 and needs only "type": "object" at the top, which
// every args schema has.
//
// With DeferHidden, hidden tools are included with "defer_loading": true,
// and the tool-search tool ({"type": "tool_search_tool_bm25_20251119",
// "name": "tool_search_tool_bm25"}, or the regex variant) comes last, so
// that the last entry, where a host puts its cache_control breakpoint, is
// never a deferred tool (which the API refuses it on).
func Anthropic(metas []runtime.Meta, opts ...Option) ([]byte, error) {
	o := newOptions(opts)
	tools, err := prepare(metas, o, anthropicNames)
	if err != nil {
		return nil, err
	}
	search, err := anthropicSearchTool(o, tools)
	if err != nil {
		return nil, err
	}
	out := array()
	for _, t := range tools {
		def := withDescription(object().set("name", str(t.meta.WireName())), t.desc)
		def.set("input_schema", t.args)
		if o.deferred(t) {
			def.set("defer_loading", boolean(true))
		}
		out.items = append(out.items, def)
	}
	if search != nil {
		out.items = append(out.items, search)
	}
	return render(out), nil
}
