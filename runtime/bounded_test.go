package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/toolcat/toolcat/runtime"
)

// maxEnvelope is what an error envelope may weigh whatever the input.
const maxEnvelope = 4 << 10

// bigSize is the size of the values below: 10 MB, or 1 MB with -short.
func bigSize() int {
	if testing.Short() {
		return 1 << 20
	}
	return 10 << 20
}

const boundedSchema = `{
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "query": {"type": "string", "maxLength": 20, "pattern": "^[a-z]+$"},
    "max_results": {"type": "integer", "minimum": 1, "maximum": 20},
    "ratio": {"type": "number", "maximum": 1},
    "sort": {"type": "string", "enum": ["relevance", "date"]},
    "email": {"type": "string", "format": "email"},
    "labels": {"type": "object", "additionalProperties": {"type": "integer", "maximum": 100}},
    "names": {"type": "object", "propertyNames": {"maxLength": 8}},
    "tags": {"type": "array", "items": {"type": "string", "maxLength": 4}},
    "filter": {"type": "object", "additionalProperties": false, "properties": {"since": {"type": "string"}}},
    "free": {}
  }
}`

// TestEnvelopesBounded: whatever the model sends, the error envelope of
// the general validator stays within maxEnvelope. It reads 100 MB values
// on one goroutine, which the race detector slows tenfold and has nothing
// to check in: it runs without it (make test runs it so, beside the
// package's race run).
func TestEnvelopesBounded(t *testing.T) {
	if raceEnabled {
		t.Skip("one goroutine reading 100 MB values: run without -race (make test-race does)")
	}
	n := bigSize()
	long := strings.Repeat("x", n)
	digits := strings.Repeat("9", 10*n) // 100 MB: a number beyond float64
	deep := strings.Repeat("[", 9000) + strings.Repeat("]", 9000)
	tests := []struct {
		desc, args string
		code       runtime.Code
	}{
		{"a 100 MB integer", `{"max_results":` + digits + `}`, runtime.CodeInvalidArgs},
		{"a 100 MB fraction", `{"ratio":2.` + digits + `}`, runtime.CodeInvalidArgs},
		{"a huge integer in range of float64", `{"max_results":1` + strings.Repeat("0", 300) + `}`, runtime.CodeInvalidArgs},
		{"a 10 MB unknown key", `{"` + long + `":1}`, runtime.CodeInvalidArgs},
		{"a 10 MB unknown nested key", `{"filter":{"` + long + `":1}}`, runtime.CodeInvalidArgs},
		{"a 10 MB key in the path of an error", `{"labels":{"` + long + `":1000}}`, runtime.CodeInvalidArgs},
		{"a 10 MB key of two-byte characters in the path of an error", `{"labels":{"a` + strings.Repeat("é", n/2) + `":1000}}`, runtime.CodeInvalidArgs},
		{"a 10 MB unknown key of two-byte characters", `{"a` + strings.Repeat("é", n/2) + `":1}`, runtime.CodeInvalidArgs},
		{"a 10 MB key against propertyNames", `{"names":{"` + long + `":1}}`, runtime.CodeInvalidArgs},
		{"a 10 MB string not in the enum", `{"sort":"` + long + `"}`, runtime.CodeInvalidArgs},
		{"a 10 MB string too long", `{"query":"` + long + `"}`, runtime.CodeInvalidArgs},
		{"a 10 MB string not matching", `{"query":"` + strings.Repeat("X", 10) + `"}`, runtime.CodeInvalidArgs},
		{"a 10 MB string not an email", `{"email":"` + long + `"}`, runtime.CodeInvalidArgs},
		{"a 10 MB string in an array", `{"tags":["` + long + `"]}`, runtime.CodeInvalidArgs},
		{"a 10 MB string of the wrong type", `{"max_results":"` + long + `"}`, runtime.CodeInvalidArgs},
		{"a large array of the wrong type", `{"query":[` + strings.Repeat("1,", n/2) + `1]}`, runtime.CodeInvalidArgs},
		{"arguments that are a large array", `[` + strings.Repeat("1,", n/2) + `1]`, runtime.CodeInvalidArgs},
		{"deep nesting of the wrong type", `{"max_results":` + deep + `}`, runtime.CodeInvalidArgs},
		{"nesting too deep", `{"free":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`, runtime.CodeInvalidArgs},
		{"10 MB of invalid JSON", `{"query":"` + long, runtime.CodeInvalidArgs},
	}
	r := runtime.New(runtime.WithLogger(quietLogger()))
	m := searchMeta()
	m.ArgsSchema = json.RawMessage(boundedSchema)
	mustRegister(t, r, runtime.Tool{Meta: m, Execute: echo})
	for _, tt := range tests {
		start := time.Now()
		res := r.Call(context.Background(), m.Name, []byte(tt.args), runtime.CallOptions{})
		b := res.JSON()
		t.Logf("%s: %d-byte envelope in %v", tt.desc, len(b), time.Since(start))
		if res.Success || res.Error.Code != tt.code {
			t.Errorf("%s: got %.300s, want %s", tt.desc, b, tt.code)
		}
		if len(b) > maxEnvelope {
			t.Errorf("%s: the envelope has %d bytes, more than %d:\n%.600s", tt.desc, len(b), maxEnvelope, b)
		}
		if strings.ContainsRune(string(b), '\uFFFD') {
			t.Errorf("%s: the envelope splits a character:\n%.600s", tt.desc, b)
		}
	}
}

