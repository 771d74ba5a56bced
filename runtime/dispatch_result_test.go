package runtime_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/toolcat/toolcat/runtime"
)

type itemPage struct {
	Items []string `json:"items"`
}

// pageTool returns n items of 100 bytes.
func pageTool(m runtime.Meta, n int) runtime.Tool {
	return runtime.Tool{Meta: m, Execute: func(context.Context, any) (any, error) {
		p := &itemPage{Items: make([]string, n)}
		for i := range p.Items {
			p.Items[i] = strings.Repeat("a", 100)
		}
		return p, nil
	}}
}

func TestMaxResultBytes(t *testing.T) {
	ctx := context.Background()
	args := []byte(`{"query":"pgvector"}`)
	tests := []struct {
		desc     string
		opts     []runtime.Option
		toolMax  int
		items    int
		untrust  bool
		sideEff  bool
		key      string
		wantFail bool
	}{
		{desc: "under the default cap", items: 100},
		{desc: "above the default 1 MiB cap", items: 11000, wantFail: true},
		{desc: "above the registry's cap", opts: []runtime.Option{runtime.WithMaxResultBytes(1000)}, items: 20, wantFail: true},
		{desc: "the tool's cap overrides the registry's", opts: []runtime.Option{runtime.WithMaxResultBytes(1000)}, toolMax: 1 << 20, items: 20},
		{desc: "the tool's cap is lower", toolMax: 1000, items: 20, wantFail: true},
		{desc: "no registry cap", opts: []runtime.Option{runtime.WithMaxResultBytes(0)}, items: 11000},
		{desc: "untrusted output above its cap", toolMax: 1000, items: 20, untrust: true, wantFail: true},
		{desc: "untrusted output under its cap", toolMax: 10000, items: 20, untrust: true},
		{desc: "with an idempotency key", toolMax: 1000, items: 20, key: "k1", wantFail: true},
		{desc: "side effects: not to be repeated", toolMax: 1000, items: 20, sideEff: true, wantFail: true},
	}
	for _, tt := range tests {
		var logs logBuffer
		opts := append([]runtime.Option{runtime.WithLogger(slog.New(slog.NewTextHandler(&logs, nil)))}, tt.opts...)
		r := runtime.New(opts...)
		m := searchMeta()
		m.MaxResultBytes = tt.toolMax
		m.ReturnsUntrusted = tt.untrust
		m.HasSideEffects = tt.sideEff
		m.SLA = time.Minute // building 11,000 items under -race on a loaded machine can pass 200 ms
		mustRegister(t, r, pageTool(m, tt.items))
		res := r.Call(ctx, m.Name, args, runtime.CallOptions{IdempotencyKey: tt.key})
		if !tt.wantFail {
			if !res.Success {
				t.Errorf("%s: %s", tt.desc, res.JSON())
			}
			continue
		}
		if res.Success || res.Error.Code != runtime.CodeUnsupported {
			t.Errorf("%s: got %.300s, want unsupported", tt.desc, res.JSON())
			continue
		}
		if b := res.JSON(); len(b) > 1024 {
			t.Errorf("%s: the error envelope has %d bytes", tt.desc, len(b))
		}
		e := res.Error
		if !strings.Contains(e.Message, "above the") || e.Details["result_bytes"] == nil {
			t.Errorf("%s: message %q, details %v", tt.desc, e.Message, e.Details)
		}
		if tt.sideEff == e.RetryAllowed || tt.sideEff != strings.Contains(e.Suggestion, "do not repeat") {
			t.Errorf("%s: retry_allowed %v, suggestion %q", tt.desc, e.RetryAllowed, e.Suggestion)
		}
		if !strings.Contains(logs.String(), "result above its size cap") || !strings.Contains(logs.String(), "bytes=") {
			t.Errorf("%s: the log lacks the size:\n%s", tt.desc, logs.String())
		}
		if tt.key != "" {
			// The replay answers the same.
			res := r.Call(ctx, m.Name, args, runtime.CallOptions{IdempotencyKey: tt.key})
			if res.Success || res.Error.Code != runtime.CodeUnsupported {
				t.Errorf("%s: replay got %.300s", tt.desc, res.JSON())
			}
		}
	}
}

func TestMaxResultBytesNegative(t *testing.T) {
	m := searchMeta()
	m.MaxResultBytes = -1
	if err := runtime.New().Register(runtime.Tool{Meta: m, Execute: echo}); err == nil {
		t.Error("a negative MaxResultBytes registered")
	}
}

// TestResultEncodedOnce: the envelope a call returns is the encoding the
// size cap measured, until Data is replaced.
func TestResultEncodedOnce(t *testing.T) {
	r := runtime.New(runtime.WithLogger(quietLogger()))
	mustRegister(t, r, pageTool(searchMeta(), 1))
	res := r.Call(context.Background(), "search_articles", []byte(`{"query":"pgvector"}`), runtime.CallOptions{})
	want := `{"success":true,"data":{"items":["` + strings.Repeat("a", 100) + `"]}}`
	if got := string(res.JSON()); got != want {
		t.Errorf("JSON = %s", got)
	}
	if b, _ := json.Marshal(res); string(b) != want {
		t.Errorf("MarshalJSON = %s", b)
	}
	b1, b2 := append(res.JSON(), '1'), append(res.JSON(), '2')
	if b1[len(b1)-1] != '1' || b2[len(b2)-1] != '2' {
		t.Errorf("appends to JSON share memory: %s, %s", b1, b2)
	}
	res.Data = &itemPage{Items: []string{"redacted"}}
	if got := string(res.JSON()); got != `{"success":true,"data":{"items":["redacted"]}}` {
		t.Errorf("JSON after Data changed = %s", got)
	}
}

