package export

import "github.com/toolcat/toolcat/runtime"

// Anthropic returns the "tools" array of an Anthropic Messages API request:
//
//	[{"name", "description", "input_schema"}]
//
// input_schema is the args schema as the catalog wrote it: Anthropic takes
// JSON Schema 2020-12 and needs only "type": "object" at the top, which
// every args schema has.
func Anthropic(metas []runtime.Meta, opts ...Option) ([]byte, error) {
	tools, err := prepare(metas, opts, anthropicNames)
	if err != nil {
		return nil, err
	}
	out := array()
	for _, t := range tools {
		o := withDescription(object().set("name", str(t.meta.Name)), t.desc)
		out.items = append(out.items, o.set("input_schema", t.args))
	}
	return render(out), nil
}
