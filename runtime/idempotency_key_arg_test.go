package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/toolcat/toolcat/runtime"
)

const refundSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["order_id"],
  "properties": {
    "order_id": {"type": "string", "minLength": 1},
    "note": {"type": "object", "additionalProperties": true}
  }
}`

// keyTool is a refund tool that takes its idempotency key as an argument.
// It records the raw arguments its validator saw, the key its body read
// from the context and how often the body ran.
type keyTool struct {
	mu   sync.Mutex
	raws []string
	keys []string
	runs int
}

func (k *keyTool) tool(t testing.TB, meta runtime.Meta) runtime.Tool {
	t.Helper()
	sv, err := runtime.NewSchemaValidator(&meta)
	if err != nil {
		t.Fatal(err)
	}
	return runtime.Tool{
		Meta: meta,
		Validator: runtime.ValidatorFunc(func(raw []byte) (any, *runtime.ToolError) {
			k.mu.Lock()
			k.raws = append(k.raws, string(raw))
			k.mu.Unlock()
			return sv.Validate(raw)
		}),
		Execute: func(ctx context.Context, args any) (any, error) {
			k.mu.Lock()
			defer k.mu.Unlock()
			k.runs++
			k.keys = append(k.keys, runtime.IdempotencyKeyFrom(ctx))
			return map[string]any{"refunded": args.(map[string]any)["order_id"], "run": k.runs}, nil
		},
	}
}

func refundKeyMeta() runtime.Meta {
	return runtime.Meta{
		Name:                "refund_order",
		Description:         "Refunds an order.",
		Risk:                runtime.RiskLow,
		HasSideEffects:      true,
		IdempotencyRequired: true,
		IdempotencyKeyArg:   true,
		ArgsSchema:          json.RawMessage(refundSchema),
	}
}

func newKeyRegistry(t testing.TB, meta runtime.Meta) (*runtime.Registry, *keyTool) {
	t.Helper()
	r := runtime.New(runtime.WithLogger(quietLogger()))
	k := &keyTool{}
	mustRegister(t, r, k.tool(t, meta))
	return r, k
}

func decodeJSON(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%q is not JSON: %v", s, err)
	}
	return v
}

// TestModelKeyStripped checks that the validator sees the arguments
// without the idempotency_key member, wherever it stands, and that the
// member's value becomes the call's key.
func TestModelKeyStripped(t *testing.T) {
	for _, tc := range []struct {
		desc, raw, want, key string
	}{
		{"first", `{"idempotency_key":"k1","order_id":"A"}`, `{"order_id":"A"}`, "k1"},
		{"last", `{"order_id":"A","idempotency_key":"k1"}`, `{"order_id":"A"}`, "k1"},
		{"middle", `{"order_id":"A","idempotency_key":"k1","note":{"x":1}}`, `{"order_id":"A","note":{"x":1}}`, "k1"},
		{"white space", " {\n \"idempotency_key\" : \"k1\" ,\n \"order_id\" : \"A\"\n}\n", `{"order_id":"A"}`, "k1"},
		{"escaped name", `{"order_id":"A","idempotency\u005fkey":"k\u00e9"}`, `{"order_id":"A"}`, "ké"},
		{"nested member is the tool's", `{"order_id":"A","note":{"idempotency_key":"n"},"idempotency_key":"k1"}`,
			`{"order_id":"A","note":{"idempotency_key":"n"}}`, "k1"},
		{"at the maximum length", `{"order_id":"A","idempotency_key":"` + strings.Repeat("é", runtime.IdempotencyKeyMaxLength) + `"}`,
			`{"order_id":"A"}`, strings.Repeat("é", runtime.IdempotencyKeyMaxLength)},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			r, k := newKeyRegistry(t, refundKeyMeta())
			res := r.Call(context.Background(), "refund_order", []byte(tc.raw), runtime.CallOptions{})
			if !res.Success {
				t.Fatalf("call failed: %s", res.JSON())
			}
			if len(k.raws) != 1 {
				t.Fatalf("validator ran %d times", len(k.raws))
			}
			if got := decodeJSON(t, k.raws[0]); !reflect.DeepEqual(got, decodeJSON(t, tc.want)) {
				t.Errorf("validator saw %s, want %s", k.raws[0], tc.want)
			}
			if k.keys[0] != tc.key {
				t.Errorf("IdempotencyKeyFrom = %q, want %q", k.keys[0], tc.key)
			}
		})
	}
}

// TestModelKeyReplay checks that the model's key replays a retry, wherever
// the member stands, that another operation under the same key is a
// conflict, and that the key never reaches the fingerprint.
func TestModelKeyReplay(t *testing.T) {
	r, k := newKeyRegistry(t, refundKeyMeta())
	ctx := context.Background()
	first := r.Call(ctx, "refund_order", []byte(`{"idempotency_key":"conv-42/refund-991","order_id":"991"}`), runtime.CallOptions{})
	again := r.Call(ctx, "refund_order", []byte(`{"order_id":"991", "idempotency_key":"conv-42/refund-991"}`), runtime.CallOptions{})
	if !first.Success || first.Replayed || !again.Success || !again.Replayed {
		t.Fatalf("first %s\nretry %s", first.JSON(), again.JSON())
	}
	if k.runs != 1 {
		t.Errorf("the tool ran %d times, want 1", k.runs)
	}
	other := r.Call(ctx, "refund_order", []byte(`{"order_id":"992","idempotency_key":"conv-42/refund-991"}`), runtime.CallOptions{})
	if other.Success || other.Error.Code != runtime.CodeIdempotencyConflict {
		t.Fatalf("other args under the same key: %s", other.JSON())
	}
	// Another key is another operation: it runs.
	next := r.Call(ctx, "refund_order", []byte(`{"order_id":"991","idempotency_key":"conv-43/refund-991"}`), runtime.CallOptions{})
	if !next.Success || next.Replayed || k.runs != 2 {
		t.Fatalf("a new key did not run the tool: %s (runs %d)", next.JSON(), k.runs)
	}
}

// TestModelKeyHostWins checks that CallOptions.IdempotencyKey is the key
// when both are given, and that the model's member is taken out all the
// same.
func TestModelKeyHostWins(t *testing.T) {
	r, k := newKeyRegistry(t, refundKeyMeta())
	ctx := context.Background()
	res := r.Call(ctx, "refund_order", []byte(`{"order_id":"A","idempotency_key":"model"}`), runtime.CallOptions{IdempotencyKey: "host"})
	if !res.Success || k.keys[0] != "host" {
		t.Fatalf("host and model key: %s, key %q", res.JSON(), k.keys)
	}
	// The host's key was stored; the model's was not used.
	viaHost := r.Call(ctx, "refund_order", []byte(`{"order_id":"A","idempotency_key":"host"}`), runtime.CallOptions{})
	viaModel := r.Call(ctx, "refund_order", []byte(`{"order_id":"A","idempotency_key":"model"}`), runtime.CallOptions{})
	if !viaHost.Replayed || viaModel.Replayed {
		t.Errorf("replayed under the host's key %v (want true), under the model's %v (want false)", viaHost.Replayed, viaModel.Replayed)
	}
	// A host key alone still works, and the tool's own validation holds.
	if res := r.Call(ctx, "refund_order", []byte(`{"order_id":"B"}`), runtime.CallOptions{IdempotencyKey: "h2"}); !res.Success {
		t.Errorf("host key alone: %s", res.JSON())
	}
}

// TestModelKeyScope checks that CallOptions.KeyScope keeps apart the keys
// that the models of two conversations happen to choose alike.
func TestModelKeyScope(t *testing.T) {
	r, k := newKeyRegistry(t, refundKeyMeta())
	ctx := context.Background()
	raw := []byte(`{"order_id":"A","idempotency_key":"refund-A"}`)
	first := r.Call(ctx, "refund_order", raw, runtime.CallOptions{KeyScope: "conv-1"})
	other := r.Call(ctx, "refund_order", raw, runtime.CallOptions{KeyScope: "conv-2"})
	again := r.Call(ctx, "refund_order", raw, runtime.CallOptions{KeyScope: "conv-1"})
	if !first.Success || first.Replayed || !other.Success || other.Replayed {
		t.Fatalf("two conversations: want two runs, got %s and %s", first.JSON(), other.JSON())
	}
	if !again.Replayed {
		t.Errorf("a retry in the first conversation: want a replay, got %s", again.JSON())
	}
	// The host's own key is left as it is.
	if res := r.Call(ctx, "refund_order", []byte(`{"order_id":"B"}`), runtime.CallOptions{IdempotencyKey: "host-B", KeyScope: "conv-1"}); !res.Success {
		t.Fatalf("host key: %s", res.JSON())
	}
	want := []string{"conv-1/refund-A", "conv-2/refund-A", "host-B"}
	if !slices.Equal(k.keys, want) {
		t.Errorf("keys the tool saw %q, want %q", k.keys, want)
	}
}

// TestModelKeyInvalid checks the answers to a malformed idempotency_key:
// invalid_args naming the field, and no run.
func TestModelKeyInvalid(t *testing.T) {
	for _, tc := range []struct{ desc, raw, msg string }{
		{"number", `{"order_id":"A","idempotency_key":42}`, "must be a string, got number"},
		{"object", `{"order_id":"A","idempotency_key":{"k":"v"}}`, "must be a string, got object"},
		{"bool", `{"idempotency_key":true,"order_id":"A"}`, "must be a string, got boolean"},
		{"empty", `{"order_id":"A","idempotency_key":""}`, "below the minimum length 1"},
		{"too long", `{"order_id":"A","idempotency_key":"` + strings.Repeat("k", runtime.IdempotencyKeyMaxLength+1) + `"}`, "above the maximum length 200"},
		{"twice, same value", `{"idempotency_key":"k","order_id":"A","idempotency_key":"k"}`, "more than once"},
		{"twice, other value", `{"idempotency_key":"k","order_id":"A","idempotency_key":"j"}`, "more than once"},
		{"twice, null first", `{"idempotency_key":null,"order_id":"A","idempotency_key":"j"}`, "more than once"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			r, k := newKeyRegistry(t, refundKeyMeta())
			res := r.Call(context.Background(), "refund_order", []byte(tc.raw), runtime.CallOptions{IdempotencyKey: "host"})
			if res.Success || res.Error.Code != runtime.CodeInvalidArgs {
				t.Fatalf("got %s", res.JSON())
			}
			if !strings.Contains(res.Error.Message, tc.msg) {
				t.Errorf("message %q does not say %q", res.Error.Message, tc.msg)
			}
			if res.Error.Details["field"] != "/idempotency_key" {
				t.Errorf("details %v do not name /idempotency_key", res.Error.Details)
			}
			if k.runs != 0 || len(k.raws) != 0 {
				t.Errorf("validator ran %d times, tool %d times", len(k.raws), k.runs)
			}
		})
	}
}

// TestModelKeyMisspelt checks that idempotency_key spelt another way is
// refused, naming the right spelling, instead of running without a key.
func TestModelKeyMisspelt(t *testing.T) {
	m := refundKeyMeta()
	m.IdempotencyRequired = false
	m.AdditionalArgs = runtime.AdditionalArgsStrip // would drop it silently
	for _, name := range []string{"idempotencyKey", "IdempotencyKey", "Idempotency-Key", "IDEMPOTENCY_KEY", "idempotency key", "idempotency__key"} {
		r, k := newKeyRegistry(t, m)
		res := r.Call(context.Background(), "refund_order", []byte(`{"order_id":"A",`+strconv.Quote(name)+`:"k"}`), runtime.CallOptions{})
		if res.Success || res.Error.Code != runtime.CodeInvalidArgs || !strings.Contains(res.Error.Message, `did you mean "idempotency_key"`) {
			t.Errorf("%s: got %s", name, res.JSON())
			continue
		}
		if res.Error.Details["field"] != "/"+name || k.runs != 0 {
			t.Errorf("%s: details %v, runs %d", name, res.Error.Details, k.runs)
		}
	}
	for _, name := range []string{"idempotency", "key", "idempotency_keys", "my_idempotency_key", "idempotency_key_2"} {
		if runtime.IdempotencyKeySpelling(name) {
			t.Errorf("IdempotencyKeySpelling(%q) = true", name)
		}
	}
	if runtime.IdempotencyKeySpelling("idempotency_key") {
		t.Error("IdempotencyKeySpelling(idempotency_key) = true")
	}
}

// TestModelKeyMissing checks a tool that requires a key: no member, or
// null (what strict mode sends for no value), is the invalid_args that
// tells the model to pass idempotency_key.
func TestModelKeyMissing(t *testing.T) {
	for _, raw := range []string{`{"order_id":"A"}`, `{"order_id":"A","idempotency_key":null}`} {
		r, k := newKeyRegistry(t, refundKeyMeta())
		res := r.Call(context.Background(), "refund_order", []byte(raw), runtime.CallOptions{})
		if res.Success || res.Error.Code != runtime.CodeInvalidArgs {
			t.Fatalf("%s: got %s", raw, res.JSON())
		}
		if !strings.Contains(res.Error.Suggestion, "idempotency_key argument") || !strings.Contains(res.Error.Suggestion, "every retry") {
			t.Errorf("%s: suggestion does not say to pass idempotency_key: %q", raw, res.Error.Suggestion)
		}
		if res.Error.Details["field"] != "/idempotency_key" {
			t.Errorf("%s: details %v", raw, res.Error.Details)
		}
		if k.runs != 0 {
			t.Errorf("%s: the tool ran without a key", raw)
		}
	}
	// A tool that does not require one runs without a key.
	m := refundKeyMeta()
	m.IdempotencyRequired = false
	r, k := newKeyRegistry(t, m)
	if res := r.Call(context.Background(), "refund_order", []byte(`{"order_id":"A","idempotency_key":null}`), runtime.CallOptions{}); !res.Success || k.keys[0] != "" {
		t.Fatalf("optional key given as null: %s, key %q", res.JSON(), k.keys)
	}
}

// TestModelKeyExact checks that every call that is not about the key
// answers exactly as the same call without the member does: the rest is
// validated as if it had never been there.
func TestModelKeyExact(t *testing.T) {
	for _, rest := range []string{
		`{"order_id":"A","ordr":1}`, // unknown member: additionalProperties false
		`{"order_id":""}`,
		`{}`,
		`{"order_id":"A","order_id":7}`, // repeated member of the tool's
		`{"note":{"a":1}}`,
	} {
		with := `{"idempotency_key":"k",` + rest[1:]
		if rest == `{}` {
			with = `{"idempotency_key":"k"}`
		}
		r1, _ := newKeyRegistry(t, refundKeyMeta())
		r2, _ := newKeyRegistry(t, refundKeyMeta())
		want := r1.Call(context.Background(), "refund_order", []byte(rest), runtime.CallOptions{IdempotencyKey: "k"})
		got := r2.Call(context.Background(), "refund_order", []byte(with), runtime.CallOptions{})
		if string(got.JSON()) != string(want.JSON()) {
			t.Errorf("%s\n got %s\nwant %s (as %s)", with, got.JSON(), want.JSON(), rest)
		}
	}
	// Malformed JSON is the validator's to report, key or not.
	for _, raw := range []string{`{"idempotency_key":"k",}`, `{"idempotency_key":"k"} x`, `{"idempotency_key":"k","order_id":}`, `[1]`, `"k"`} {
		r, k := newKeyRegistry(t, refundKeyMeta())
		res := r.Call(context.Background(), "refund_order", []byte(raw), runtime.CallOptions{})
		if res.Success || res.Error.Code != runtime.CodeInvalidArgs || len(k.raws) != 1 || k.raws[0] != raw {
			t.Errorf("%s: got %s, validator saw %q", raw, res.JSON(), k.raws)
		}
	}
}

// TestModelKeyOnlyWithOption checks that a tool without the option gets
// idempotency_key as an argument of its own, which its schema refuses.
func TestModelKeyOnlyWithOption(t *testing.T) {
	m := refundKeyMeta()
	m.IdempotencyKeyArg = false
	r, k := newKeyRegistry(t, m)
	res := r.Call(context.Background(), "refund_order", []byte(`{"order_id":"A","idempotency_key":"k"}`), runtime.CallOptions{IdempotencyKey: "h"})
	if res.Success || res.Error.Code != runtime.CodeInvalidArgs || !strings.Contains(res.Error.Message, "idempotency_key") {
		t.Fatalf("got %s", res.JSON())
	}
	if k.raws[0] != `{"order_id":"A","idempotency_key":"k"}` {
		t.Errorf("validator saw %s", k.raws[0])
	}
}

// TestModelKeyDryRunAndRevert checks that a dry run and a revert, which use
// no key, get the arguments without it.
func TestModelKeyDryRunAndRevert(t *testing.T) {
	m := refundKeyMeta()
	m.SupportsDryRun, m.Revertible = true, true
	k := &keyTool{}
	tool := k.tool(t, m)
	var seen []any
	tool.DryRun = func(_ context.Context, args any) (any, error) { seen = append(seen, args); return "preview", nil }
	tool.Revert = func(_ context.Context, args any, _ json.RawMessage) (any, error) {
		seen = append(seen, args)
		return "reverted", nil
	}
	r := runtime.New(runtime.WithLogger(quietLogger()))
	mustRegister(t, r, tool)
	raw := []byte(`{"order_id":"A","idempotency_key":"k"}`)
	if res := r.Call(context.Background(), "refund_order", raw, runtime.CallOptions{DryRun: true}); !res.Success {
		t.Fatalf("dry run: %s", res.JSON())
	}
	if res := r.Revert(context.Background(), "refund_order", raw, json.RawMessage(`{}`), runtime.CallOptions{}); !res.Success {
		t.Fatalf("revert: %s", res.JSON())
	}
	want := map[string]any{"order_id": "A"}
	if len(seen) != 2 || !reflect.DeepEqual(seen[0], want) || !reflect.DeepEqual(seen[1], want) {
		t.Errorf("dry run and revert got %v, want %v twice", seen, want)
	}
	if res := r.Revert(context.Background(), "refund_order", []byte(`{"order_id":"A","idempotency_key":7}`), nil, runtime.CallOptions{}); res.Success || res.Error.Code != runtime.CodeInvalidArgs {
		t.Errorf("revert with a malformed key: %s", res.JSON())
	}
}

// TestModelKeyRetryGuard checks that the retry guard compares a step's
// failures by the arguments without the key: the same failing call sent
// again under a fresh key is the same call, stopped at once.
func TestModelKeyRetryGuard(t *testing.T) {
	m := refundKeyMeta()
	m.MaxRetries = 5
	r := runtime.New(runtime.WithLogger(quietLogger()))
	runs := 0
	mustRegister(t, r, runtime.Tool{Meta: m, Execute: func(context.Context, any) (any, error) {
		runs++
		return nil, runtime.ExternalError("the payment service refused")
	}})
	call := func(raw string) runtime.Result {
		return r.Call(context.Background(), "refund_order", []byte(raw), runtime.CallOptions{StepID: "s1"})
	}
	if res := call(`{"order_id":"A","idempotency_key":"a"}`); res.Error == nil || res.Error.Code != runtime.CodeExternalError {
		t.Fatalf("first attempt: %s", res.JSON())
	}
	res := call(`{"idempotency_key":"b","order_id":"A"}`)
	if res.Error == nil || res.Error.Code != runtime.CodeRetryExhausted || !strings.Contains(res.Error.Message, "failed the same way twice") {
		t.Fatalf("the same call under another key: %s", res.JSON())
	}
	if runs != 2 {
		t.Errorf("the tool ran %d times, want 2", runs)
	}
	// A malformed key counts as a failure of the call as sent: two calls
	// that differ otherwise are two calls.
	r2 := runtime.New(runtime.WithLogger(quietLogger()))
	mustRegister(t, r2, runtime.Tool{Meta: m, Execute: echo})
	for _, raw := range []string{`{"order_id":"A","idempotency_key":7}`, `{"order_id":"B","idempotency_key":7}`} {
		res := r2.Call(context.Background(), "refund_order", []byte(raw), runtime.CallOptions{StepID: "s2"})
		if res.Error == nil || res.Error.Code != runtime.CodeInvalidArgs {
			t.Errorf("%s: %s", raw, res.JSON())
		}
	}
}

// TestModelKeyFallback checks that the automatic fallback gets the
// arguments without the key, and the key scoped to the fallback.
func TestModelKeyFallback(t *testing.T) {
	m := refundKeyMeta()
	m.FallbackTool = "refund_order_slow"
	fb := refundKeyMeta()
	fb.Name = "refund_order_slow"
	fb.IdempotencyKeyArg = false
	r := runtime.New(runtime.WithLogger(quietLogger()), runtime.WithAutoFallback(true))
	var fbKey string
	var fbArgs any
	mustRegister(t, r,
		runtime.Tool{Meta: m, Execute: func(context.Context, any) (any, error) {
			return nil, runtime.DependencyUnavailable("the payment service is down")
		}},
		runtime.Tool{Meta: fb, Execute: func(ctx context.Context, args any) (any, error) {
			fbKey, fbArgs = runtime.IdempotencyKeyFrom(ctx), args
			return "queued", nil
		}},
	)
	res := r.Call(context.Background(), "refund_order", []byte(`{"order_id":"A","idempotency_key":"k"}`), runtime.CallOptions{})
	if !res.Success {
		t.Fatalf("fallback did not run: %s", res.JSON())
	}
	if fbKey != "k/fallback:refund_order_slow" || !reflect.DeepEqual(fbArgs, map[string]any{"order_id": "A"}) {
		t.Errorf("fallback got key %q and args %v", fbKey, fbArgs)
	}
}

// TestIdempotencyKeyFromHost checks that a tool reads the host's key too,
// and none outside a keyed call.
func TestIdempotencyKeyFromHost(t *testing.T) {
	if k := runtime.IdempotencyKeyFrom(context.Background()); k != "" {
		t.Errorf("key outside a call: %q", k)
	}
	m := refundKeyMeta()
	m.IdempotencyKeyArg = false
	r, k := newKeyRegistry(t, m)
	if res := r.Call(context.Background(), "refund_order", []byte(`{"order_id":"A"}`), runtime.CallOptions{IdempotencyKey: "h"}); !res.Success || k.keys[0] != "h" {
		t.Fatalf("%s, key %q", res.JSON(), k.keys)
	}
}

// A tool that takes its idempotency key from the model: the retry is
// replayed, and the body reads the key from its context.
func ExampleIdempotencyKeyFrom() {
	reg := runtime.New()
	reg.MustRegister(runtime.Tool{
		Meta: runtime.Meta{
			Name: "refund_order", Description: "Refunds an order.", HasSideEffects: true,
			IdempotencyRequired: true, IdempotencyKeyArg: true,
			ArgsSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["order_id"],"properties":{"order_id":{"type":"string"}}}`),
		},
		Execute: func(ctx context.Context, args any) (any, error) {
			// Pass the key on to the payment provider's own idempotency key.
			return map[string]string{"refund": "r-1", "key": runtime.IdempotencyKeyFrom(ctx)}, nil
		},
	})
	args := []byte(`{"order_id":"991","idempotency_key":"conv-42/refund-order-991"}`)
	fmt.Println(string(reg.Call(context.Background(), "refund_order", args, runtime.CallOptions{}).JSON()))
	fmt.Println(string(reg.Call(context.Background(), "refund_order", args, runtime.CallOptions{}).JSON()))
	// Output:
	// {"success":true,"data":{"key":"conv-42/refund-order-991","refund":"r-1"}}
	// {"success":true,"data":{"key":"conv-42/refund-order-991","refund":"r-1"},"replayed":true}
}
