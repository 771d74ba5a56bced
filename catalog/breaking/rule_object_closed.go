package breaking

import (
	"github.com/toolcat/toolcat/catalog"
)

// ObjectClosed reports objects that stop accepting unknown properties.
var ObjectClosed = &Rule{
	ID:       "OBJECT_CLOSED",
	Category: Wire,
	Purpose:  "Reports objects closed to properties they did not declare (additionalProperties false, additional_args reject): calls that passed extra properties are rejected.",
	Check: forEachPair(func(p *Pass, old, new *catalog.Tool) {
		walkPairs(old.Args, new.Args, func(ptr string, o, n *catalog.Node) {
			if closed(n) && !closed(o) {
				p.Reportf(new.Name, n.KeyPos("additionalProperties"), "%s: %s: additionalProperties is now false; calls that passed other properties are rejected", new.Name, where(ptr))
			}
		})
		if new.AdditionalArgs == "reject" && old.AdditionalArgs != "" && old.AdditionalArgs != "reject" {
			p.Reportf(new.Name, new.PosOf("additional_args"), "%s: additional_args changed from %s to reject; calls that passed arguments the schema lacks are rejected", new.Name, old.AdditionalArgs)
		}
	}),
}

func closed(s *catalog.Node) bool {
	a := s.Get("additionalProperties")
	return a != nil && a.Kind == catalog.Bool && !a.Bool
}
