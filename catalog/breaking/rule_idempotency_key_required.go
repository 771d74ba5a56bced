package breaking

import "github.com/toolcat/toolcat/catalog"

// IdempotencyKeyRequired reports tools that start requiring an
// idempotency key.
var IdempotencyKeyRequired = &Rule{
	ID:       "IDEMPOTENCY_KEY_REQUIRED",
	Category: Wire,
	Purpose:  "Reports tools that now require an idempotency key (idempotency_required false to true): calls without one, as every call was written before, are rejected.",
	Check: forEachPair(func(p *Pass, old, new *catalog.Tool) {
		if new.IdempotencyRequired && !old.IdempotencyRequired {
			p.Reportf(new.Name, new.PosOf("idempotency_required"), "%s: idempotency_required changed from false to true; calls without an idempotency key are rejected; make sure every host passes one (CallOptions.IdempotencyKey) before releasing this", new.Name)
		}
	}),
}
