package export

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/runtime"
)

// keyMetas are tools that take their idempotency key as an argument: one
// whose schema qualifies for strict mode and that does not require a key,
// one that does, one whose schema does not qualify, and one without args.
func keyMetas() []runtime.Meta {
	return []runtime.Meta{
		{
			Name:        "refund_payment",
			Description: "Refunds a payment.",
			Risk:        runtime.RiskMedium, HasSideEffects: true, IdempotencyKeyArg: true,
			ArgsSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["payment_id"],"properties":{"payment_id":{"type":"string","description":"Payment id."}}}`),
		},
		{
			Name:        "cancel_subscription",
			Description: "Cancels a subscription.",
			Risk:        runtime.RiskMedium, HasSideEffects: true, IdempotencyRequired: true, IdempotencyKeyArg: true,
			ArgsSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["subscription_id"],"properties":{"subscription_id":{"type":"string"}}}`),
		},
		{
			Name:        "delete_customer_account",
			Description: "Deletes a customer account.",
			Risk:        runtime.RiskHigh, HasSideEffects: true, IdempotencyRequired: true, IdempotencyKeyArg: true,
			ArgsSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["customer_id"],"properties":{"customer_id":{"type":"string","minLength":3}}}`),
		},
		{
			Name:        "rotate_api_keys",
			Description: "Rotates every API key.",
			Risk:        runtime.RiskHigh, HasSideEffects: true, IdempotencyKeyArg: true,
		},
	}
}

func TestKeyArgGolden(t *testing.T) {
	for _, e := range exporters {
		t.Run(e.desc, func(t *testing.T) {
			got, err := e.fn(keyMetas())
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "idempotency_key/"+e.desc+".json", got)
			// Every tool shows the argument, with its guidance.
			if n := strings.Count(string(got), `"idempotency_key": {`); n != 4 {
				t.Errorf("idempotency_key appears %d times, want 4", n)
			}
			if n := strings.Count(string(got), "sent unchanged on every retry of it"); n != 4 {
				t.Errorf("the guidance appears %d times, want 4", n)
			}
		})
	}
}

// openAITool finds one tool of an OpenAI Responses export.
func openAITool(t *testing.T, metas []runtime.Meta, name string) (params json.RawMessage, strict bool) {
	t.Helper()
	b, err := OpenAIResponses(metas)
	if err != nil {
		t.Fatal(err)
	}
	var tools []struct {
		Name       string          `json:"name"`
		Parameters json.RawMessage `json:"parameters"`
		Strict     bool            `json:"strict"`
	}
	if err := json.Unmarshal(b, &tools); err != nil {
		t.Fatal(err)
	}
	for _, x := range tools {
		if x.Name == name {
			return x.Parameters, x.Strict
		}
	}
	t.Fatalf("no tool %s in\n%s", name, b)
	return nil, false
}

// TestKeyArgStrict checks that the argument keeps a strict schema strict,
// in the form strict mode takes, and that what a model sends by that
// schema is what the runtime accepts.
func TestKeyArgStrict(t *testing.T) {
	for _, tc := range []struct {
		tool       string
		strict     bool
		accepted   []string // arguments valid by the export, that the registry runs
		refused    []string // arguments the export refuses, and the registry too
		wantInSchm string
	}{
		{
			tool: "refund_payment", strict: true,
			accepted:   []string{`{"payment_id":"p1","idempotency_key":"conv-1/refund-p1"}`, `{"payment_id":"p1","idempotency_key":null}`},
			refused:    []string{`{"payment_id":"p1","idempotency_key":5}`},
			wantInSchm: `"type":["string","null"]`,
		},
		{
			tool: "cancel_subscription", strict: true,
			accepted:   []string{`{"subscription_id":"s1","idempotency_key":"conv-1/cancel-s1"}`},
			refused:    []string{`{"subscription_id":"s1","idempotency_key":null}`, `{"subscription_id":"s1"}`},
			wantInSchm: `"required":["subscription_id","idempotency_key"]`,
		},
		{
			tool: "delete_customer_account", strict: false,
			accepted:   []string{`{"customer_id":"c12","idempotency_key":"k"}`},
			refused:    []string{`{"customer_id":"c12","idempotency_key":""}`, `{"customer_id":"c12"}`},
			wantInSchm: `"minLength":1,"maxLength":200`,
		},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			metas := keyMetas()
			params, strict := openAITool(t, metas, tc.tool)
			if strict != tc.strict {
				t.Errorf("strict = %v, want %v; parameters %s", strict, tc.strict, params)
			}
			var compact bytes.Buffer
			_ = json.Compact(&compact, params)
			if !strings.Contains(compact.String(), tc.wantInSchm) {
				t.Errorf("parameters %s lack %s", compact.String(), tc.wantInSchm)
			}
			// The export as a schema, and the registry, agree.
			exported, err := runtime.NewSchemaValidator(&runtime.Meta{Name: "exported", ArgsSchema: params})
			if err != nil {
				t.Fatal(err)
			}
			r := runtime.New()
			var m runtime.Meta
			for _, x := range metas {
				if x.Name == tc.tool {
					m = x
				}
			}
			if err := r.Register(runtime.Tool{Meta: m, Execute: func(context.Context, any) (any, error) { return "ok", nil }}); err != nil {
				t.Fatal(err)
			}
			for _, raw := range tc.accepted {
				if _, te := exported.Validate([]byte(raw)); te != nil {
					t.Errorf("export refuses %s: %s", raw, te.Message)
				}
				if res := r.Call(context.Background(), tc.tool, []byte(raw), runtime.CallOptions{}); !res.Success {
					t.Errorf("registry refuses %s: %s", raw, res.JSON())
				}
			}
			for _, raw := range tc.refused {
				if _, te := exported.Validate([]byte(raw)); te == nil {
					t.Errorf("export accepts %s", raw)
				}
				if res := r.Call(context.Background(), tc.tool, []byte(raw), runtime.CallOptions{}); res.Success {
					t.Errorf("registry accepts %s", raw)
				}
			}
		})
	}
}

// TestKeyArgDeclared checks that a tool whose own schema already has an
// idempotency_key property is refused, naming the lint rule.
func TestKeyArgDeclared(t *testing.T) {
	m := runtime.Meta{
		Name: "refund_payment", Description: "Refunds a payment.", HasSideEffects: true, IdempotencyKeyArg: true,
		ArgsSchema: json.RawMessage(`{"type":"object","properties":{"idempotency_key":{"type":"string"}}}`),
	}
	for _, e := range exporters {
		_, err := e.fn([]runtime.Meta{m})
		if err == nil || !strings.Contains(err.Error(), "IDEMPOTENCY_KEY_ARG_RESERVED") {
			t.Errorf("%s: error %v", e.desc, err)
		}
	}
	m.IdempotencyKeyArg = false
	for _, e := range exporters {
		if _, err := e.fn([]runtime.Meta{m}); err != nil {
			t.Errorf("%s without the option: %v", e.desc, err)
		}
	}
}
