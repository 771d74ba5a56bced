package lint

import (
	"github.com/toolcat/toolcat/catalog"
)

// SideEffectRetryIdempotent keeps retries from repeating an effect.
var SideEffectRetryIdempotent = &Rule{
	ID:       "SIDE_EFFECT_RETRY_IDEMPOTENT",
	Category: "safety",
	Purpose:  "Checks that a tool with side effects and max_retries above 0 is idempotent or requires an idempotency key, since a retry of a call that timed out after acting would act twice.",
	Check:    forEachTool(checkSideEffectRetryIdempotent),
}

func checkSideEffectRetryIdempotent(p *Pass, t *catalog.Tool) {
	if !t.HasSideEffects || t.MaxRetries == 0 || t.Idempotent || t.IdempotencyRequired {
		return
	}
	p.Reportf(t, t.PosOf("max_retries"), "max_retries: %d on a tool with side effects that is not idempotent may repeat the effect; set idempotency_required: true, idempotent: true if repeating is harmless, or max_retries: 0", t.MaxRetries)
}
