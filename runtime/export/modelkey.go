package export

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/toolcat/toolcat/runtime"
)

// withKeyArg adds the idempotency_key argument to args, the object schema
// of a tool with runtime.Meta.IdempotencyKeyArg: a string of 1 to
// runtime.IdempotencyKeyMaxLength characters with
// runtime.IdempotencyKeyDescription, required when the tool requires a key.
// Every exporter shows it; see keyArgStrict for OpenAI's strict mode.
func withKeyArg(m *runtime.Meta, args *node) error {
	props := args.get("properties")
	switch {
	case props == nil:
		props = object()
		args.set("properties", props)
	case props.kind != 'o':
		return fmt.Errorf("tool %s: args schema: properties is not an object", m.Name)
	}
	if props.get(runtime.IdempotencyKeyArg) != nil {
		return fmt.Errorf("tool %s: args schema declares %q, the argument it takes its idempotency key from (idempotency_key: argument); rename the property (lint rule IDEMPOTENCY_KEY_ARG_RESERVED reports it)",
			m.Name, runtime.IdempotencyKeyArg)
	}
	props.set(runtime.IdempotencyKeyArg, object().
		set("type", str("string")).
		set("description", str(runtime.IdempotencyKeyDescription)).
		set("minLength", number("1")).
		set("maxLength", number(strconv.Itoa(runtime.IdempotencyKeyMaxLength))))
	if m.IdempotencyRequired {
		require(args, runtime.IdempotencyKeyArg)
	}
	return nil
}

// keyArgStrict returns params, an OpenAI parameters schema withKeyArg
// made, with the idempotency_key argument as Structured Outputs takes it:
// listed in required, typed [string, null] when the tool does not require
// a key (the runtime reads null as no key), without the length keywords
// strict mode refuses (the runtime checks the length all the same).
func keyArgStrict(m *runtime.Meta, params *node) *node {
	p := params.clone()
	ty := str("string")
	if !m.IdempotencyRequired {
		ty = array(str("string"), str("null"))
	}
	p.get("properties").set(runtime.IdempotencyKeyArg, object().
		set("type", ty).
		set("description", str(runtime.IdempotencyKeyDescription)))
	require(p, runtime.IdempotencyKeyArg)
	return p
}

// require adds name to the required list of the object schema n.
func require(n *node, name string) {
	r := n.get("required")
	if r == nil || r.kind != 'a' {
		n.set("required", strs([]string{name}))
		return
	}
	if !slices.ContainsFunc(r.items, func(x *node) bool { return x.text() == name }) {
		r.items = append(r.items, str(name))
	}
}
