package lint

import (
	"github.com/toolcat/toolcat/catalog"
)

// SideEffectDryRunRisk asks tools whose effect cannot be previewed or
// undone to say they are high risk, unless the effect only adds.
var SideEffectDryRunRisk = &Rule{
	ID:       "SIDE_EFFECT_DRY_RUN_RISK",
	Category: "safety",
	Purpose:  "Checks that a tool with side effects that can be neither previewed (supports_dry_run) nor undone (revertible) is risk: high, so autonomy and approval policies treat it as such, unless its side effect only adds (side_effect: additive).",
	Check:    forEachTool(checkSideEffectDryRunRisk),
}

func checkSideEffectDryRunRisk(p *Pass, t *catalog.Tool) {
	if !t.HasSideEffects || t.SideEffect == catalog.SideEffectAdditive || t.SupportsDryRun || t.Revertible || t.Risk == catalog.RiskHigh {
		return
	}
	what, hint := "side effects that", ", or say side_effect: additive if it only adds (creates, sends, appends)"
	switch t.SideEffect {
	case catalog.SideEffectOverwrites:
		what, hint = "side effects that overwrite what exists and", ""
	case catalog.SideEffectDestructive:
		what, hint = "side effects that delete what exists and", ""
	}
	p.Reportf(t, t.PosOf("risk"), "tool has %s can be neither previewed nor undone, but risk is %s; set risk: high, or add a dry run (supports_dry_run: true) or a revert (revertible: true)%s", what, t.Risk, hint)
}
