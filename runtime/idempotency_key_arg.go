package runtime

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/toolcat/toolcat/internal/jsonptr"
	"github.com/toolcat/toolcat/runtime/jsonscan"
)

// The idempotency_key argument. A tool whose catalog entry sets
// idempotency_key: argument (Meta.IdempotencyKeyArg) shows the model one
// more argument than its own schema declares: the key of the operation.
// The model makes the key once per logical operation and sends it again on
// every retry of that operation, so a retry is replayed rather than run
// twice even when the host has no key of its own to give (over MCP, or in
// a plain chat loop).
//
// The registry takes the member out of the raw arguments before the tool's
// validator runs, so the rest validates exactly as if it had never been
// there (additionalProperties: false included), and the tool's Args get no
// field for it; the tool reads the key with IdempotencyKeyFrom. A key set
// in CallOptions.IdempotencyKey wins over the model's.
const (
	// IdempotencyKeyArg is the name of the argument.
	IdempotencyKeyArg = "idempotency_key"
	// IdempotencyKeyMaxLength is the longest key accepted, in characters.
	IdempotencyKeyMaxLength = 200
	// IdempotencyKeyDescription is what the exported schemas tell the model
	// about the argument.
	IdempotencyKeyDescription = "Key of this operation, made by you: one per logical operation " +
		"(such as \"conv-42/refund-order-991\"), sent unchanged on every retry of it and never reused for another. " +
		"A retry with the same key returns the first call's result instead of acting twice."
)

// IdempotencyKeyFrom returns the idempotency key of the call running in
// ctx: the host's CallOptions.IdempotencyKey or the model's idempotency_key
// argument, or "" when the call has none. A tool passes it on to an API
// that takes idempotency keys of its own.
func IdempotencyKeyFrom(ctx context.Context) string {
	k, _ := ctx.Value(idempotencyKeyName{}).(string)
	return k
}

type idempotencyKeyName struct{}

// keyCtx carries a call's idempotency key: one allocation, where
// context.WithValue would take two (the context and the boxed string).
type keyCtx struct {
	context.Context
	key string
}

func (c *keyCtx) Value(k any) any {
	if _, ok := k.(idempotencyKeyName); ok {
		return c.key
	}
	return c.Context.Value(k)
}

func withIdempotencyKey(ctx context.Context, key string) context.Context {
	return &keyCtx{ctx, key}
}

// takeIdempotencyKey returns raw without its top-level idempotency_key
// member and that member's value: "" when there is none or it is null
// (OpenAI's strict mode sends null for an optional argument). A value that
// is not a string of 1 to IdempotencyKeyMaxLength characters, a member
// given twice, or one misspelt (see IdempotencyKeySpelling), is
// invalid_args. raw itself is never changed; a copy is
// made only when the member is there. Input that is not a well-formed
// object is returned as it is, for the tool's validator to report.
func takeIdempotencyKey(raw []byte) (rest []byte, key string, te *ToolError) {
	raw = NormalizeArgs(raw)
	var d jsonscan.Decoder
	d.Reset(raw)
	if d.BeginObject() != nil {
		return raw, "", nil
	}
	const ptr = "/" + IdempotencyKeyArg
	first := true     // the next member is the object's first
	cut := [2]int{-1} // the bytes of the member, with one comma
	var bad, misspelt *ToolError
	twice := false
	for {
		before := d.Offset()
		k, ok, err := d.NextKey()
		if err != nil {
			return raw, "", nil
		}
		if !ok {
			break
		}
		if string(k) != IdempotencyKeyArg {
			if misspelt == nil && misspelling(k) {
				misspelt = misspeltKey(string(k))
			}
			if cut[0] >= 0 && cut[1] < 0 {
				// The member was the first: take the comma after it.
				cut[1] = before + commaAt(raw[before:]) + 1
			}
			first = false
			if d.Skip() != nil {
				return raw, "", nil
			}
			continue
		}
		if cut[0] >= 0 {
			twice = true
		}
		switch d.Peek() {
		case jsonscan.Null:
			err = d.Null()
			key = ""
		case jsonscan.String:
			key, err = d.String()
			if err == nil && bad == nil {
				if n := utf8.RuneCountInString(key); n < 1 || n > IdempotencyKeyMaxLength {
					bad = ArgLength(ptr, key, 1, IdempotencyKeyMaxLength)
				}
			}
		default:
			if bad == nil {
				_, err = d.String()
				bad = ArgDecodeError(ptr, "string", err)
			}
			err = d.Skip()
		}
		if err != nil {
			return raw, "", nil
		}
		if first {
			cut = [2]int{before, -1}
		} else {
			cut = [2]int{before, d.Offset()}
		}
		first = false
	}
	if d.End() != nil {
		return raw, "", nil
	}
	if cut[0] < 0 {
		if misspelt != nil {
			return nil, "", misspelt
		}
		return raw, "", nil
	}
	if twice {
		return nil, "", InvalidArgs("idempotency_key is given more than once").
			WithSuggestion("Send idempotency_key once, as a string.").
			WithDetail("field", ptr)
	}
	if bad != nil {
		return nil, "", bad
	}
	if misspelt != nil {
		return nil, "", misspelt
	}
	if cut[1] < 0 {
		// The member was the first and the last: keep the braces.
		cut[1] = len(raw) - 1 - trailingBrace(raw)
	}
	rest = make([]byte, 0, len(raw)-(cut[1]-cut[0]))
	rest = append(append(rest, raw[:cut[0]]...), raw[cut[1]:]...)
	return rest, key, nil
}

