package breaking

import (
	"slices"

	"github.com/toolcat/toolcat/catalog"
)

// ArgRequiredAdded reports arguments that become required.
var ArgRequiredAdded = &Rule{
	ID:       "ARG_REQUIRED_ADDED",
	Category: Wire,
	Purpose:  "Reports arguments that are new and required, or that were optional and are now required: calls written before do not pass them.",
	Check: forEachPair(func(p *Pass, old, new *catalog.Tool) {
		walkPairs(old.Args, new.Args, func(ptr string, o, n *catalog.Node) {
			was := required(o)
			for _, name := range required(n) {
				if slices.Contains(was, name) {
					continue
				}
				what := "is now required"
				if o.Get("properties").Get(name) == nil {
					what = "is new and required"
				}
				p.Reportf(new.Name, requiredPos(n, name), "%s: %s %s; calls written before omit it; make it optional with a default", new.Name, where(join(ptr, name)), what)
			}
		})
	}),
}
