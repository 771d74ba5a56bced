package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolcat/toolcat/runtime"
)

type noteArgs struct {
	Text string `json:"text"`
}

type noteResult struct {
	ID int `json:"id"`
}

func TestBind(t *testing.T) {
	fn := runtime.Bind(func(_ context.Context, a *noteArgs) (*noteResult, error) {
		if a.Text == "" {
			return nil, runtime.InvalidArgs("empty")
		}
		return &noteResult{ID: 7}, nil
	})
	got, err := fn(context.Background(), &noteArgs{Text: "x"})
	if err != nil || got.(*noteResult).ID != 7 {
		t.Fatalf("Bind = %v, %v", got, err)
	}
	got, err = fn(context.Background(), &noteArgs{})
	if err == nil || got != nil {
		t.Fatalf("failed call returned data %#v (want untyped nil), err %v", got, err)
	}
	_, err = fn(context.Background(), map[string]any{})
	var te *runtime.ToolError
	if !errors.As(err, &te) || te.Code != runtime.CodeInternal {
		t.Fatalf("wrong argument type: %v", err)
	}

}

func TestBindRevert(t *testing.T) {
	ctx := context.Background()
	var got *noteResult
	rv := runtime.BindRevert(func(_ context.Context, a *noteArgs, r *noteResult) error {
		got = r
		if r.ID < 0 {
			return runtime.NotFound("already gone")
		}
		return nil
	})
	if out, err := rv(ctx, &noteArgs{}, json.RawMessage(`{"id":9}`)); err != nil || out != nil || got.ID != 9 {
		t.Fatalf("BindRevert = %v, %v; revert got %+v", out, err, got)
	}
	// A null result still gives Revert a result to read.
	if _, err := rv(ctx, &noteArgs{}, json.RawMessage(`null`)); err != nil || got == nil || got.ID != 0 {
		t.Fatalf("null result: err %v, revert got %+v", err, got)
	}
	if _, err := rv(ctx, &noteArgs{}, json.RawMessage(`{"id":-1}`)); err == nil || err.Error() != "not_found: already gone" {
		t.Fatalf("Revert's error: %v", err)
	}
	for _, tc := range []struct {
		result string
		args   any
		code   runtime.Code
		msg    string
	}{
		{`{"id":"nine"}`, &noteArgs{}, runtime.CodeInvalidArgs, "the result to revert does not fit *runtime_test.noteResult: json: cannot unmarshal string into Go struct field noteResult.id of type int"},
		{``, &noteArgs{}, runtime.CodeInvalidArgs, "no result to revert: give the JSON data the call returned"},
		{`{"id":1}`, map[string]any{}, runtime.CodeInternal, "the validator returned map[string]interface {}, the tool takes *runtime_test.noteArgs"},
	} {
		got = nil
		_, err := rv(ctx, tc.args, json.RawMessage(tc.result))
		var te *runtime.ToolError
		if !errors.As(err, &te) || te.Code != tc.code || te.Message != tc.msg {
			t.Errorf("result %q, args %T: error %v, want %s: %s", tc.result, tc.args, err, tc.code, tc.msg)
		}
		if got != nil {
			t.Errorf("result %q, args %T: Revert ran", tc.result, tc.args)
		}
	}

	// A result that is not a struct is decoded as its type.
	var ids []int
	rl := runtime.BindRevert(func(_ context.Context, _ *noteArgs, r []int) error {
		ids = r
		return nil
	})
	if _, err := rl(ctx, &noteArgs{}, json.RawMessage(`[1,2]`)); err != nil || len(ids) != 2 || ids[1] != 2 {
		t.Fatalf("slice result: err %v, revert got %v", err, ids)
	}
}

// bindingImpls is a Tools struct of a generated package: an implementation
// for some of the tools.
type bindingImpls struct{ have map[string]bool }

func bindingTable(names ...string) []runtime.Binding[bindingImpls] {
	table := make([]runtime.Binding[bindingImpls], len(names))
	for i, name := range names {
		meta := func() runtime.Meta { return syntheticMeta(name) }
		table[i] = runtime.Binding[bindingImpls]{Name: name, Meta: meta, Bind: func(impls *bindingImpls) (runtime.Tool, bool, error) {
			if !impls.have[name] {
				return runtime.Tool{}, false, nil
			}
			return runtime.Tool{Meta: meta(), Validator: acceptAny, Execute: echoArgs}, true, nil
		}}
	}
	return table
}

var acceptAny = runtime.ValidatorFunc(func(raw []byte) (any, *runtime.ToolError) { return json.RawMessage(raw), nil })

func echoArgs(_ context.Context, a any) (any, error) { return a, nil }

// syntheticMeta is the catalog entry of a tool as generated code has it.
func syntheticMeta(name string) runtime.Meta {
	return runtime.Meta{
		Name:         name,
		Description:  "Lists the " + strings.ReplaceAll(name, "_", " ") + " of the account.\nUse when: the user asks for them.",
		Category:     "synthetic",
		ArgsSchema:   json.RawMessage(`{"type":"object","properties":{"account_id":{"type":"string","pattern":"^acc_[0-9]+$"},"max_results":{"type":"integer","minimum":1,"maximum":100}},"required":["account_id"]}`),
		ErrorHints:   map[runtime.Code]string{runtime.CodeNotFound: "Nothing matched; widen the filter."},
		Dependencies: []string{"postgresql"},
		SLA:          300 * time.Millisecond,
		MaxRetries:   2,
		Exposure:     runtime.ExposureCore,
		Version:      "1.0.0",
	}
}

