package lint

import (
	"github.com/toolcat/toolcat/catalog"
)

// SideEffectDryRunRisk asks tools whose effect cannot be previewed or
// undone to say they are high risk.
var SideEffectDryRunRisk = &Rule{
	ID:       "SIDE_EFFECT_DRY_RUN_RISK",
	Category: "safety",
	Purpose:  "Checks that a tool with side effects that can be neither previewed (supports_dry_run) nor undone (revertible) is risk: high, so autonomy and approval policies treat it as such.",
	Check:    forEachTool(checkSideEffectDryRunRisk),
}

func checkSideEffectDryRunRisk(p *Pass, t *catalog.Tool) {
	if !t.HasSideEffects || t.SupportsDryRun || t.Revertible || t.Risk == catalog.RiskHigh {
		return
	}
	p.Reportf(t, t.PosOf("risk"), "tool has side effects that can be neither previewed nor undone, but risk is %s; set risk: high, or add a dry run (supports_dry_run: true) or a revert (revertible: true)", t.Risk)
}
