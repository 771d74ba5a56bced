package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcat/toolcat/runtime"
)

func TestRegister(t *testing.T) {
	tests := []struct {
		desc    string
		tool    runtime.Tool
		wantErr string
	}{
		{desc: "valid", tool: runtime.Tool{Meta: searchMeta(), Execute: echo}},
		{desc: "no name", tool: runtime.Tool{Execute: echo}, wantErr: "no name"},
		{desc: "bad name", tool: runtime.Tool{Meta: runtime.Meta{Name: "Search Articles"}, Execute: echo}, wantErr: `such as "Search_Articles"`},
		{desc: "camelCase name", tool: runtime.Tool{Meta: runtime.Meta{Name: "getComment"}, Execute: echo}},
		{desc: "dotted name", tool: runtime.Tool{Meta: runtime.Meta{Name: "search.web"}, Execute: echo}},
		{desc: "long name", tool: runtime.Tool{Meta: runtime.Meta{Name: strings.Repeat("a", 65)}, Execute: echo}, wantErr: "more than the 64"},
		{desc: "no execute", tool: runtime.Tool{Meta: runtime.Meta{Name: "a_b"}}, wantErr: "no Execute"},
		{desc: "bad risk", tool: runtime.Tool{Meta: runtime.Meta{Name: "a_b", Risk: "extreme"}, Execute: echo}, wantErr: "risk"},
		{desc: "bad policy", tool: runtime.Tool{Meta: runtime.Meta{Name: "a_b", AdditionalArgs: "ignore"}, Execute: echo}, wantErr: "additional_args"},
		{desc: "bad hint code", tool: runtime.Tool{Meta: runtime.Meta{Name: "a_b", ErrorHints: map[runtime.Code]string{"oops": "x"}}, Execute: echo}, wantErr: "unknown code"},
		{desc: "bad schema", tool: runtime.Tool{Meta: runtime.Meta{Name: "a_b", ArgsSchema: json.RawMessage(`{"type":"objekt"}`)}, Execute: echo}, wantErr: "args schema"},
		{desc: "illegal fallback", tool: runtime.Tool{Meta: runtime.Meta{Name: "a_b", FallbackTool: "a b"}, Execute: echo}, wantErr: `fallback_tool: name "a b"`},
		{desc: "self fallback", tool: runtime.Tool{Meta: runtime.Meta{Name: "a_b", FallbackTool: "a_b"}, Execute: echo}, wantErr: "fallback"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			err := runtime.New().Register(tt.tool)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Register: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Register error = %v, want it to mention %q", err, tt.wantErr)
			}
		})
	}
	t.Run("duplicate", func(t *testing.T) {
		r := runtime.New()
		mustRegister(t, r, runtime.Tool{Meta: searchMeta(), Execute: echo})
		if err := r.Register(runtime.Tool{Meta: searchMeta(), Execute: echo}); err == nil || !strings.Contains(err.Error(), "already registered") {
			t.Fatalf("second Register = %v, want a duplicate error", err)
		}
	})
}

