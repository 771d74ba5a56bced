package breaking

import "github.com/toolcat/toolcat/catalog"

// ResultPropertyRemoved reports result properties that the new schema
// drops or stops promising.
var ResultPropertyRemoved = &Rule{
	ID:       "RESULT_PROPERTY_REMOVED",
	Category: Wire,
	Purpose:  "Reports properties removed from a tool's result, or no longer required in it: clients and prompts that read them find nothing.",
	Check: forEachPair(func(p *Pass, old, new *catalog.Tool) {
		if old.Result == nil || new.Result == nil {
			return
		}
		walkPairs(old.Result, new.Result, func(ptr string, o, n *catalog.Node) {
			op := o.Get("properties")
			if op == nil || op.Kind != catalog.Object {
				return
			}
			req := required(n)
			for _, f := range op.Fields {
				name := "result " + join(ptr, f.Key)
				switch {
				case n.Get("properties").Get(f.Key) == nil:
					p.Reportf(new.Name, f.KeyPos, "%s: %s was removed; clients that read it break", new.Name, name)
				case contains(required(o), f.Key) && !contains(req, f.Key):
					p.Reportf(new.Name, n.Get("properties").KeyPos(f.Key), "%s: %s is no longer required; clients that rely on it may find nothing", new.Name, name)
				}
			}
		})
	}),
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
