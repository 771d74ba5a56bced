package breaking

import "github.com/toolcat/toolcat/catalog"

// ArgTypeChanged reports arguments whose type no longer allows what it
// did.
var ArgTypeChanged = &Rule{
	ID:       "ARG_TYPE_CHANGED",
	Category: Wire,
	Purpose:  "Reports arguments whose JSON type changed or narrowed (number to integer, a type dropped from a list): values valid before are rejected.",
	Check: forEachPair(func(p *Pass, old, new *catalog.Tool) {
		walkPairs(old.Args, new.Args, func(ptr string, o, n *catalog.Node) {
			ot, nt := types(o), types(n)
			if len(ot) == 0 && len(nt) > 0 && ptr != "" {
				p.Reportf(new.Name, n.KeyPos("type"), "%s: %s had no type and now takes only %s; values of other types are rejected", new.Name, where(ptr), list(nt))
				return
			}
			if l := lost(ot, nt); len(l) > 0 {
				what := list(l) + " values are"
				if len(l) == 1 && l[0] == "number" && contains(nt, "integer") {
					what = "numbers with a fraction are"
				}
				p.Reportf(new.Name, n.KeyPos("type"), "%s: %s changed type from %s to %s; %s rejected now", new.Name, where(ptr), list(ot), list(nt), what)
			}
		})
	}),
}