const noteResultSchema = `{
  "type": "object",
  "required": ["notes"],
  "properties": {
    "notes": {"type": "array", "items": {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}}}
  }
}`

func TestResultCheck(t *testing.T) {
	ctx := context.Background()
	good := map[string]any{"notes": []any{map[string]any{"id": 1}}}
	bad := map[string]any{"notes": []any{map[string]any{"id": "secret-internal-value"}}}
	tests := []struct {
		desc     string
		mode     runtime.ResultCheck
		data     any
		schema   string
		untrust  bool
		wantFail bool
		wantLog  bool
	}{
		{desc: "off: not checked", mode: runtime.ResultCheckOff, data: bad, schema: noteResultSchema},
		{desc: "log: returned, and logged", mode: runtime.ResultCheckLog, data: bad, schema: noteResultSchema, wantLog: true},
		{desc: "enforce: refused, and logged", mode: runtime.ResultCheckEnforce, data: bad, schema: noteResultSchema, wantFail: true, wantLog: true},
		{desc: "enforce: a fitting result", mode: runtime.ResultCheckEnforce, data: good, schema: noteResultSchema},
		{desc: "enforce: no result schema", mode: runtime.ResultCheckEnforce, data: bad},
		{desc: "enforce: untrusted output", mode: runtime.ResultCheckEnforce, data: bad, schema: noteResultSchema, untrust: true, wantFail: true, wantLog: true},
	}
	for _, tt := range tests {
		var logs logBuffer
		r := runtime.New(runtime.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))), runtime.WithResultCheck(tt.mode))
		m := searchMeta()
		m.ResultSchema = json.RawMessage(tt.schema)
		m.ReturnsUntrusted = tt.untrust
		data := tt.data
		mustRegister(t, r, runtime.Tool{Meta: m, Execute: func(context.Context, any) (any, error) { return data, nil }})
		for _, opts := range []runtime.CallOptions{{}, {DryRun: true}} {
			res := r.Call(ctx, m.Name, []byte(`{"query":"pgvector"}`), opts)
			if tt.wantFail {
				if res.Success || res.Error.Code != runtime.CodeInternal {
					t.Errorf("%s: got %s, want internal", tt.desc, res.JSON())
				} else if strings.Contains(string(res.JSON()), "secret") || strings.Contains(string(res.JSON()), "/notes") {
					t.Errorf("%s: the envelope tells the violation: %s", tt.desc, res.JSON())
				}
			} else if !res.Success {
				t.Errorf("%s: %s", tt.desc, res.JSON())
			}
		}
		log := logs.String()
		if got := strings.Contains(log, "result does not fit the result schema"); got != tt.wantLog {
			t.Errorf("%s: logged %v, want %v:\n%s", tt.desc, got, tt.wantLog, log)
		}
		if tt.wantLog && !strings.Contains(log, "/notes/0/id") {
			t.Errorf("%s: the log lacks the field:\n%s", tt.desc, log)
		}
	}
}

func TestResultCheckBadSchema(t *testing.T) {
	m := searchMeta()
	m.ResultSchema = json.RawMessage(`{"type": 3}`)
	if err := runtime.New(runtime.WithResultCheck(runtime.ResultCheckLog)).Register(runtime.Tool{Meta: m, Execute: echo}); err == nil ||
		!strings.Contains(err.Error(), "result schema") {
		t.Errorf("Register = %v, want a result schema error", err)
	}
	if err := runtime.New().Register(runtime.Tool{Meta: m, Execute: echo}); err != nil {
		t.Errorf("without the check, Register = %v", err)
	}
}

// TestMaxResultBytesRevert: what Revert returns is capped as a call's
// result is.
func TestMaxResultBytesRevert(t *testing.T) {
	m := searchMeta()
	m.Revertible = true
	m.MaxResultBytes = 1000
	tool := pageTool(m, 1)
	tool.Revert = func(context.Context, any, json.RawMessage) (any, error) {
		return &itemPage{Items: []string{strings.Repeat("r", 2000)}}, nil
	}
	r := runtime.New(runtime.WithLogger(quietLogger()))
	mustRegister(t, r, tool)
	res := r.Revert(context.Background(), m.Name, []byte(`{"query":"pgvector"}`), json.RawMessage(`{}`), runtime.CallOptions{})
	if res.Success || res.Error.Code != runtime.CodeUnsupported {
		t.Errorf("got %.300s, want unsupported", res.JSON())
	}
}

type panicky struct{}

func (*panicky) MarshalJSON() ([]byte, error) { panic("boom") }

// TestResultEncodingPanics: the registry encodes a result to measure it;
// a result whose encoding panics answers internal instead.
func TestResultEncodingPanics(t *testing.T) {
	r := runtime.New(runtime.WithLogger(quietLogger()))
	mustRegister(t, r, runtime.Tool{Meta: searchMeta(), Execute: func(context.Context, any) (any, error) { return &panicky{}, nil }})
	res := r.Call(context.Background(), "search_articles", []byte(`{"query":"pgvector"}`), runtime.CallOptions{})
	if res.Success || res.Error.Code != runtime.CodeInternal {
		t.Errorf("got %s, want internal", res.JSON())
	}
}
