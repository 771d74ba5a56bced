package breaking

import (
	"slices"

	"github.com/toolcat/toolcat/catalog"
)

// EnumValueRemoved reports enum values and consts that no longer pass.
var EnumValueRemoved = &Rule{
	ID:       "ENUM_VALUE_REMOVED",
	Category: Wire,
	Purpose:  "Reports enum values removed from an argument, an enum or const added to one that had none: calls that pass the old values are rejected.",
	Check: forEachPair(func(p *Pass, old, new *catalog.Tool) {
		walkPairs(old.Args, new.Args, func(ptr string, o, n *catalog.Node) {
			ov, oHas := enumValues(o)
			nv, nHas := enumValues(n)
			switch {
			case !nHas:
			case !oHas:
				p.Reportf(new.Name, enumPos(n), "%s: %s is now restricted to %s; other values passed before are rejected", new.Name, where(ptr), list(nv))
			default:
				var gone []string
				for _, v := range ov {
					if !slices.Contains(nv, v) {
						gone = append(gone, v)
					}
				}
				if len(gone) > 0 {
					p.Reportf(new.Name, enumPos(n), "%s: %s no longer accepts %s; keep the old values or map them in the tool body", new.Name, where(ptr), list(gone))
				}
			}
		})
	}),
}

// enumValues returns the values an enum or const allows, as JSON.
func enumValues(s *catalog.Node) ([]string, bool) {
	if c := s.Get("const"); c != nil {
		return []string{string(c.JSON())}, true
	}
	e := s.Get("enum")
	if e == nil || e.Kind != catalog.Array {
		return nil, false
	}
	out := make([]string, 0, len(e.Items))
	for _, it := range e.Items {
		out = append(out, string(it.JSON()))
	}
	return out, true
}

func enumPos(s *catalog.Node) catalog.Pos {
	if s.Get("const") != nil {
		return s.KeyPos("const")
	}
	return s.KeyPos("enum")
}