// IdempotencyKeySpelling reports whether name is idempotency_key written
// another way, in another case or with other separators (idempotencyKey,
// Idempotency-Key, IDEMPOTENCY_KEY). A tool with Meta.IdempotencyKeyArg
// refuses such an argument as a misspelt key rather than running without
// one; lint keeps tools from declaring such a name of their own.
func IdempotencyKeySpelling(name string) bool {
	return name != IdempotencyKeyArg && misspelling([]byte(name))
}

// misspelling reports whether k, other than idempotency_key itself, spells
// it with other letter case or separators.
func misspelling(k []byte) bool {
	const want = "idempotencykey"
	if len(k) < len(want) || len(k) > len(want)+4 {
		return false
	}
	n := 0
	for _, c := range k {
		switch {
		case c == '_' || c == '-' || c == '.' || c == ' ':
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		if n == len(want) || c != want[n] {
			return false
		}
		n++
	}
	return n == len(want)
}

func misspeltKey(name string) *ToolError {
	e := argError(jsonptr.Join(name), fmt.Sprintf("unknown argument %q; did you mean %q?", name, IdempotencyKeyArg),
		fmt.Sprintf("Send the idempotency key as %q, spelt exactly so.", IdempotencyKeyArg), nil, nil)
	e.Details["closest"] = IdempotencyKeyArg
	return e
}

// commaAt returns the offset of the first comma in b, which starts with
// white space and a comma (the text between two object members).
func commaAt(b []byte) int {
	for i, c := range b {
		if c == ',' {
			return i
		}
	}
	return 0
}

// trailingBrace returns how far from the end of raw, a well-formed object,
// its closing brace is.
func trailingBrace(raw []byte) int {
	for i := len(raw) - 1; i >= 0; i-- {
		if raw[i] == '}' {
			return len(raw) - 1 - i
		}
	}
	return 0
}

// modelKey takes the model's idempotency key out of raw for a tool with
// Meta.IdempotencyKeyArg, and makes it the call's key unless the host gave
// one.
func modelKey(raw []byte, opts *CallOptions) ([]byte, *ToolError) {
	rest, key, te := takeIdempotencyKey(raw)
	if te != nil {
		te.internal = true
		return nil, te
	}
	if opts.IdempotencyKey == "" && key != "" {
		if opts.KeyScope != "" {
			key = opts.KeyScope + "/" + key
		}
		opts.IdempotencyKey = key
	}
	return rest, nil
}

// missingKey is the answer to a call of a tool with IdempotencyRequired
// that has no key: the model is told to pass idempotency_key when the tool
// takes one, and otherwise what key the host should give.
func missingKey(m *Meta) *ToolError {
	var te *ToolError
	if m.IdempotencyKeyArg {
		te = InvalidArgs("tool "+m.Name+" has side effects and needs an idempotency key, and the call has none: "+
			"missing required argument "+IdempotencyKeyArg).
			WithSuggestion("Call again with an idempotency_key argument that names this operation, not this attempt "+
				"(for example the conversation and the intent, such as \"conv-42/refund-order-991\"), "+
				"and send the same key on every retry of it.").
			WithDetail("field", "/"+IdempotencyKeyArg)
	} else {
		te = InvalidArgs("tool " + m.Name + " has side effects and needs an idempotency key, and the call has none").
			WithSuggestion("Retry with an idempotency key that names this operation, not this attempt " +
				"(for example the conversation, the step and the intent, such as \"conv-42/step-3/refund-order-991\"), " +
				"and reuse the same key on every retry of it.")
	}
	te.internal = true
	return te
}
