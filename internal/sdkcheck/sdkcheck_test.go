package sdkcheck

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"google.golang.org/genai"

	"github.com/toolcat/toolcat/examples/articles"
	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/export"
)

// exports returns, for one exporter, the export of the example catalog
// (hidden tools included) and the golden export of runtime/export's test
// metadata, which covers strict and non-strict schemas, nullable
// properties, $ref/$defs, const, oneOf and Gemini's folded keywords.
func exports(t *testing.T, name string, fn func([]runtime.Meta, ...export.Option) ([]byte, error)) map[string][]byte {
	t.Helper()
	ex, err := fn(articles.Metas(), export.IncludeHidden())
	if err != nil {
		t.Fatalf("exporting the example catalog: %v", err)
	}
	out := map[string][]byte{"examples/articles": ex}
	// The golden exports, and those of tools that take the model's
	// idempotency key.
	for _, dir := range []string{"", "idempotency_key"} {
		golden, err := os.ReadFile(filepath.Join("..", "..", "runtime", "export", "testdata", dir, name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.ToSlash(filepath.Join("runtime/export/testdata", dir))] = golden
	}
	return out
}

// roundTrip unmarshals data into a new *T, marshals it back and reports
// every difference from data, compared as JSON values (key order and
// number spelling aside).
func roundTrip[T any](t *testing.T, data []byte) *T {
	t.Helper()
	v, diff, err := roundTripDiff[T](data)
	if err != nil {
		t.Fatal(err)
	}
	if diff != "" {
		t.Errorf("%T does not round-trip the export (-export +sdk):\n%s", v, diff)
	}
	return v
}

func roundTripDiff[T any](data []byte) (*T, string, error) {
	v := new(T)
	if err := json.Unmarshal(data, v); err != nil {
		return nil, "", fmt.Errorf("unmarshal into %T: %w", v, err)
	}
	back, err := json.Marshal(v)
	if err != nil {
		return nil, "", fmt.Errorf("marshal %T: %w", v, err)
	}
	var want, got any
	if err := json.Unmarshal(data, &want); err != nil {
		return nil, "", err
	}
	if err := json.Unmarshal(back, &got); err != nil {
		return nil, "", err
	}
	return v, cmp.Diff(want, got), nil
}

func decode(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestOpenAIChat(t *testing.T) {
	for src, data := range exports(t, "openai_chat", export.OpenAIChat) {
		t.Run(src, func(t *testing.T) {
			tools := *roundTrip[[]openai.ChatCompletionToolUnionParam](t, data)
			for _, tool := range tools {
				fn := tool.GetFunction()
				if fn == nil {
					t.Fatalf("tool is not a function: %+v", tool)
				}
				params, _ := json.Marshal(fn.Parameters)
				want := export.StrictProblem(params) == ""
				if got := fn.Strict.Valid() && fn.Strict.Value; got != want {
					t.Errorf("%s: strict %v, want %v", fn.Name, got, want)
				}
			}
		})
	}
}

func TestOpenAIResponses(t *testing.T) {
	for src, data := range exports(t, "openai_responses", export.OpenAIResponses) {
		t.Run(src, func(t *testing.T) {
			tools := *roundTrip[[]responses.ToolUnionParam](t, data)
			for _, tool := range tools {
				fn := tool.OfFunction
				if fn == nil {
					t.Fatalf("tool is not a function: %+v", tool)
				}
				if !fn.Strict.Valid() {
					t.Errorf("%s: strict not written", fn.Name)
				}
			}
		})
	}
}

func TestAnthropic(t *testing.T) {
	for src, data := range exports(t, "anthropic", export.Anthropic) {
		t.Run(src, func(t *testing.T) {
			tools := *roundTrip[[]anthropic.ToolUnionParam](t, data)
			for _, tool := range tools {
				if tool.OfTool == nil {
					t.Fatalf("tool is not a custom tool: %+v", tool)
				}
			}
			// The plain ToolParam too, as hosts build it.
			roundTrip[[]anthropic.ToolParam](t, data)
		})
	}
}

func TestGemini(t *testing.T) {
	for src, data := range exports(t, "gemini", export.Gemini) {
		t.Run(src, func(t *testing.T) {
			tool := roundTrip[genai.Tool](t, data)
			if len(tool.FunctionDeclarations) == 0 {
				t.Fatal("no function declarations")
			}
			for _, fd := range tool.FunctionDeclarations {
				if fd.Parameters != nil {
					checkGeminiTypes(t, fd.Name, fd.Parameters)
				}
			}
		})
	}
}

// checkGeminiTypes checks that every type is one of genai's Type values.
func checkGeminiTypes(t *testing.T, at string, s *genai.Schema) {
	known := []genai.Type{genai.TypeString, genai.TypeNumber, genai.TypeInteger, genai.TypeBoolean,
		genai.TypeArray, genai.TypeObject, genai.TypeNULL}
	if s.Type != "" && !contains(known, s.Type) {
		t.Errorf("%s: type %q is not a genai.Type", at, s.Type)
	}
	for k, p := range s.Properties {
		checkGeminiTypes(t, at+"."+k, p)
	}
	if s.Items != nil {
		checkGeminiTypes(t, at+"[]", s.Items)
	}
	for _, b := range s.AnyOf {
		checkGeminiTypes(t, at+"|", b)
	}
}

func contains[T comparable](xs []T, x T) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

func TestMCP(t *testing.T) {
	for src, data := range exports(t, "mcp", export.MCP) {
		t.Run(src, func(t *testing.T) {
			// ListToolsResult marshals fields of its own ("cacheScope",
			// "ttlMs") that the export leaves to the server, so the tools
			// are compared on their own.
			var res mcp.ListToolsResult
			if err := json.Unmarshal(data, &res); err != nil {
				t.Fatal(err)
			}
			tools := *roundTrip[[]*mcp.Tool](t, toolsOf(t, data))
			if len(tools) != len(res.Tools) {
				t.Fatalf("%d tools, ListToolsResult has %d", len(tools), len(res.Tools))
			}
			for _, tool := range tools {
				a := tool.Annotations
				if a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil {
					t.Errorf("%s: hints not all written: %+v", tool.Name, a)
				}
				if m := tool.InputSchema.(map[string]any); m["type"] != "object" {
					t.Errorf("%s: inputSchema type %v", tool.Name, m["type"])
				}
				if tool.OutputSchema != nil {
					if m := tool.OutputSchema.(map[string]any); m["type"] != "object" {
						t.Errorf("%s: outputSchema type %v", tool.Name, m["type"])
					}
				}
			}
		})
	}
}

// TestMCPServer serves the exported tools from an MCP server of the SDK
// and lists them through its client, which checks the schemas as the SDK
// does for every tool a server adds.
func TestMCPServer(t *testing.T) {
	data, err := export.MCP(articles.Metas(), export.IncludeHidden())
	if err != nil {
		t.Fatal(err)
	}
	var list mcp.ListToolsResult
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "articles", Version: "v0.0.1"}, nil)
	for _, tool := range list.Tools {
		server.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	}
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "v0.0.1"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	got, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	back, _ := json.Marshal(got)
	// The server adds result fields of its own (_meta, cacheScope,
	// resultType, ttlMs); the tools must come through unchanged.
	if diff := cmp.Diff(decode(t, toolsOf(t, data)), decode(t, toolsOf(t, back))); diff != "" {
		t.Errorf("tools/list through the SDK differs from the export (-export +sdk):\n%s", diff)
	}
}