// TestEnvelopeBoundedToolName: a call of a 10 MB tool name answers
// not_found in a small envelope, and fast.
func TestEnvelopeBoundedToolName(t *testing.T) {
	r := runtime.New(runtime.WithLogger(quietLogger()))
	mustRegister(t, r, runtime.Tool{Meta: searchMeta(), Execute: echo})
	for _, name := range []string{strings.Repeat("search_articles", bigSize()/15), "search_articles" + strings.Repeat("é", 200)} {
		start := time.Now()
		res := r.Call(context.Background(), name, []byte(`{}`), runtime.CallOptions{})
		b := res.JSON()
		t.Logf("a %d-byte tool name: %d-byte envelope in %v", len(name), len(b), time.Since(start))
		if res.Success || res.Error.Code != runtime.CodeNotFound {
			t.Fatalf("got %.300s", b)
		}
		if len(b) > maxEnvelope {
			t.Errorf("the envelope has %d bytes:\n%.600s", len(b), b)
		}
		if !json.Valid(b) || strings.ContainsRune(string(b), '\uFFFD') {
			t.Errorf("the envelope splits a character: %.600s", b)
		}
		if c, ok := res.Error.Details["closest"].([]string); !ok || c == nil {
			t.Errorf("details.closest = %#v, want a list", res.Error.Details["closest"])
		}
	}
}

// TestRetryGuardBoundsMessage: the retry guard's retry_exhausted repeats
// the last error's message, clipped.
func TestRetryGuardBoundsMessage(t *testing.T) {
	r := runtime.New(runtime.WithLogger(quietLogger()))
	m := searchMeta()
	m.MaxRetries = 0
	long := strings.Repeat("y", bigSize())
	mustRegister(t, r, runtime.Tool{Meta: m, Execute: func(context.Context, any) (any, error) {
		return nil, runtime.ExternalError(long)
	}})
	r.Call(context.Background(), m.Name, []byte(`{"query":"pgvector"}`), runtime.CallOptions{StepID: "s"}) // the last attempt
	res := r.Call(context.Background(), m.Name, []byte(`{"query":"pgvector"}`), runtime.CallOptions{StepID: "s"})
	if res.Success || res.Error.Code != runtime.CodeRetryExhausted {
		t.Fatalf("got %.300s", res.JSON())
	}
	if b := res.JSON(); len(b) > maxEnvelope {
		t.Errorf("the envelope has %d bytes:\n%.600s", len(b), b)
	}
}

// TestEchoesClipped: what an envelope quotes of a long value is its start
// and its length, in message and details alike.
func TestEchoesClipped(t *testing.T) {
	long := "zz" + strings.Repeat("é", 5000)
	r := runtime.New(runtime.WithLogger(quietLogger()))
	m := searchMeta()
	m.ArgsSchema = json.RawMessage(boundedSchema)
	mustRegister(t, r, runtime.Tool{Meta: m, Execute: echo})
	res := r.Call(context.Background(), m.Name, []byte(`{"sort":"`+long+`"}`), runtime.CallOptions{})
	env := envelope(t, res)
	e := env["error"].(map[string]any)
	if msg := e["message"].(string); !strings.Contains(msg, `"zzéé`) || !strings.Contains(msg, "(10002 bytes)") {
		t.Errorf("message = %q", msg)
	}
	got, _ := e["details"].(map[string]any)["received"].(string)
	if !strings.HasPrefix(got, "zzéé") || !strings.HasSuffix(got, "… (10002 bytes)") {
		t.Errorf("details.received = %q", got)
	}
}

// TestEnvelopeBoundedToolText: a plain error's text and an idempotency
// key are quoted clipped too.
func TestEnvelopeBoundedToolText(t *testing.T) {
	ctx := context.Background()
	long := strings.Repeat("e", bigSize())
	r := runtime.New(runtime.WithLogger(quietLogger()))
	m := searchMeta()
	mustRegister(t, r, runtime.Tool{Meta: m, Execute: func(_ context.Context, args any) (any, error) {
		if a := args.(map[string]any); a["query"] == "fail" {
			return nil, errors.New(long)
		}
		return "ok", nil
	}})
	check := func(desc string, res runtime.Result, code runtime.Code) {
		t.Helper()
		b := res.JSON()
		if res.Success || res.Error.Code != code {
			t.Errorf("%s: got %.300s, want %s", desc, b, code)
		}
		if len(b) > maxEnvelope {
			t.Errorf("%s: the envelope has %d bytes:\n%.600s", desc, len(b), b)
		}
	}
	check("a plain error of 10 MB", r.Call(ctx, m.Name, []byte(`{"query":"fail"}`), runtime.CallOptions{}), runtime.CodeInternal)
	if res := r.Call(ctx, m.Name, []byte(`{"query":"first"}`), runtime.CallOptions{IdempotencyKey: long}); !res.Success {
		t.Fatalf("first call: %.300s", res.JSON())
	}
	check("an idempotency key of 10 MB", r.Call(ctx, m.Name, []byte(`{"query":"other"}`), runtime.CallOptions{IdempotencyKey: long}), runtime.CodeIdempotencyConflict)
}
