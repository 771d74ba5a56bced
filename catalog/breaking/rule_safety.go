package breaking

import (
	"slices"

	"github.com/toolcat/toolcat/catalog"
)

// The SAFETY rules report a tool that became less safe than its callers,
// their approval policies and their prompts were told.
//
// They share this file: each is a one-line comparison of one field.

// SideEffectsAdded reports has_side_effects false to true.
var SideEffectsAdded = &Rule{
	ID:       "SIDE_EFFECTS_ADDED",
	Category: Safety,
	Purpose:  "Reports tools that gained side effects (has_side_effects false to true): hosts that call them freely, retry them or offer them read-only now change the world.",
	Check: forEachPair(func(p *Pass, old, new *catalog.Tool) {
		if new.HasSideEffects && !old.HasSideEffects {
			p.Reportf(new.Name, new.PosOf("has_side_effects"), "%s: has_side_effects changed from false to true; review the hosts' approval and retry policies, or make a new tool", new.Name)
		}
	}),
}

// SideEffectRaised reports a side effect that does more harm than it
// did: additive to overwrites or destructive, overwrites to destructive.
// An unset side_effect counts as what the tool's annotations derive.
var SideEffectRaised = &Rule{
	ID:       "SIDE_EFFECT_RAISED",
	Category: Safety,
	Purpose:  "Reports tools whose side effect does more harm (side_effect additive to overwrites or destructive, or overwrites to destructive): hosts that let additive calls run unasked, and MCP clients reading destructiveHint, now let them change or destroy what exists.",
	Check: forEachPair(func(p *Pass, old, new *catalog.Tool) {
		if !old.HasSideEffects || !new.HasSideEffects {
			return // SIDE_EFFECTS_ADDED reports the tools that gained one
		}
		was, is := sideEffectOf(old), sideEffectOf(new)
		if slices.Index(catalog.SideEffects, is.value) > slices.Index(catalog.SideEffects, was.value) {
			p.Reportf(new.Name, new.PosOf("side_effect"), "%s: side_effect rose from %s to %s; review the hosts that let its calls run unasked, and its dry run", new.Name, was, is)
		}
	}),
}

// A sideEffect is a tool's side_effect, or what its annotations derive
// when it is unset.
type sideEffect struct {
	value   string
	derived bool
}

func (s sideEffect) String() string {
	if s.derived {
		return s.value + " (side_effect unset)"
	}
	return s.value
}

// sideEffectOf is the side_effect of a tool that has one; unset, it is
// destructive when the tool is Destructive and additive otherwise.
func sideEffectOf(t *catalog.Tool) sideEffect {
	switch {
	case t.SideEffect != "":
		return sideEffect{value: t.SideEffect}
	case t.Destructive():
		return sideEffect{value: catalog.SideEffectDestructive, derived: true}
	}
	return sideEffect{value: catalog.SideEffectAdditive, derived: true}
}

// RiskRaised reports a higher risk level.
var RiskRaised = &Rule{
	ID:       "RISK_RAISED",
	Category: Safety,
	Purpose:  "Reports tools whose risk rose (low to medium or high): approval policies written for the old level no longer fit.",
	Check: forEachPair(func(p *Pass, old, new *catalog.Tool) {
		if new.Risk.Rank() > old.Risk.Rank() {
			p.Reportf(new.Name, new.PosOf("risk"), "%s: risk rose from %s to %s; review the approval policy of the hosts that offer it", new.Name, old.Risk, new.Risk)
		}
	}),
}

// IdempotentRemoved reports idempotent true to false.
var IdempotentRemoved = &Rule{
	ID:       "IDEMPOTENT_REMOVED",
	Category: Safety,
	Purpose:  "Reports tools no longer idempotent (idempotent true to false): callers that repeat a call, or retry it, now repeat its effect.",
	Check: forEachPair(func(p *Pass, old, new *catalog.Tool) {
		if old.Idempotent && !new.Idempotent {
			p.Reportf(new.Name, new.PosOf("idempotent"), "%s: idempotent changed from true to false; callers that repeat a call now repeat its effect; require an idempotency key", new.Name)
		}
	}),
}

// DryRunRemoved reports supports_dry_run true to false.
var DryRunRemoved = &Rule{
	ID:       "DRY_RUN_REMOVED",
	Category: Safety,
	Purpose:  "Reports tools that lost their dry run (supports_dry_run true to false): hosts that preview before they approve can no longer.",
	Check: forEachPair(func(p *Pass, old, new *catalog.Tool) {
		if old.SupportsDryRun && !new.SupportsDryRun {
			p.Reportf(new.Name, new.PosOf("supports_dry_run"), "%s: supports_dry_run changed from true to false; hosts that preview calls before approving them lose the preview", new.Name)
		}
	}),
}

// RevertRemoved reports revertible true to false.
var RevertRemoved = &Rule{
	ID:       "REVERT_REMOVED",
	Category: Safety,
	Purpose:  "Reports tools that can no longer be undone (revertible true to false): undo in sessions and the revert journal stop working for them.",
	Check: forEachPair(func(p *Pass, old, new *catalog.Tool) {
		if old.Revertible && !new.Revertible {
			p.Reportf(new.Name, new.PosOf("revertible"), "%s: revertible changed from true to false; its calls can no longer be undone", new.Name)
		}
	}),
}

// UntrustedAdded reports returns_untrusted false to true.
var UntrustedAdded = &Rule{
	ID:       "UNTRUSTED_ADDED",
	Category: Safety,
	Purpose:  "Reports tools whose output became untrusted (returns_untrusted false to true): hosts and prompts that treat their output as instructions-safe must not.",
	Check: forEachPair(func(p *Pass, old, new *catalog.Tool) {
		if new.ReturnsUntrusted && !old.ReturnsUntrusted {
			p.Reportf(new.Name, new.PosOf("returns_untrusted"), "%s: returns_untrusted changed from false to true; its output now comes wrapped as untrusted data, and may carry injected instructions", new.Name)
		}
	}),
}

// CapabilityAdded reports a new or changed capability_required.
var CapabilityAdded = &Rule{
	ID:       "CAPABILITY_ADDED",
	Category: Safety,
	Purpose:  "Reports tools that require a new or another capability: agents granted the old one are denied, or grants must widen.",
	Check: forEachPair(func(p *Pass, old, new *catalog.Tool) {
		switch {
		case new.CapabilityRequired == "" || new.CapabilityRequired == old.CapabilityRequired:
		case old.CapabilityRequired == "":
			p.Reportf(new.Name, new.PosOf("capability_required"), "%s: now requires capability %q; agents without it get permission_denied", new.Name, new.CapabilityRequired)
		default:
			p.Reportf(new.Name, new.PosOf("capability_required"), "%s: capability_required changed from %q to %q; agents granted the old one get permission_denied", new.Name, old.CapabilityRequired, new.CapabilityRequired)
		}
	}),
}