func TestRegisterAll(t *testing.T) {
	names := []string{"b_tool", "a_tool", "c_tool"}
	table := bindingTable(names...)

	reg := runtime.New()
	changed := 0
	reg.OnToolsChanged(func() { changed++ })
	if err := runtime.RegisterAll(reg, &bindingImpls{have: map[string]bool{"a_tool": true, "b_tool": true, "c_tool": true}}, table); err != nil {
		t.Fatal(err)
	}
	if got := reg.Names(); !slices.Equal(got, []string{"a_tool", "b_tool", "c_tool"}) {
		t.Errorf("names = %v", got)
	}
	if changed != 1 {
		t.Errorf("OnToolsChanged hooks ran %d times for one table, want once", changed)
	}
	res := reg.Call(context.Background(), "c_tool", []byte(`{"account_id":"acc_1"}`), runtime.CallOptions{})
	if !res.Success {
		t.Fatalf("call: %+v", res.Error)
	}

	metas := runtime.BindingMetas(table)
	if len(metas) != 3 || metas[0].Name != "b_tool" || metas[2].Name != "c_tool" {
		t.Errorf("BindingMetas keeps the table's order: %v", metas)
	}

	// Every missing implementation is named; nothing is registered.
	reg = runtime.New()
	err := runtime.RegisterAll(reg, &bindingImpls{have: map[string]bool{"a_tool": true}}, table)
	if err == nil || err.Error() != "no implementation of b_tool, c_tool" {
		t.Errorf("err = %v", err)
	}
	if n := len(reg.Names()); n != 0 {
		t.Errorf("%d tools registered after a failed RegisterAll", n)
	}

	// A binding's error names its tool.
	bad := append(bindingTable("ok_tool"), runtime.Binding[bindingImpls]{Name: "bad_tool", Meta: func() runtime.Meta { return syntheticMeta("bad_tool") },
		Bind: func(*bindingImpls) (runtime.Tool, bool, error) {
			return runtime.Tool{}, true, fmt.Errorf("pattern does not compile")
		}})
	err = runtime.RegisterAll(runtime.New(), &bindingImpls{have: map[string]bool{"ok_tool": true}}, bad)
	if err == nil || err.Error() != "bad_tool: pattern does not compile" {
		t.Errorf("err = %v", err)
	}
}

func TestRegisterToolsAllOrNothing(t *testing.T) {
	tool := func(name, original string) runtime.Tool {
		m := syntheticMeta(name)
		m.OriginalName = original
		return runtime.Tool{Meta: m, Validator: acceptAny, Execute: echoArgs}
	}
	reg := runtime.New()
	if err := reg.Register(tool("first", "")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		batch []runtime.Tool
		want  string
	}{
		{[]runtime.Tool{tool("second", ""), tool("first", "")}, "tool first is already registered"},
		{[]runtime.Tool{tool("second", ""), tool("second", "")}, "tool second is already registered"},
		{[]runtime.Tool{tool("second", ""), tool("third", "second")}, "tool third: original name second is already registered"},
		{[]runtime.Tool{tool("second", ""), {Meta: syntheticMeta("fourth")}}, "tool fourth: no Execute function"},
	} {
		err := reg.RegisterTools(c.batch...)
		if err == nil || err.Error() != c.want {
			t.Errorf("RegisterTools(%s...): err = %v, want %q", c.batch[0].Meta.Name, err, c.want)
		}
		if got := reg.Names(); !slices.Equal(got, []string{"first"}) {
			t.Fatalf("after a refused batch the registry holds %v, want only first", got)
		}
	}
	if err := reg.RegisterTools(tool("second", ""), tool("third", "Third.Tool")); err != nil {
		t.Fatal(err)
	}
	if got := reg.Names(); !slices.Equal(got, []string{"first", "second", "third"}) {
		t.Errorf("names = %v", got)
	}
	if _, ok := reg.Get("Third.Tool"); !ok {
		t.Error("a tool registered in a batch is not found by its original name")
	}
}

// BenchmarkNewRegistry registers a generated package's table of n tools,
// as its NewRegistry does, and reports the heap the registry keeps per
// tool (retained-B/tool, after a GC).
func BenchmarkNewRegistry(b *testing.B) {
	for _, n := range []int{1000, 5000} {
		names := make([]string, n)
		have := map[string]bool{}
		for i := range names {
			names[i] = fmt.Sprintf("list_items_%05d", i)
			have[names[i]] = true
		}
		table := bindingTable(names...)
		impls := &bindingImpls{have: have}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var keep *runtime.Registry
			var before, after goruntime.MemStats
			goruntime.GC()
			goruntime.ReadMemStats(&before)
			for b.Loop() {
				reg := runtime.New()
				if err := runtime.RegisterAll(reg, impls, table); err != nil {
					b.Fatal(err)
				}
				keep = reg
			}
			goruntime.GC()
			goruntime.ReadMemStats(&after)
			b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(n), "retained-B/tool")
			goruntime.KeepAlive(keep)
		})
	}
}
