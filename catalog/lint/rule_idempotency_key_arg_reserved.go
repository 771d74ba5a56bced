package lint

import (
	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/runtime"
)

// IdempotencyKeyArgReserved keeps a tool's own arguments clear of the
// name its idempotency key takes.
var IdempotencyKeyArgReserved = &Rule{
	ID:       "IDEMPOTENCY_KEY_ARG_RESERVED",
	Category: "safety",
	Purpose:  "Checks that a tool with idempotency_key: argument declares no argument of its own named idempotency_key, in properties or required, nor one that spells it otherwise (idempotencyKey, Idempotency-Key): the runtime takes idempotency_key out of the arguments as the call's idempotency key before the tool's schema sees it, and refuses the other spellings as misspelt keys, so the tool would never get its own value.",
	Check:    forEachTool(checkIdempotencyKeyArgReserved),
}

func checkIdempotencyKeyArgReserved(p *Pass, t *catalog.Tool) {
	if t.IdempotencyKey != catalog.IdempotencyKeyArgument || t.Args == nil {
		return
	}
	const name = "idempotency_key"
	report := func(pos catalog.Pos, what string) {
		p.Reportf(t, pos, "args %s %s, the argument idempotency_key: argument takes as the call's idempotency key before the tool sees it; rename the tool's argument, or set idempotency_key: host", what, name)
	}
	if props := t.Args.Get("properties"); props != nil && props.Kind == catalog.Object {
		if props.Get(name) != nil {
			report(props.KeyPos(name), "declares the property")
			return
		}
		for _, f := range props.Fields {
			if runtime.IdempotencyKeySpelling(f.Key) {
				p.Reportf(t, f.KeyPos, "args declares the property %s, which the runtime refuses as a misspelt idempotency_key on a tool with idempotency_key: argument; rename the tool's argument, or set idempotency_key: host", f.Key)
			}
		}
	}
	if req := t.Args.Get("required"); req != nil && req.Kind == catalog.Array {
		for _, it := range req.Items {
			if it.Kind == catalog.String && it.Str == name {
				report(it.Pos, "requires")
				return
			}
		}
	}
}
