package breaking

import "github.com/toolcat/toolcat/catalog"

// ArgRemoved reports argument properties that the new schema drops.
var ArgRemoved = &Rule{
	ID:       "ARG_REMOVED",
	Category: Wire,
	Purpose:  "Reports arguments removed from a tool's schema: calls that pass them are rejected, or lose what they asked for.",
	Check: forEachPair(func(p *Pass, old, new *catalog.Tool) {
		walkPairs(old.Args, new.Args, func(ptr string, o, n *catalog.Node) {
			op, np := o.Get("properties"), n.Get("properties")
			if op == nil || op.Kind != catalog.Object {
				return
			}
			for _, f := range op.Fields {
				if np.Get(f.Key) == nil {
					p.Reportf(new.Name, f.KeyPos, "%s: %s was removed; callers that pass it break; keep it (deprecated in its description) until no caller sends it", new.Name, where(join(ptr, f.Key)))
				}
			}
		})
	}),
}
