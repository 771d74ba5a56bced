package lint

import (
	"github.com/toolcat/toolcat/catalog"
)

// ReadOnlyConsistent catches safety flags that make no sense without side
// effects, which usually means has_side_effects is wrong.
var ReadOnlyConsistent = &Rule{
	ID:       "READ_ONLY_CONSISTENT",
	Category: "safety",
	Purpose:  "Checks that a tool without side effects is not marked revertible, idempotency_required, idempotency_key: argument, supports_dry_run or idempotent: false: each only makes sense for a tool that changes something, so either the flag or has_side_effects is wrong.",
	Check:    forEachTool(checkReadOnlyConsistent),
}

func checkReadOnlyConsistent(p *Pass, t *catalog.Tool) {
	if t.HasSideEffects {
		return
	}
	flag := func(field, setting, what string) {
		p.Reportf(t, t.PosOf(field), "%s on a tool without side effects: %s; remove it, or set has_side_effects: true", setting, what)
	}
	if t.Revertible {
		flag("revertible", "revertible: true", "there is nothing to revert")
	}
	if t.IdempotencyRequired {
		flag("idempotency_required", "idempotency_required: true", "repeating a read changes nothing, so no key is needed")
	}
	if t.IdempotencyKey == catalog.IdempotencyKeyArgument {
		flag("idempotency_key", "idempotency_key: argument", "repeating a read changes nothing, so the model needs no key to pass")
	}
	if t.SupportsDryRun {
		flag("supports_dry_run", "supports_dry_run: true", "a read is its own preview")
	}
	if !t.Idempotent {
		flag("idempotent", "idempotent: false", "a call that changes nothing can always be repeated")
	}
}
