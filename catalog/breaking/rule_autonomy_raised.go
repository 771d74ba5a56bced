package breaking

import "github.com/toolcat/toolcat/catalog"

// AutonomyRaised reports tools offered at fewer autonomy levels.
var AutonomyRaised = &Rule{
	ID:       "AUTONOMY_RAISED",
	Category: Wire,
	Purpose:  "Reports tools whose autonomy level rose (read_only to supervised or full): agents running at the old level no longer get the tool, and their calls fail.",
	Check: forEachPair(func(p *Pass, old, new *catalog.Tool) {
		if new.Autonomy.Rank() > old.Autonomy.Rank() && old.Autonomy.Rank() >= 0 {
			p.Reportf(new.Name, new.PosOf("autonomy"), "%s: autonomy rose from %s to %s; agents at %s no longer get the tool", new.Name, old.Autonomy, new.Autonomy, old.Autonomy)
		}
	}),
}