// toolsOf returns the "tools" member of a tools/list result.
func toolsOf(t *testing.T, data []byte) []byte {
	t.Helper()
	var v struct {
		Tools json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v.Tools
}

// TestRoundTripHasTeeth shows that the round trip catches a keyword an SDK
// type does not carry: a JSON Schema keyword Gemini's Schema lacks is lost
// by genai.Schema and reported.
func TestRoundTripHasTeeth(t *testing.T) {
	_, diff, err := roundTripDiff[genai.Schema]([]byte(`{"type":"STRING","exclusiveMinimum":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(diff, "exclusiveMinimum") {
		t.Errorf("a keyword genai.Schema drops went unnoticed; diff: %q", diff)
	}
}

// deferredGolden reads a golden export of runtime/export with DeferHidden.
func deferredGolden(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "runtime", "export", "testdata", "defer_hidden", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestAnthropicDeferred reads the deferred exports into the SDK's tool
// union: the last entry is the tool-search tool of the variant asked for,
// the others custom tools, deferred ones with DeferLoading set.
func TestAnthropicDeferred(t *testing.T) {
	for _, tc := range []struct {
		golden, name string
		regex        bool
	}{
		{"anthropic", "tool_search_tool_bm25", false},
		{"anthropic_regex", "tool_search_tool_regex", true},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			tools := *roundTrip[[]anthropic.ToolUnionParam](t, deferredGolden(t, tc.golden))
			if len(tools) < 2 {
				t.Fatalf("%d tools", len(tools))
			}
			last := len(tools) - 1
			switch s := tools[last]; {
			case tc.regex && s.OfToolSearchToolRegex20251119 != nil:
				if got := string(s.OfToolSearchToolRegex20251119.Type); got != "tool_search_tool_regex_20251119" {
					t.Errorf("search tool type %s", got)
				}
			case !tc.regex && s.OfToolSearchToolBm25_20251119 != nil:
				if got := string(s.OfToolSearchToolBm25_20251119.Type); got != "tool_search_tool_bm25_20251119" {
					t.Errorf("search tool type %s", got)
				}
			default:
				t.Fatalf("last tool is not the %s search tool: %+v", tc.name, s)
			}
			deferred := 0
			for _, tool := range tools[:last] {
				if tool.OfTool == nil {
					t.Fatalf("tool is not a custom tool: %+v", tool)
				}
				if tool.OfTool.DeferLoading.Valid() && tool.OfTool.DeferLoading.Value {
					deferred++
				}
			}
			if deferred == 0 || deferred == last {
				t.Errorf("%d of %d tools deferred; the golden file mixes core and hidden tools", deferred, last)
			}
		})
	}
}

// TestOpenAIResponsesDeferred reads the deferred exports into the SDK's
// tool union: functions (deferred ones with DeferLoading set), namespaces
// of deferred functions, then the hosted tool_search.
func TestOpenAIResponsesDeferred(t *testing.T) {
	for _, golden := range []string{"openai_responses", "openai_responses_namespaces"} {
		t.Run(golden, func(t *testing.T) {
			tools := *roundTrip[[]responses.ToolUnionParam](t, deferredGolden(t, golden))
			last := len(tools) - 1
			if last < 1 || tools[last].OfToolSearch == nil {
				t.Fatalf("last tool is not tool_search: %+v", tools)
			}
			deferred, spaces := 0, 0
			for _, tool := range tools[:last] {
				switch {
				case tool.OfFunction != nil:
					if !tool.OfFunction.Strict.Valid() {
						t.Errorf("%s: strict not written", tool.OfFunction.Name)
					}
					if tool.OfFunction.DeferLoading.Valid() && tool.OfFunction.DeferLoading.Value {
						deferred++
					}
				case tool.OfNamespace != nil:
					spaces++
					for _, fn := range tool.OfNamespace.Tools {
						if fn.OfFunction == nil || !fn.OfFunction.DeferLoading.Valid() || !fn.OfFunction.DeferLoading.Value {
							t.Errorf("namespace %s holds a tool that is not a deferred function: %+v", tool.OfNamespace.Name, fn)
						}
					}
				default:
					t.Fatalf("tool is neither a function nor a namespace: %+v", tool)
				}
			}
			if deferred == 0 {
				t.Error("no deferred function")
			}
			if want := strings.HasSuffix(golden, "namespaces"); (spaces > 0) != want {
				t.Errorf("%d namespaces", spaces)
			}
		})
	}
}
