package lint

import (
	"slices"

	"github.com/toolcat/toolcat/catalog"
)

// FallbackArgsCompatible checks that a call can be handed to the fallback.
var FallbackArgsCompatible = &Rule{
	ID:       "FALLBACK_ARGS_COMPATIBLE",
	Category: "graph",
	Purpose:  "Checks that every argument the fallback_tool requires is an argument of the primary tool with a compatible type, so the runtime can pass the call on unchanged.",
	Check:    forEachTool(checkFallbackArgsCompatible),
}

func checkFallbackArgsCompatible(p *Pass, t *catalog.Tool) {
	f := p.Catalog.Tool(t.FallbackTool)
	if f == nil || f == t || f.Args == nil {
		return
	}
	props := t.Args.Get("properties")
	fprops := f.Args.Get("properties")
	req := f.Args.Get("required")
	if req == nil || req.Kind != catalog.Array {
		return
	}
	for _, it := range req.Items {
		name, ok := it.StringValue()
		if !ok {
			continue
		}
		mine := props.Get(name)
		if mine == nil {
			p.Reportf(t, t.PosOf("fallback_tool"), "fallback %q requires argument %q, which %q does not take; add it here or make it optional there", f.Name, name, t.Name)
			continue
		}
		a, b := mine.SchemaTypes(), fprops.Get(name).SchemaTypes()
		if len(a) > 0 && len(b) > 0 && !typesCompatible(a, b) {
			p.Reportf(t, t.PosOf("fallback_tool"), "argument %q is %s here but %s in fallback %q; use one type in both", name, typeList(a), typeList(b), f.Name)
		}
	}
}

// typesCompatible reports whether every type a may take is accepted by b
// (integers are numbers).
func typesCompatible(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) && !(x == "integer" && slices.Contains(b, "number")) {
			return false
		}
	}
	return true
}

func typeList(ts []string) string {
	if len(ts) == 1 {
		return ts[0]
	}
	s := ""
	for i, t := range ts {
		if i > 0 {
			s += " or "
		}
		s += t
	}
	return s
}
