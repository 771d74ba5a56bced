package breaking

import (
	"github.com/toolcat/toolcat/catalog"
)

// BoundTightened reports bounds that reject values accepted before.
var BoundTightened = &Rule{
	ID:       "BOUND_TIGHTENED",
	Category: Wire,
	Purpose:  "Reports bounds tightened or added (minimum raised, maxLength lowered, a pattern or multipleOf added or changed): values valid before are rejected.",
	Check: forEachPair(func(p *Pass, old, new *catalog.Tool) {
		walkPairs(old.Args, new.Args, func(ptr string, o, n *catalog.Node) {
			for _, b := range bounds {
				nv, ok := n.Get(b.key).Float()
				if !ok {
					continue
				}
				ov, had := o.Get(b.key).Float()
				switch {
				case !had:
					p.Reportf(new.Name, n.KeyPos(b.key), "%s: %s gained %s %s; values outside it were accepted before", new.Name, where(ptr), b.key, n.Get(b.key).Num)
				case b.lower && nv > ov || !b.lower && nv < ov:
					p.Reportf(new.Name, n.KeyPos(b.key), "%s: %s: %s tightened from %s to %s; values valid before are rejected", new.Name, where(ptr), b.key, o.Get(b.key).Num, n.Get(b.key).Num)
				}
			}
			for _, key := range []string{"pattern", "multipleOf", "format"} {
				nv := n.Get(key)
				if nv == nil {
					continue
				}
				ov := o.Get(key)
				switch {
				case ov == nil:
					p.Reportf(new.Name, n.KeyPos(key), "%s: %s gained %s %s; values that do not match were accepted before", new.Name, where(ptr), key, nv.JSON())
				case string(ov.JSON()) != string(nv.JSON()):
					p.Reportf(new.Name, n.KeyPos(key), "%s: %s: %s changed from %s to %s; values valid before may be rejected", new.Name, where(ptr), key, ov.JSON(), nv.JSON())
				}
			}
		})
	}),
}

// bounds are the numeric keywords; lower ones reject more as they rise.
var bounds = []struct {
	key   string
	lower bool
}{
	{"minimum", true}, {"exclusiveMinimum", true}, {"minLength", true}, {"minItems", true}, {"minProperties", true},
	{"maximum", false}, {"exclusiveMaximum", false}, {"maxLength", false}, {"maxItems", false}, {"maxProperties", false},
}