func TestGetListVisible(t *testing.T) {
	r := runtime.New()
	for _, name := range []string{"zeta_list", "alpha_get", "mid_delete", "hidden_find"} {
		m := runtime.Meta{Name: name, Risk: runtime.RiskLow}
		switch name {
		case "mid_delete":
			m.HasSideEffects, m.Risk = true, runtime.RiskHigh
		case "hidden_find":
			m.Exposure = runtime.ExposureHidden
		}
		mustRegister(t, r, runtime.Tool{Meta: m, Execute: echo})
	}
	names := func(ts []runtime.Tool) []string {
		var out []string
		for _, t := range ts {
			out = append(out, t.Meta.Name)
		}
		return out
	}
	if diff := cmp.Diff([]string{"alpha_get", "hidden_find", "mid_delete", "zeta_list"}, names(r.List())); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(r.Names(), names(r.List())); diff != "" {
		t.Errorf("Names differs from List:\n%s", diff)
	}
	if diff := cmp.Diff([]string{"alpha_get", "zeta_list"}, names(r.Visible(runtime.AutonomyReadOnly))); diff != "" {
		t.Errorf("Visible(read_only) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"alpha_get", "mid_delete", "zeta_list"}, names(r.Visible(runtime.AutonomyFull))); diff != "" {
		t.Errorf("Visible(full) (-want +got):\n%s", diff)
	}
	if tool, ok := r.Get("mid_delete"); !ok || tool.Meta.Risk != runtime.RiskHigh {
		t.Errorf("Get(mid_delete) = %+v, %v", tool.Meta, ok)
	}
	if _, ok := r.Get("nope"); ok {
		t.Error("Get(nope) found a tool")
	}
}

func TestUnknownTool(t *testing.T) {
	r := runtime.New()
	for _, n := range []string{"search_articles", "search_authors", "list_categories", "get_article"} {
		mustRegister(t, r, runtime.Tool{Meta: runtime.Meta{Name: n}, Execute: echo})
	}
	res := r.Call(context.Background(), "search_article", []byte(`{}`), runtime.CallOptions{})
	if res.Success || res.Error.Code != runtime.CodeNotFound {
		t.Fatalf("got %s", res.JSON())
	}
	if !strings.Contains(res.Error.Message, "search_articles") {
		t.Errorf("message %q does not name the closest tool", res.Error.Message)
	}
	closest, _ := res.Error.Details["closest"].([]string)
	if len(closest) == 0 || len(closest) > 3 || closest[0] != "search_articles" {
		t.Errorf("closest = %v, want search_articles first, at most 3", closest)
	}
}

// validationCase is one call of search_articles and the error it must get.
type validationCase struct {
	desc        string
	args        string
	wantCode    runtime.Code // empty: success
	wantField   string
	wantMessage string // substring
	wantSugg    string // substring
	wantData    map[string]any
	wantDetails map[string]any // subset
}

var validationCases = []validationCase{
	{desc: "valid with defaults", args: `{"query":"pgvector"}`,
		wantData: map[string]any{"query": "pgvector", "max_results": 5.0, "sort": "relevance"}},
	{desc: "valid explicit", args: `{"query":"pg","max_results":20,"sort":"date"}`,
		wantData: map[string]any{"query": "pg", "max_results": 20.0, "sort": "date"}},
	{desc: "integer written as float", args: `{"query":"pg","max_results":3.0}`,
		wantData: map[string]any{"query": "pg", "max_results": 3.0, "sort": "relevance"}},
	{desc: "above maximum", args: `{"query":"pg","max_results":50}`, wantCode: runtime.CodeInvalidArgs,
		wantField: "/max_results", wantMessage: "max_results=50 is above the maximum 20", wantSugg: "between 1 and 20",
		wantDetails: map[string]any{"received": 50.0, "allowed": map[string]any{"minimum": 1.0, "maximum": 20.0}}},
	{desc: "below minimum", args: `{"query":"pg","max_results":0}`, wantCode: runtime.CodeInvalidArgs,
		wantField: "/max_results", wantMessage: "below the minimum 1"},
	{desc: "not an integer", args: `{"query":"pg","max_results":2.5}`, wantCode: runtime.CodeInvalidArgs,
		wantField: "/max_results", wantMessage: "must be an integer"},
	{desc: "wrong type", args: `{"query":42}`, wantCode: runtime.CodeInvalidArgs,
		wantField: "/query", wantMessage: "query must be a string, got", wantDetails: map[string]any{"allowed": map[string]any{"type": "string"}, "received": 42.0}},
	{desc: "wrong type object", args: `{"query":{"a":[1]}}`, wantCode: runtime.CodeInvalidArgs,
		wantField: "/query", wantMessage: "query must be a string, got object", wantDetails: map[string]any{"received": map[string]any{"a": []any{1.0}}}},
	{desc: "enum", args: `{"query":"pg","sort":"newest"}`, wantCode: runtime.CodeInvalidArgs,
		wantField: "/sort", wantMessage: `not one of the allowed values: "relevance", "date"`,
		wantDetails: map[string]any{"allowed": []any{"relevance", "date"}, "received": "newest"}},
	{desc: "enum typo", args: `{"query":"pg","sort":"dat"}`, wantCode: runtime.CodeInvalidArgs,
		wantField: "/sort", wantSugg: `Did you mean "date"?`},
	{desc: "too short", args: `{"query":"p"}`, wantCode: runtime.CodeInvalidArgs,
		wantField: "/query", wantMessage: "1 characters long, below the minimum length 2",
		wantDetails: map[string]any{"received": "p"}},
	{desc: "length counts characters", args: `{"query":"é"}`, wantCode: runtime.CodeInvalidArgs, wantField: "/query"},
	{desc: "missing required", args: `{"max_results":3}`, wantCode: runtime.CodeInvalidArgs,
		wantField: "/query", wantMessage: "missing required argument query"},
	{desc: "empty arguments", args: ``, wantCode: runtime.CodeInvalidArgs, wantField: "/query"},
	{desc: "null arguments", args: `null`, wantCode: runtime.CodeInvalidArgs, wantField: "/query"},
	{desc: "unknown argument", args: `{"query":"pg","maxresults":3}`, wantCode: runtime.CodeInvalidArgs,
		wantField: "/maxresults", wantMessage: `did you mean "max_results"`, wantSugg: "Valid arguments: max_results, query, sort",
		wantDetails: map[string]any{"closest": "max_results", "valid_args": []any{"max_results", "query", "sort"}}},
	{desc: "not an object", args: `["pg"]`, wantCode: runtime.CodeInvalidArgs, wantField: "", wantMessage: "must be an object"},
	{desc: "malformed", args: `{"query":`, wantCode: runtime.CodeInvalidArgs, wantField: "", wantMessage: "not valid JSON"},
	{desc: "trailing data", args: `{"query":"pg"} {}`, wantCode: runtime.CodeInvalidArgs, wantMessage: "not valid JSON"},
}

// TestValidation runs every case through the general validator and the
// generated one (written by hand in bench_test.go): both must agree.
func TestValidation(t *testing.T) {
	validators := map[string]func(testing.TB) runtime.Validator{
		"schema":    func(testing.TB) runtime.Validator { return nil },
		"generated": func(testing.TB) runtime.Validator { return searchArticlesValidator },
	}
	for vname, mk := range validators {
		r := runtime.New(runtime.WithLogger(quietLogger()))
		tool := runtime.Tool{Meta: searchMeta(), Validator: mk(t), Execute: func(_ context.Context, a any) (any, error) {
			if g, ok := a.(*SearchArticlesArgs); ok { // normalise to the map form
				return map[string]any{"query": g.Query, "max_results": float64(g.MaxResults), "sort": g.Sort}, nil
			}
			return a, nil
		}}
		mustRegister(t, r, tool)
		for _, tt := range validationCases {
			t.Run(vname+"/"+tt.desc, func(t *testing.T) {
				res := r.Call(context.Background(), "search_articles", []byte(tt.args), runtime.CallOptions{})
				env := envelope(t, res)
				if tt.wantCode == "" {
					if !res.Success {
						t.Fatalf("want success, got %s", res.JSON())
					}
					if diff := cmp.Diff(tt.wantData, env["data"]); diff != "" {
						t.Errorf("data (-want +got):\n%s", diff)
					}
					return
				}
				if res.Success || res.Error.Code != tt.wantCode {
					t.Fatalf("want %s, got %s", tt.wantCode, res.JSON())
				}
				e := env["error"].(map[string]any)
				det, _ := e["details"].(map[string]any)
				if det["field"] != tt.wantField {
					t.Errorf("details.field = %v, want %q (%s)", det["field"], tt.wantField, res.JSON())
				}
				if !strings.Contains(res.Error.Message, tt.wantMessage) {
					t.Errorf("message %q does not contain %q", res.Error.Message, tt.wantMessage)
				}
				if !strings.Contains(res.Error.Suggestion, tt.wantSugg) {
					t.Errorf("suggestion %q does not contain %q", res.Error.Suggestion, tt.wantSugg)
				}
				if e["retry_allowed"] != true {
					t.Errorf("retry_allowed = %v, want true", e["retry_allowed"])
				}
				for k, want := range tt.wantDetails {
					if diff := cmp.Diff(want, det[k]); diff != "" {
						t.Errorf("details.%s (-want +got):\n%s", k, diff)
					}
				}
			})
		}
	}
}

func TestAdditionalArgsPolicy(t *testing.T) {
	tests := []struct {
		desc     string
		policy   runtime.AdditionalArgs
		schema   string
		wantOK   bool
		wantData map[string]any
	}{
		{desc: "reject", policy: runtime.AdditionalArgsReject, schema: `{"type":"object","properties":{"q":{"type":"string"}}}`},
		{desc: "strip", policy: runtime.AdditionalArgsStrip, schema: `{"type":"object","additionalProperties":false,"properties":{"q":{"type":"string"}}}`,
			wantOK: true, wantData: map[string]any{"q": "x"}},
		{desc: "allow", policy: runtime.AdditionalArgsAllow, schema: `{"type":"object","properties":{"q":{"type":"string"}}}`,
			wantOK: true, wantData: map[string]any{"q": "x", "extra": 1.0}},
		{desc: "allow but the schema forbids", policy: runtime.AdditionalArgsAllow, schema: `{"type":"object","additionalProperties":false,"properties":{"q":{"type":"string"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			r := runtime.New()
			mustRegister(t, r, runtime.Tool{Meta: runtime.Meta{Name: "find_x", AdditionalArgs: tt.policy, ArgsSchema: json.RawMessage(tt.schema)}, Execute: echo})
			res := r.Call(context.Background(), "find_x", []byte(`{"q":"x","extra":1}`), runtime.CallOptions{})
			if res.Success != tt.wantOK {
				t.Fatalf("success = %v, want %v: %s", res.Success, tt.wantOK, res.JSON())
			}
			if !tt.wantOK {
				if res.Error.Code != runtime.CodeInvalidArgs || res.Error.Details["field"] != "/extra" {
					t.Fatalf("want invalid_args at /extra, got %s", res.JSON())
				}
				return
			}
			if diff := cmp.Diff(tt.wantData, envelope(t, res)["data"]); diff != "" {
				t.Errorf("data (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNestedValidationAndDefaults(t *testing.T) {
	schema := `{"type":"object","additionalProperties":false,"properties":{
	  "filter":{"type":"object","additionalProperties":false,"properties":{
	    "limit":{"type":"integer","maximum":10,"default":3},
	    "tags":{"type":"array","items":{"type":"string"},"maxItems":2,"default":["a"]}}}}}`
	r := runtime.New()
	mustRegister(t, r, runtime.Tool{Meta: runtime.Meta{Name: "list_x", ArgsSchema: json.RawMessage(schema)}, Execute: echo})
	call := func(args string) runtime.Result {
		return r.Call(context.Background(), "list_x", []byte(args), runtime.CallOptions{})
	}
	res := call(`{"filter":{}}`)
	want := map[string]any{"filter": map[string]any{"limit": 3.0, "tags": []any{"a"}}}
	if diff := cmp.Diff(want, envelope(t, res)["data"]); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
	res = call(`{"filter":{"limit":11}}`)
	if res.Success || res.Error.Details["field"] != "/filter/limit" || !strings.Contains(res.Error.Message, "filter.limit=11") {
		t.Errorf("nested bound: %s", res.JSON())
	}
	res = call(`{"filter":{"limt":1}}`)
	if res.Success || res.Error.Details["closest"] != "limit" || res.Error.Details["field"] != "/filter/limt" {
		t.Errorf("nested unknown field: %s", res.JSON())
	}
	res = call(`{"filter":{"tags":["a","b","c"]}}`)
	if res.Success || res.Error.Details["field"] != "/filter/tags" || !strings.Contains(res.Error.Message, "3 items") {
		t.Errorf("maxItems: %s", res.JSON())
	}
	// Defaults are copied: a tool changing them does not change the next call.
	mustRegister(t, r, runtime.Tool{Meta: runtime.Meta{Name: "list_y", ArgsSchema: json.RawMessage(schema)}, Execute: func(_ context.Context, a any) (any, error) {
		f := a.(map[string]any)["filter"].(map[string]any)
		f["tags"].([]any)[0] = "changed"
		return a, nil
	}})
	r.Call(context.Background(), "list_y", []byte(`{"filter":{}}`), runtime.CallOptions{})
	res = r.Call(context.Background(), "list_y", []byte(`{"filter":{}}`), runtime.CallOptions{})
	if got := envelope(t, res)["data"].(map[string]any)["filter"].(map[string]any)["tags"]; !cmp.Equal(got, []any{"changed"}) {
		t.Errorf("second call saw tags %v; want the default copied afresh (then changed once)", got)
	}
}

func TestPanicIsInternal(t *testing.T) {
	var logs logBuffer
	r := runtime.New(runtime.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	mustRegister(t, r, runtime.Tool{Meta: runtime.Meta{Name: "crash_now"}, Execute: func(context.Context, any) (any, error) {
		var m map[string]int
		m["boom"]++ // nil map write panics
		return nil, nil
	}})
	res := r.Call(context.Background(), "crash_now", nil, runtime.CallOptions{})
	if res.Success || res.Error.Code != runtime.CodeInternal || res.Error.RetryAllowed {
		t.Fatalf("got %s", res.JSON())
	}
	out := string(res.JSON())
	for _, leak := range []string{"goroutine", ".go:", "panic", "nil map"} {
		if strings.Contains(out, leak) {
			t.Errorf("envelope leaks %q: %s", leak, out)
		}
	}
	if !strings.Contains(logs.String(), "registry_test.go") || !strings.Contains(logs.String(), "nil map") {
		t.Errorf("the host's log lacks the stack: %s", logs.String())
	}
}

func TestToolErrors(t *testing.T) {
	meta := runtime.Meta{
		Name: "get_article", FallbackTool: "get_article_cached",
		ErrorHints: map[runtime.Code]string{runtime.CodeNotFound: "No article has this id; search for it first."},
	}
	tests := []struct {
		desc      string
		err       error
		wantCode  runtime.Code
		wantRetry bool
		wantSugg  string
		wantMsg   string
	}{
		{desc: "catalog hint overrides the default", err: runtime.NotFound("article 7 does not exist"),
			wantCode: runtime.CodeNotFound, wantSugg: "No article has this id; search for it first.", wantMsg: "article 7 does not exist"},
		{desc: "own suggestion wins", err: runtime.NotFound("x").WithSuggestion("Ask the user."),
			wantCode: runtime.CodeNotFound, wantSugg: "Ask the user."},
		{desc: "default suggestion", err: runtime.RateLimited("slow down"),
			wantCode: runtime.CodeRateLimited, wantRetry: true, wantSugg: runtime.CodeRateLimited.DefaultSuggestion()},
		{desc: "fallback named", err: runtime.DependencyUnavailable("db down"),
			wantCode: runtime.CodeDependencyUnavailable, wantRetry: true, wantSugg: "get_article_cached"},
		{desc: "retry override", err: runtime.ExternalError("bad gateway").WithRetryAllowed(false),
			wantCode: runtime.CodeExternalError, wantRetry: false},
		{desc: "wrapped tool error", err: errors.Join(errors.New("ctx"), runtime.PermissionDenied("no")),
			wantCode: runtime.CodePermissionDenied},
		{desc: "not implemented", err: runtime.ErrNotImplemented, wantCode: runtime.CodeUnsupported},
		{desc: "plain error", err: errors.New("disk on fire"), wantCode: runtime.CodeInternal, wantMsg: "disk on fire"},
		{desc: "unknown code", err: runtime.Errorf("weird", "odd %d", 1), wantCode: runtime.CodeInternal, wantMsg: "odd 1"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			r := runtime.New(runtime.WithLogger(quietLogger()))
			mustRegister(t, r, runtime.Tool{Meta: meta, Execute: func(context.Context, any) (any, error) { return nil, tt.err }})
			res := r.Call(context.Background(), "get_article", nil, runtime.CallOptions{})
			if res.Success || res.Error.Code != tt.wantCode {
				t.Fatalf("want %s, got %s", tt.wantCode, res.JSON())
			}
			if res.Error.RetryAllowed != tt.wantRetry {
				t.Errorf("retry_allowed = %v, want %v", res.Error.RetryAllowed, tt.wantRetry)
			}
			if !strings.Contains(res.Error.Suggestion, tt.wantSugg) {
				t.Errorf("suggestion %q does not contain %q", res.Error.Suggestion, tt.wantSugg)
			}
			if !strings.Contains(res.Error.Message, tt.wantMsg) {
				t.Errorf("message %q does not contain %q", res.Error.Message, tt.wantMsg)
			}
		})
	}
}

func TestCodes(t *testing.T) {
	want := []string{"invalid_args", "not_found", "permission_denied", "approval_required", "rate_limited",
		"quota_exceeded", "dependency_unavailable", "external_error", "timeout", "idempotency_conflict",
		"retry_exhausted", "unsupported", "internal"}
	var got []string
	for _, c := range runtime.Codes() {
		got = append(got, string(c))
		if c.DefaultSuggestion() == "" {
			t.Errorf("%s has no default suggestion", c)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("codes (-want +got):\n%s", diff)
	}
	ctors := map[runtime.Code]func(string) *runtime.ToolError{
		runtime.CodeInvalidArgs: runtime.InvalidArgs, runtime.CodeNotFound: runtime.NotFound,
		runtime.CodePermissionDenied: runtime.PermissionDenied, runtime.CodeApprovalRequired: runtime.ApprovalRequired,
		runtime.CodeRateLimited: runtime.RateLimited, runtime.CodeQuotaExceeded: runtime.QuotaExceeded,
		runtime.CodeDependencyUnavailable: runtime.DependencyUnavailable, runtime.CodeExternalError: runtime.ExternalError,
		runtime.CodeTimeout: runtime.Timeout, runtime.CodeIdempotencyConflict: runtime.IdempotencyConflict,
		runtime.CodeRetryExhausted: runtime.RetryExhausted, runtime.CodeUnsupported: runtime.Unsupported,
		runtime.CodeInternal: runtime.Internal,
	}
	for _, c := range runtime.Codes() {
		e := ctors[c]("m")
		if e == nil || e.Code != c || e.RetryAllowed != c.DefaultRetryAllowed() || e.Error() != string(c)+": m" {
			t.Errorf("constructor of %s = %+v", c, e)
		}
	}
}

func TestEnvelopeJSON(t *testing.T) {
	tests := []struct {
		desc string
		res  runtime.Result
		want string
	}{
		{desc: "success", res: runtime.OK(map[string]int{"n": 1}), want: `{"success":true,"data":{"n":1}}`},
		{desc: "success without data", res: runtime.OK(nil), want: `{"success":true,"data":null}`},
		{desc: "replay", res: runtime.Result{Success: true, Data: json.RawMessage(`{"n":1}`), Replayed: true},
			want: `{"success":true,"data":{"n":1},"replayed":true}`},
		{desc: "failure", res: runtime.Fail(runtime.InvalidArgs("max_results=50 is above the maximum 20").
			WithSuggestion("Use a value between 1 and 20.").WithDetail("field", "/max_results")),
			want: `{"success":false,"error":{"code":"invalid_args","message":"max_results=50 is above the maximum 20","suggestion":"Use a value between 1 and 20.","retry_allowed":true,"details":{"field":"/max_results"}}}`},
		{desc: "failure without details", res: runtime.Fail(runtime.Timeout("slow")),
			want: `{"success":false,"error":{"code":"timeout","message":"slow","suggestion":"` + runtime.CodeTimeout.DefaultSuggestion() + `","retry_allowed":true}}`},
		{desc: "tags are not escaped", res: runtime.OK("<untrusted-x>"), want: `{"success":true,"data":"<untrusted-x>"}`},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			if got := string(tt.res.JSON()); got != tt.want {
				t.Errorf("JSON:\n got %s\nwant %s", got, tt.want)
			}
			b, err := json.Marshal(tt.res)
			if err != nil {
				t.Fatal(err)
			}
			var back runtime.Result
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if back.Success != tt.res.Success || back.Replayed != tt.res.Replayed {
				t.Errorf("round trip lost fields: %s", b)
			}
		})
	}
}

func TestAutonomyGate(t *testing.T) {
	r := runtime.New(runtime.WithPolicy(func(_ context.Context, m *runtime.Meta, o *runtime.CallOptions) *runtime.ToolError {
		if m.CapabilityRequired == "admin" && o.Sender != "root" {
			return runtime.PermissionDenied("capability admin is not granted to " + o.Sender)
		}
		return nil
	}))
	mustRegister(t, r,
		runtime.Tool{Meta: runtime.Meta{Name: "read_file", Risk: runtime.RiskLow}, Execute: echo},
		runtime.Tool{Meta: runtime.Meta{Name: "write_file", Risk: runtime.RiskLow, HasSideEffects: true}, Execute: echo},
		runtime.Tool{Meta: runtime.Meta{Name: "delete_file", Risk: runtime.RiskHigh, HasSideEffects: true, SupportsDryRun: true},
			Execute: echo, DryRun: func(context.Context, any) (any, error) { return &runtime.Preview{Summary: "would delete"}, nil }},
		runtime.Tool{Meta: runtime.Meta{Name: "reset_db", Risk: runtime.RiskHigh, HasSideEffects: true, MinAutonomy: runtime.AutonomyFull}, Execute: echo},
		runtime.Tool{Meta: runtime.Meta{Name: "admin_panel", CapabilityRequired: "admin"}, Execute: echo},
		runtime.Tool{Meta: runtime.Meta{Name: "add_todo", Risk: runtime.RiskLow, HasSideEffects: true, SideEffect: runtime.SideEffectAdditive}, Execute: echo},
		runtime.Tool{Meta: runtime.Meta{Name: "overwrite_file", Risk: runtime.RiskLow, HasSideEffects: true, SideEffect: runtime.SideEffectOverwrites}, Execute: echo},
		runtime.Tool{Meta: runtime.Meta{Name: "rename_file", Risk: runtime.RiskLow, HasSideEffects: true, SideEffect: runtime.SideEffectOverwrites, Revertible: true},
			Execute: echo, Revert: func(context.Context, any, json.RawMessage) (any, error) { return nil, nil }},
		runtime.Tool{Meta: runtime.Meta{Name: "send_mail", Risk: runtime.RiskMedium, HasSideEffects: true, SideEffect: runtime.SideEffectAdditive}, Execute: echo},
	)
	tests := []struct {
		desc     string
		tool     string
		opts     runtime.CallOptions
		wantCode runtime.Code
		wantMsg  string
	}{
		{desc: "supervised adds at low risk", tool: "add_todo", opts: runtime.CallOptions{Autonomy: runtime.AutonomySupervised}},
		{desc: "supervised needs approval to overwrite for good", tool: "overwrite_file", opts: runtime.CallOptions{Autonomy: runtime.AutonomySupervised},
			wantCode: runtime.CodeApprovalRequired, wantMsg: "tool overwrite_file is low risk and overwrites data that it cannot restore: the user must approve this call"},
		{desc: "supervised overwrites what a revert restores", tool: "rename_file", opts: runtime.CallOptions{Autonomy: runtime.AutonomySupervised}},
		{desc: "medium risk says what it does", tool: "send_mail", opts: runtime.CallOptions{Autonomy: runtime.AutonomySupervised},
			wantCode: runtime.CodeApprovalRequired, wantMsg: "tool send_mail is medium risk and adds data: the user must approve this call"},
		{desc: "an unsaid side effect reads as before", tool: "delete_file", opts: runtime.CallOptions{Autonomy: runtime.AutonomySupervised},
			wantCode: runtime.CodeApprovalRequired, wantMsg: "tool delete_file is high risk and has side effects: the user must approve this call"},
		{desc: "read-only reads", tool: "read_file", opts: runtime.CallOptions{Autonomy: runtime.AutonomyReadOnly}},
		{desc: "read-only cannot write", tool: "write_file", opts: runtime.CallOptions{Autonomy: runtime.AutonomyReadOnly}, wantCode: runtime.CodePermissionDenied},
		{desc: "read-only may preview", tool: "delete_file", opts: runtime.CallOptions{Autonomy: runtime.AutonomyReadOnly, DryRun: true}},
		{desc: "supervised writes low risk", tool: "write_file", opts: runtime.CallOptions{Autonomy: runtime.AutonomySupervised}},
		{desc: "supervised needs approval for high risk", tool: "delete_file", opts: runtime.CallOptions{Autonomy: runtime.AutonomySupervised}, wantCode: runtime.CodeApprovalRequired},
		{desc: "supervised with approval", tool: "delete_file", opts: runtime.CallOptions{Autonomy: runtime.AutonomySupervised, Approved: true}},
		{desc: "min autonomy", tool: "reset_db", opts: runtime.CallOptions{Autonomy: runtime.AutonomySupervised, Approved: true}, wantCode: runtime.CodePermissionDenied},
		{desc: "full", tool: "reset_db", opts: runtime.CallOptions{Autonomy: runtime.AutonomyFull}},
		{desc: "default is full", tool: "reset_db"},
		{desc: "policy refuses", tool: "admin_panel", opts: runtime.CallOptions{Sender: "bob"}, wantCode: runtime.CodePermissionDenied},
		{desc: "policy allows", tool: "admin_panel", opts: runtime.CallOptions{Sender: "root"}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			res := r.Call(context.Background(), tt.tool, nil, tt.opts)
			if tt.wantCode == "" {
				if !res.Success {
					t.Fatalf("want success, got %s", res.JSON())
				}
				return
			}
			if res.Success || res.Error.Code != tt.wantCode {
				t.Fatalf("want %s, got %s", tt.wantCode, res.JSON())
			}
			if tt.wantMsg != "" && res.Error.Message != tt.wantMsg {
				t.Errorf("message %q, want %q", res.Error.Message, tt.wantMsg)
			}
		})
	}
}

func TestDryRun(t *testing.T) {
	var executed int
	r := runtime.New()
	exec := func(_ context.Context, a any) (any, error) { executed++; return a, nil }
	mustRegister(t, r,
		runtime.Tool{Meta: runtime.Meta{Name: "delete_file", HasSideEffects: true, SupportsDryRun: true}, Execute: exec,
			DryRun: func(context.Context, any) (any, error) {
				return runtime.Preview{Summary: "would delete 1 file", Effects: []string{"remove /tmp/x"}}, nil
			}},
		runtime.Tool{Meta: runtime.Meta{Name: "send_mail", HasSideEffects: true}, Execute: exec},
		runtime.Tool{Meta: runtime.Meta{Name: "read_file"}, Execute: exec},
	)
	ctx := context.Background()
	res := r.Call(ctx, "delete_file", nil, runtime.CallOptions{DryRun: true})
	if got := string(res.JSON()); got != `{"success":true,"data":{"dry_run":true,"summary":"would delete 1 file","effects":["remove /tmp/x"]}}` {
		t.Errorf("preview: %s", got)
	}
	if res := r.Call(ctx, "send_mail", nil, runtime.CallOptions{DryRun: true}); res.Success || res.Error.Code != runtime.CodeUnsupported {
		t.Errorf("dry run without DryRun body on a side-effect tool: %s", res.JSON())
	}
	if res := r.Call(ctx, "read_file", nil, runtime.CallOptions{DryRun: true}); !res.Success {
		t.Errorf("dry run of a tool without side effects: %s", res.JSON())
	}
	if executed != 1 {
		t.Errorf("Execute ran %d times, want 1 (the read-only tool only)", executed)
	}
}

func TestRevert(t *testing.T) {
	r := runtime.New()
	mustRegister(t, r,
		runtime.Tool{Meta: runtime.Meta{Name: "create_note", HasSideEffects: true, Revertible: true}, Execute: echo,
			Revert: func(_ context.Context, a any, result json.RawMessage) (any, error) {
				return map[string]any{"reverted": string(result)}, nil
			}},
		runtime.Tool{Meta: runtime.Meta{Name: "send_mail", HasSideEffects: true}, Execute: echo},
	)
	res := r.Revert(context.Background(), "create_note", []byte(`{}`), json.RawMessage(`{"id":1}`), runtime.CallOptions{})
	if got := string(res.JSON()); got != `{"success":true,"data":{"reverted":"{\"id\":1}"}}` {
		t.Errorf("revert: %s", got)
	}
	if res := r.Revert(context.Background(), "send_mail", nil, nil, runtime.CallOptions{}); res.Success || res.Error.Code != runtime.CodeUnsupported {
		t.Errorf("revert of a tool without Revert: %s", res.JSON())
	}
}

func TestFallback(t *testing.T) {
	primary := runtime.Tool{
		Meta: runtime.Meta{Name: "search_live", FallbackTool: "search_cached", ArgsSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)},
		Execute: func(context.Context, any) (any, error) {
			return nil, runtime.DependencyUnavailable("search cluster is down")
		},
	}
	cached := runtime.Tool{
		Meta:    runtime.Meta{Name: "search_cached", ArgsSchema: json.RawMessage(`{"type":"object","required":["q"],"properties":{"q":{"type":"string"}}}`)},
		Execute: func(_ context.Context, a any) (any, error) { return map[string]any{"from": "cache"}, nil },
	}
	ctx := context.Background()
	t.Run("suggestion names the fallback", func(t *testing.T) {
		r := runtime.New()
		mustRegister(t, r, primary, cached)
		res := r.Call(ctx, "search_live", []byte(`{"q":"x"}`), runtime.CallOptions{})
		if res.Success || !strings.Contains(res.Error.Suggestion, "search_cached") {
			t.Fatalf("got %s", res.JSON())
		}
	})
	t.Run("automatic fallback", func(t *testing.T) {
		r := runtime.New(runtime.WithAutoFallback(true), runtime.WithLogger(quietLogger()))
		mustRegister(t, r, primary, cached)
		res := r.Call(ctx, "search_live", []byte(`{"q":"x"}`), runtime.CallOptions{})
		if !res.Success || res.Tool != "search_cached" {
			t.Fatalf("got %s from %s", res.JSON(), res.Tool)
		}
		// Arguments that do not fit the fallback: the original error stays.
		res = r.Call(ctx, "search_live", []byte(`{}`), runtime.CallOptions{})
		if res.Success || res.Error.Code != runtime.CodeDependencyUnavailable {
			t.Fatalf("args not fitting the fallback: %s", res.JSON())
		}
	})
}

func TestSLA(t *testing.T) {
	slow := func(ctx context.Context, _ any) (any, error) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(2 * time.Second):
			return "late", nil
		}
	}
	deaf := func(context.Context, any) (any, error) {
		time.Sleep(300 * time.Millisecond)
		return "late", nil
	}
	var cancelled = make(chan struct{}, 1)
	watch := func(ctx context.Context, _ any) (any, error) {
		<-ctx.Done()
		cancelled <- struct{}{}
		return nil, ctx.Err()
	}
	tests := []struct {
		desc    string
		fn      runtime.Func
		sla     time.Duration
		opts    []runtime.Option
		within  time.Duration
		wantMsg string
	}{
		{desc: "overrun is a timeout", fn: slow, sla: 20 * time.Millisecond, within: time.Second, wantMsg: "deadline of 20ms"},
		{desc: "factor stretches the deadline", fn: slow, sla: 10 * time.Millisecond, opts: []runtime.Option{runtime.WithSLAFactor(3)}, within: time.Second, wantMsg: "deadline of 30ms"},
		{desc: "context is cancelled", fn: watch, sla: 10 * time.Millisecond, within: time.Second, wantMsg: "deadline"},
		{desc: "late answer inline is a timeout", fn: deaf, sla: 20 * time.Millisecond, within: time.Second, wantMsg: "deadline"},
		{desc: "detached answers at the deadline", fn: deaf, sla: 20 * time.Millisecond, opts: []runtime.Option{runtime.WithDetachOnTimeout(true)}, within: 200 * time.Millisecond, wantMsg: "deadline"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			r := runtime.New(append([]runtime.Option{runtime.WithLogger(quietLogger())}, tt.opts...)...)
			mustRegister(t, r, runtime.Tool{Meta: runtime.Meta{Name: "slow_tool", SLA: tt.sla}, Execute: tt.fn})
			start := time.Now()
			res := r.Call(context.Background(), "slow_tool", nil, runtime.CallOptions{})
			if took := time.Since(start); took > tt.within {
				t.Errorf("answered after %v, want within %v", took, tt.within)
			}
			if res.Success || res.Error.Code != runtime.CodeTimeout || !res.Error.RetryAllowed {
				t.Fatalf("want timeout, got %s", res.JSON())
			}
			if !strings.Contains(res.Error.Message, tt.wantMsg) {
				t.Errorf("message %q does not contain %q", res.Error.Message, tt.wantMsg)
			}
		})
	}
	select {
	case <-cancelled:
	default:
		t.Error("the tool's context was not cancelled")
	}
	t.Run("caller cancellation", func(t *testing.T) {
		r := runtime.New()
		mustRegister(t, r, runtime.Tool{Meta: runtime.Meta{Name: "slow_tool"}, Execute: slow})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res := r.Call(ctx, "slow_tool", nil, runtime.CallOptions{})
		if res.Success {
			t.Fatalf("got %s", res.JSON())
		}
	})
}

func TestRetryGuard(t *testing.T) {
	var attempt int
	flaky := func(context.Context, any) (any, error) {
		attempt++
		return nil, runtime.ExternalError("upstream said no (attempt " + string(rune('0'+attempt)) + ")")
	}
	constant := func(context.Context, any) (any, error) { return nil, runtime.ExternalError("upstream said no") }
	ctx := context.Background()
	t.Run("max_retries then exhausted", func(t *testing.T) {
		attempt = 0
		r := runtime.New()
		mustRegister(t, r, runtime.Tool{Meta: runtime.Meta{Name: "call_api", MaxRetries: 2}, Execute: flaky})
		opts := runtime.CallOptions{StepID: "s1"}
		for i := 1; i <= 2; i++ {
			if res := r.Call(ctx, "call_api", []byte(`{}`), opts); res.Error.Code != runtime.CodeExternalError {
				t.Fatalf("attempt %d: %s", i, res.JSON())
			}
		}
		// The failure that uses up the attempts is answered as itself, told
		// to stop.
		res := r.Call(ctx, "call_api", []byte(`{}`), opts)
		if res.Error.Code != runtime.CodeExternalError || res.Error.RetryAllowed || !strings.Contains(res.Error.Suggestion, "last attempt") {
			t.Fatalf("third failure: want external_error, the last attempt, got %s", res.JSON())
		}
		res = r.Call(ctx, "call_api", []byte(`{}`), opts)
		if res.Error.Code != runtime.CodeRetryExhausted || res.Error.RetryAllowed || !strings.Contains(res.Error.Suggestion, "Tell the user") ||
			!strings.Contains(res.Error.Message, "attempt 3") {
			t.Fatalf("fourth call: want retry_exhausted quoting the last error, got %s", res.JSON())
		}
		before := attempt
		if res := r.Call(ctx, "call_api", []byte(`{}`), opts); res.Error.Code != runtime.CodeRetryExhausted || attempt != before {
			t.Fatalf("after exhaustion the tool ran again or answered %s", res.JSON())
		}
		// Another step starts afresh.
		if res := r.Call(ctx, "call_api", []byte(`{}`), runtime.CallOptions{StepID: "s2"}); res.Error.Code != runtime.CodeExternalError {
			t.Fatalf("other step: %s", res.JSON())
		}
	})
	t.Run("identical failure stops at once", func(t *testing.T) {
		r := runtime.New()
		mustRegister(t, r, runtime.Tool{Meta: runtime.Meta{Name: "call_api", MaxRetries: 5}, Execute: constant})
		opts := runtime.CallOptions{StepID: "s1"}
		r.Call(ctx, "call_api", []byte(`{"a":1}`), opts)
		res := r.Call(ctx, "call_api", []byte(`{"a":1}`), opts)
		if res.Error.Code != runtime.CodeRetryExhausted || !strings.Contains(res.Error.Message, "same way twice") {
			t.Fatalf("identical second failure: %s", res.JSON())
		}
	})
	t.Run("invalid arguments count", func(t *testing.T) {
		r := runtime.New()
		mustRegister(t, r, runtime.Tool{Meta: searchMeta(), Execute: echo})
		opts := runtime.CallOptions{StepID: "s1"}
		r.Call(ctx, "search_articles", []byte(`{"query":"p"}`), opts)
		res := r.Call(ctx, "search_articles", []byte(`{"query":"p"}`), opts)
		if res.Error.Code != runtime.CodeRetryExhausted {
			t.Fatalf("repeated invalid call: %s", res.JSON())
		}
	})
	t.Run("success resets", func(t *testing.T) {
		fail := true
		r := runtime.New()
		mustRegister(t, r, runtime.Tool{Meta: runtime.Meta{Name: "call_api", MaxRetries: 1}, Execute: func(context.Context, any) (any, error) {
			if fail {
				attempt++
				return nil, runtime.Timeout("slow " + string(rune('a'+attempt)))
			}
			return "ok", nil
		}})
		opts := runtime.CallOptions{StepID: "s1"}
		r.Call(ctx, "call_api", nil, opts)
		fail = false
		r.Call(ctx, "call_api", nil, opts)
		fail = true
		if res := r.Call(ctx, "call_api", nil, opts); res.Error.Code != runtime.CodeTimeout {
			t.Fatalf("after a success the count restarts: %s", res.JSON())
		}
	})
	t.Run("no step, no guard", func(t *testing.T) {
		r := runtime.New()
		mustRegister(t, r, runtime.Tool{Meta: runtime.Meta{Name: "call_api"}, Execute: constant})
		for range 3 {
			if res := r.Call(ctx, "call_api", nil, runtime.CallOptions{}); res.Error.Code != runtime.CodeExternalError {
				t.Fatalf("got %s", res.JSON())
			}
		}
	})
}

func TestReplayBypassesRetryGuard(t *testing.T) {
	fail := false
	r := runtime.New()
	mustRegister(t, r, runtime.Tool{Meta: runtime.Meta{Name: "send_mail", HasSideEffects: true}, Execute: func(_ context.Context, a any) (any, error) {
		if fail {
			return nil, runtime.ExternalError("smtp refused " + time.Now().String())
		}
		return "sent", nil
	}})
	ctx := context.Background()
	keyed := runtime.CallOptions{StepID: "s1", IdempotencyKey: "mail-1"}
	if res := r.Call(ctx, "send_mail", nil, keyed); !res.Success {
		t.Fatal(string(res.JSON()))
	}
	fail = true
	for range 2 {
		r.Call(ctx, "send_mail", []byte(`{"other":1}`), runtime.CallOptions{StepID: "s1"})
	}
	if res := r.Call(ctx, "send_mail", []byte(`{"other":2}`), runtime.CallOptions{StepID: "s1"}); res.Error.Code != runtime.CodeRetryExhausted {
		t.Fatalf("want the step exhausted, got %s", res.JSON())
	}
	if res := r.Call(ctx, "send_mail", nil, keyed); !res.Success || !res.Replayed {
		t.Fatalf("a stored result must still be served: %s", res.JSON())
	}
	if res := r.Call(ctx, "send_mail", nil, runtime.CallOptions{StepID: "s1", IdempotencyKey: "mail-2"}); res.Error.Code != runtime.CodeRetryExhausted {
		t.Fatalf("a new key in an exhausted step must not run: %s", res.JSON())
	}
}

// TestConcurrentUse calls tools from many goroutines while others are
// registered, under the race detector.
func TestConcurrentUse(t *testing.T) {
	r := runtime.New(runtime.WithLogger(quietLogger()))
	mustRegister(t, r,
		runtime.Tool{Meta: searchMeta(), Execute: echo},
		searchToolNamed("search_generated", searchArticlesValidator),
		runtime.Tool{Meta: runtime.Meta{Name: "fetch_page", ReturnsUntrusted: true, SLA: time.Second, AdditionalArgs: runtime.AdditionalArgsAllow}, Execute: echo},
	)
	ctx := context.Background()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 50 {
			mustRegister(t, r, runtime.Tool{Meta: runtime.Meta{Name: "extra_" + string(rune('a'+i%26)) + string(rune('a'+i/26))}, Execute: echo})
		}
	}()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				step := "s" + string(rune('0'+g))
				switch i % 4 {
				case 0:
					if res := r.Call(ctx, "search_generated", []byte(`{"query":"pg"}`), runtime.CallOptions{StepID: step}); !res.Success {
						t.Error(string(res.JSON()))
					}
				case 1:
					r.Call(ctx, "search_articles", []byte(`{"query":"p"}`), runtime.CallOptions{StepID: step})
				case 2:
					if res := r.Call(ctx, "fetch_page", []byte(`{"x":"<b>"}`), runtime.CallOptions{IdempotencyKey: "k" + step}); !res.Success {
						t.Error(string(res.JSON()))
					}
				default:
					_ = r.List()
					r.Call(ctx, "extra_aa", nil, runtime.CallOptions{})
				}
			}
		})
	}
	wg.Wait()
	<-done
	if n := len(r.List()); n != 53 {
		t.Errorf("%d tools registered, want 53", n)
	}
}

func TestValidatorPanicIsInternal(t *testing.T) {
	r := runtime.New(runtime.WithLogger(quietLogger()))
	mustRegister(t, r, runtime.Tool{
		Meta:      runtime.Meta{Name: "buggy_tool"},
		Validator: runtime.ValidatorFunc(func([]byte) (any, *runtime.ToolError) { panic("validator bug") }),
		Execute:   echo,
	})
	res := r.Call(context.Background(), "buggy_tool", nil, runtime.CallOptions{})
	if res.Success || res.Error.Code != runtime.CodeInternal || strings.Contains(string(res.JSON()), "validator bug") {
		t.Fatalf("got %s", res.JSON())
	}
}

func TestLateResultIsStoredForItsKey(t *testing.T) {
	for _, detach := range []bool{false, true} {
		t.Run(fmt.Sprintf("detach=%v", detach), func(t *testing.T) {
			runs := 0
			var mu sync.Mutex
			r := runtime.New(runtime.WithLogger(quietLogger()), runtime.WithDetachOnTimeout(detach))
			mustRegister(t, r, runtime.Tool{Meta: runtime.Meta{Name: "send_mail", HasSideEffects: true, SLA: 20 * time.Millisecond},
				Execute: func(context.Context, any) (any, error) {
					time.Sleep(60 * time.Millisecond) // ignores its context
					mu.Lock()
					defer mu.Unlock()
					runs++
					return "sent", nil
				}})
			opts := runtime.CallOptions{IdempotencyKey: "mail-1"}
			res := r.Call(context.Background(), "send_mail", nil, opts)
			if res.Success || res.Error.Code != runtime.CodeTimeout || !strings.Contains(res.Error.Suggestion, "same idempotency key") {
				t.Fatalf("first call: %s", res.JSON())
			}
			deadline := time.Now().Add(2 * time.Second)
			for {
				res = r.Call(context.Background(), "send_mail", nil, opts)
				if res.Success || time.Now().After(deadline) {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			if !res.Success || !res.Replayed {
				t.Fatalf("retry with the key: want the late result replayed, got %s", res.JSON())
			}
			mu.Lock()
			defer mu.Unlock()
			if runs != 1 {
				t.Fatalf("runs = %d, want 1", runs)
			}
		})
	}
}

// TestRetryGuardLastTry checks that with max_retries 0 (the catalog's
// default) the one failure a step allows keeps its code and catalog hint,
// told to stop, and that invalid arguments may be corrected.
func TestRetryGuardLastTry(t *testing.T) {
	ctx := context.Background()
	r := runtime.New()
	m := searchMeta()
	m.MaxRetries = 0
	m.ErrorHints = map[runtime.Code]string{runtime.CodeNotFound: "Search with other keywords first."}
	runs := 0
	mustRegister(t, r, runtime.Tool{Meta: m, Execute: func(context.Context, any) (any, error) {
		runs++
		return nil, runtime.NotFound("no article matched")
	}})
	opts := runtime.CallOptions{StepID: "s"}
	res := r.Call(ctx, m.Name, []byte(`{"query":"pgvector"}`), opts)
	if res.Error.Code != runtime.CodeNotFound || res.Error.RetryAllowed ||
		!strings.Contains(res.Error.Suggestion, "Search with other keywords first.") || !strings.Contains(res.Error.Suggestion, "last attempt") {
		t.Fatalf("the one failure allowed: %s", res.JSON())
	}
	if res := r.Call(ctx, m.Name, []byte(`{"query":"other"}`), opts); res.Error.Code != runtime.CodeRetryExhausted || runs != 1 {
		t.Fatalf("the call after it: %s (runs %d)", res.JSON(), runs)
	}
	// Invalid arguments are corrections: three differently wrong calls
	// answer invalid_args, then the step stops the tool.
	r2 := runtime.New()
	mustRegister(t, r2, runtime.Tool{Meta: m, Execute: echo})
	for i, q := range []string{`"p"`, `"q"`, `"r"`} {
		if res := r2.Call(ctx, m.Name, []byte(`{"query":`+q+`}`), opts); res.Error.Code != runtime.CodeInvalidArgs || !res.Error.RetryAllowed {
			t.Fatalf("invalid call %d: %s", i+1, res.JSON())
		}
	}
	if res := r2.Call(ctx, m.Name, []byte(`{"query":"s"}`), opts); res.Error.Code != runtime.CodeInvalidArgs || res.Error.RetryAllowed {
		t.Fatalf("fourth invalid call: want the last attempt, got %s", res.JSON())
	}
	if res := r2.Call(ctx, m.Name, []byte(`{"query":"pgvector"}`), opts); res.Error.Code != runtime.CodeRetryExhausted {
		t.Fatalf("after the invalid calls: %s", res.JSON())
	}
}
