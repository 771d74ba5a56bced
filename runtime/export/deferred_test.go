package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/runtime"
)

// deferMetas is testMetas with categories and two more hidden tools, so
// that the hidden set has tools of a category with a core tool in it
// (billing), of a category of their own and of none, strict and not.
func deferMetas() []runtime.Meta {
	metas := testMetas()
	for i := range metas {
		switch metas[i].Name {
		case "search_orders":
			metas[i].Category = "billing"
		case "describe_tool_usage":
			metas[i].Category = "" // hidden, no category
		}
	}
	return append(metas,
		runtime.Meta{
			Name:        "refund_order",
			Description: "Refunds an order in full or in part.",
			Category:    "billing",
			Risk:        runtime.RiskHigh, HasSideEffects: true, IdempotencyRequired: true, IdempotencyKeyArg: true,
			Exposure: runtime.ExposureHidden,
			// Not strict: default.
			ArgsSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["order_id"],"properties":{"order_id":{"type":"string"},"amount":{"type":"number","minimum":0,"default":0}}}`),
		},
		runtime.Meta{
			Name:        "read_invoice",
			Description: "Reads one invoice by its number.",
			Category:    "billing",
			Risk:        runtime.RiskLow, Idempotent: true,
			Exposure: runtime.ExposureHidden,
			// Strict-qualifying.
			ArgsSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["number"],"properties":{"number":{"type":"string"}}}`),
		},
		runtime.Meta{
			Name:        "export_audit_log",
			Description: "Exports the audit log of a day.",
			Category:    "audit",
			Risk:        runtime.RiskLow, Idempotent: true,
			// The zero exposure is core.
			ArgsSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["day"],"properties":{"day":{"type":"string","format":"date"}}}`),
		},
	)
}

var billingSpace = map[string]string{
	"billing": "Orders, invoices and refunds.",
	"audit":   "The audit log.", // has only a core tool: no namespace
}

// deferExports are the exporters that take DeferHidden, with the options
// of their golden file in testdata/defer_hidden.
var deferExports = []struct {
	desc string
	fn   Exporter
	opts []Option
}{
	{"anthropic", Anthropic, []Option{DeferHidden()}},
	{"anthropic_regex", Anthropic, []Option{DeferHiddenWith(ToolSearchRegex)}},
	{"openai_responses", OpenAIResponses, []Option{DeferHidden()}},
	{"openai_responses_namespaces", OpenAIResponses, []Option{DeferHidden(), NamespacesByCategory(billingSpace)}},
}

func TestDeferHiddenGolden(t *testing.T) {
	for _, e := range deferExports {
		t.Run(e.desc, func(t *testing.T) {
			got, err := e.fn(deferMetas(), e.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(got) {
				t.Fatalf("not JSON:\n%s", got)
			}
			golden(t, filepath.Join("defer_hidden", e.desc+".json"), got)
			again, _ := e.fn(deferMetas(), e.opts...)
			if !bytes.Equal(got, again) {
				t.Error("two exports of the same metas differ")
			}
		})
	}
}

// definitions decodes an Anthropic or OpenAI Responses "tools" array into
// its catalog tools by name (namespaces opened, the namespace of each noted)
// and the entries that are not catalog tools (search tools, namespaces).
func definitions(t *testing.T, data []byte) (tools map[string]map[string]any, space map[string]string, others []map[string]any) {
	t.Helper()
	var list []map[string]any
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	tools, space = map[string]map[string]any{}, map[string]string{}
	add := func(d map[string]any, ns string) {
		name, _ := d["name"].(string)
		if _, dup := tools[name]; dup {
			t.Fatalf("tool %s defined twice", name)
		}
		tools[name] = d
		if ns != "" {
			space[name] = ns
		}
	}
	for _, d := range list {
		switch ty, _ := d["type"].(string); {
		case ty == "namespace":
			others = append(others, d)
			inner, _ := d["tools"].([]any)
			if len(inner) == 0 {
				t.Errorf("namespace %v has no tools", d["name"])
			}
			for _, x := range inner {
				add(x.(map[string]any), d["name"].(string))
			}
		case ty == "tool_search" || strings.HasPrefix(ty, "tool_search_tool_"):
			others = append(others, d)
		default:
			add(d, "")
		}
	}
	return tools, space, others
}

func hiddenNames(metas []runtime.Meta) []string {
	var names []string
	for _, m := range metas {
		if m.Exposure == runtime.ExposureHidden {
			names = append(names, m.Name)
		}
	}
	slices.Sort(names)
	return names
}

// TestDeferredSetIsHiddenSet checks that exactly the hidden tools are
// deferred, every tool of the metas is defined once, and no entry besides
// the tools is deferred (the search tool never is).
func TestDeferredSetIsHiddenSet(t *testing.T) {
	metas := deferMetas()
	for _, e := range deferExports {
		t.Run(e.desc, func(t *testing.T) {
			got, err := e.fn(metas, e.opts...)
			if err != nil {
				t.Fatal(err)
			}
			tools, _, others := definitions(t, got)
			if len(tools) != len(metas) {
				t.Errorf("%d tools defined, want %d", len(tools), len(metas))
			}
			var deferred []string
			for name, d := range tools {
				switch v, ok := d["defer_loading"]; {
				case ok && v == true:
					deferred = append(deferred, name)
				case ok:
					t.Errorf("%s: defer_loading %v; it is written only as true", name, v)
				}
			}
			slices.Sort(deferred)
			if want := hiddenNames(metas); !slices.Equal(deferred, want) {
				t.Errorf("deferred %v, want the hidden tools %v", deferred, want)
			}
			searches := 0
			for _, o := range others {
				if _, ok := o["defer_loading"]; ok {
					t.Errorf("%v carries defer_loading", o)
				}
				if o["type"] != "namespace" {
					searches++
				}
			}
			if searches != 1 {
				t.Errorf("%d tool-search tools, want 1", searches)
			}
			// The search tool is last: the last entry, where a host puts
			// its cache_control breakpoint, is never deferred.
			var list []map[string]any
			json.Unmarshal(got, &list)
			if ty, _ := list[len(list)-1]["type"].(string); !strings.HasPrefix(ty, "tool_search") {
				t.Errorf("the last entry is %v, not the tool-search tool", list[len(list)-1])
			}
		})
	}
}

// TestDeferKeepsDefinitions checks that DeferHidden changes nothing but
// defer_loading: a core tool's definition is the one of the plain export,
// a hidden tool's the one of IncludeHidden plus "defer_loading": true, so
// OpenAI's strict mode is the same for deferred tools.
func TestDeferKeepsDefinitions(t *testing.T) {
	metas := deferMetas()
	for _, e := range deferExports {
		t.Run(e.desc, func(t *testing.T) {
			deferredOut, err := e.fn(metas, e.opts...)
			if err != nil {
				t.Fatal(err)
			}
			allOut, err := e.fn(metas, IncludeHidden())
			if err != nil {
				t.Fatal(err)
			}
			deferred, _, _ := definitions(t, deferredOut)
			all, _, _ := definitions(t, allOut)
			strictDeferred := 0
			for _, m := range metas {
				d, plain := deferred[m.Name], all[m.Name]
				if m.Exposure == runtime.ExposureHidden {
					if d["defer_loading"] != true {
						t.Fatalf("%s: not deferred", m.Name)
					}
					d = maps.Clone(d)
					delete(d, "defer_loading")
					if d["strict"] == true {
						strictDeferred++
					}
				}
				a, _ := json.Marshal(d)
				b, _ := json.Marshal(plain)
				if !bytes.Equal(a, b) {
					t.Errorf("%s:\ndeferred export %s\nplain export    %s", m.Name, a, b)
				}
			}
			if strings.HasPrefix(e.desc, "openai") && strictDeferred == 0 {
				t.Error("no deferred tool is strict: the test set lacks the case")
			}
		})
	}
}

func TestDeferNamespaces(t *testing.T) {
	metas := deferMetas()
	got, err := OpenAIResponses(metas, DeferHidden(), NamespacesByCategory(billingSpace))
	if err != nil {
		t.Fatal(err)
	}
	tools, space, others := definitions(t, got)
	want := map[string]string{"refund_order": "billing", "read_invoice": "billing"}
	if !maps.Equal(space, want) {
		t.Errorf("namespaces of tools %v, want %v", space, want)
	}
	for _, o := range others {
		if o["type"] == "namespace" && o["description"] != billingSpace[o["name"].(string)] {
			t.Errorf("namespace %v: description %v", o["name"], o["description"])
		}
	}
	// search_orders is core, in billing, and stays a function of its own.
	if _, ok := tools["search_orders"]; !ok || space["search_orders"] != "" {
		t.Error("core tool search_orders put in a namespace")
	}
	// Without DeferHidden, or for Anthropic, the option does nothing.
	plain, _ := OpenAIResponses(metas)
	if ns, _ := OpenAIResponses(metas, NamespacesByCategory(billingSpace)); !bytes.Equal(ns, plain) {
		t.Error("NamespacesByCategory without DeferHidden changed the export")
	}
	a, _ := Anthropic(metas, DeferHidden())
	if ns, _ := Anthropic(metas, DeferHidden(), NamespacesByCategory(billingSpace)); !bytes.Equal(ns, a) {
		t.Error("NamespacesByCategory changed the Anthropic export")
	}
	// The map is copied when the option is made.
	m := maps.Clone(billingSpace)
	opt := NamespacesByCategory(m)
	m["billing"] = ""
	if _, err := OpenAIResponses(metas, DeferHidden(), opt); err != nil {
		t.Errorf("a change to the map after NamespacesByCategory reached the option: %v", err)
	}
}

func TestDeferUnsupported(t *testing.T) {
	for _, fn := range []struct {
		desc string
		fn   Exporter
	}{{"openai_chat", OpenAIChat}, {"gemini", Gemini}, {"mcp", MCP}} {
		for _, metas := range [][]runtime.Meta{deferMetas(), testMetas()[:1], nil} {
			_, err := fn.fn(metas, DeferHidden())
			if !errors.Is(err, ErrDeferUnsupported) {
				t.Errorf("%s with %d tools: error %v, want ErrDeferUnsupported", fn.desc, len(metas), err)
			}
		}
	}
}

// TestDeferOnlyHidden: a catalog of hidden tools only is fine; the
// tool-search tool is the one entry not deferred, as the Messages API
// requires at least one.
func TestDeferOnlyHidden(t *testing.T) {
	var metas []runtime.Meta
	for _, m := range deferMetas() {
		if m.Exposure == runtime.ExposureHidden {
			metas = append(metas, m)
		}
	}
	for _, e := range deferExports {
		t.Run(e.desc, func(t *testing.T) {
			got, err := e.fn(metas, e.opts...)
			if err != nil {
				t.Fatal(err)
			}
			var list []map[string]any
			if err := json.Unmarshal(got, &list); err != nil {
				t.Fatal(err)
			}
			loaded := 0
			for _, d := range list {
				if d["defer_loading"] != true {
					loaded++
				}
			}
			if loaded == 0 {
				t.Errorf("every entry is deferred:\n%s", got)
			}
			if last := list[len(list)-1]; last["defer_loading"] != nil {
				t.Errorf("the last entry, where a host puts cache_control, is deferred: %v", last)
			}
		})
	}
}

// TestDeferNoHidden: without a hidden tool the export is the plain one,
// without a search tool.
func TestDeferNoHidden(t *testing.T) {
	var core []runtime.Meta
	for _, m := range deferMetas() {
		if m.Exposure != runtime.ExposureHidden {
			core = append(core, m)
		}
	}
	for _, e := range deferExports {
		want, err := e.fn(core)
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.fn(core, e.opts...)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: DeferHidden without hidden tools changed the export:\n%s", e.desc, got)
		}
	}
}

func TestDeferErrors(t *testing.T) {
	hidden := func(name, category string) runtime.Meta {
		return runtime.Meta{Name: name, Category: category, Exposure: runtime.ExposureHidden}
	}
	many := make([]runtime.Meta, anthropicMaxTools+1)
	for i := range many {
		many[i] = hidden(fmt.Sprintf("tool_%d", i), "")
	}
	for _, tc := range []struct {
		desc  string
		fn    Exporter
		metas []runtime.Meta
		opts  []Option
		want  string // in the error
	}{
		{"unknown variant anthropic", Anthropic, []runtime.Meta{hidden("a_b", "")}, []Option{DeferHiddenWith("semantic")}, `unknown tool search "semantic"`},
		{"unknown variant openai", OpenAIResponses, []runtime.Meta{hidden("a_b", "")}, []Option{DeferHiddenWith("")}, `unknown tool search ""`},
		{"search tool name", Anthropic, []runtime.Meta{hidden("tool_search_tool_bm25", "")}, []Option{DeferHidden()}, "has the name of Anthropic's tool-search tool"},
		{"search tool name regex", Anthropic, []runtime.Meta{hidden("a_b", ""), {Name: "tool_search_tool_regex"}}, []Option{DeferHiddenWith(ToolSearchRegex)}, "has the name of Anthropic's tool-search tool"},
		{"too many tools", Anthropic, many, []Option{DeferHidden()}, "10001 tools, more than the 10000"},
		{"empty category", OpenAIResponses, []runtime.Meta{hidden("a_b", "")}, []Option{DeferHidden(), NamespacesByCategory(map[string]string{"": "x"})}, "a category is empty"},
		{"category name", OpenAIResponses, []runtime.Meta{hidden("a_b", "c.d")}, []Option{DeferHidden(), NamespacesByCategory(map[string]string{"c.d": "x"})}, `category "c.d" is not a namespace name`},
		{"category is a tool", OpenAIResponses, []runtime.Meta{hidden("a_b", "c"), {Name: "c"}}, []Option{DeferHidden(), NamespacesByCategory(map[string]string{"c": "x"})}, `category "c" is also the name of a tool`},
		{"empty description", OpenAIResponses, []runtime.Meta{hidden("a_b", "c")}, []Option{DeferHidden(), NamespacesByCategory(map[string]string{"c": " \n"})}, `category "c" has an empty description`},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			_, err := tc.fn(tc.metas, tc.opts...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	// The name of the other variant's search tool is free.
	if _, err := Anthropic([]runtime.Meta{hidden("tool_search_tool_bm25", "")}, DeferHiddenWith(ToolSearchRegex)); err != nil {
		t.Errorf("tool_search_tool_bm25 with the regex variant: %v", err)
	}
	// At the limit is fine.
	if _, err := Anthropic(many[:anthropicMaxTools], DeferHidden()); err != nil {
		t.Errorf("%d tools: %v", anthropicMaxTools, err)
	}
}

func TestFormat(t *testing.T) {
	metas := deferMetas()
	for _, e := range append(deferExports, struct {
		desc string
		fn   Exporter
		opts []Option
	}{"mcp hidden", MCP, []Option{IncludeHidden()}}) {
		want, err := e.fn(metas, append([]Option{KeepOrder()}, e.opts...)...) // a Format keeps the order given
		if err != nil {
			t.Fatal(err)
		}
		got, err := Format(e.fn, e.opts...)(metas)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: Format gives %v\n%s\nwant\n%s", e.desc, err, got, want)
		}
	}
	// Hidden tools without DeferHidden or IncludeHidden are an error, not
	// silently left out.
	if _, err := Format(Anthropic)(metas); err == nil || !strings.Contains(err.Error(), "DeferHidden") {
		t.Errorf("hidden tools without DeferHidden: %v", err)
	}
	// The options are copied.
	opts := []Option{DeferHidden()}
	f := Format(OpenAIResponses, opts...)
	opts[0] = IncludeHidden()
	got, _ := f(metas)
	if !bytes.Contains(got, []byte(`"defer_loading": true`)) {
		t.Error("a change to the options slice after Format reached the Format")
	}
	// A nil exporter is an error, a nil option is skipped.
	if _, err := Format(nil)(metas); err == nil {
		t.Error("Format(nil) gave no error")
	}
	if got, err := Format(Anthropic, nil, DeferHidden())(metas); err != nil || !bytes.Contains(got, []byte("tool_search_tool_bm25_20251119")) {
		t.Errorf("a nil option: %v\n%s", err, got)
	}
	// Errors come through.
	if _, err := Format(MCP, DeferHidden())(metas); !errors.Is(err, ErrDeferUnsupported) {
		t.Errorf("Format(MCP, DeferHidden()) error %v", err)
	}
	var _ runtime.Format = Format(Gemini)
}
