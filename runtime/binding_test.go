package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolcat/toolcat/runtime"
)

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
