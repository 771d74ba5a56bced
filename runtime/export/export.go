// Package export turns a catalog's tool metadata (runtime.Meta, as returned
// by a generated package's Metas function) into the tool definitions each
// LLM provider and MCP expect, at run time, with the standard library only.
//
//	b, err := export.OpenAIChat(articles.Metas())      // Chat Completions "tools"
//	b, err := export.OpenAIResponses(articles.Metas()) // Responses API "tools"
//	b, err := export.Anthropic(articles.Metas())       // Messages API "tools"
//	b, err := export.Gemini(articles.Metas())          // a Tool: {"functionDeclarations": [...]}
//	b, err := export.MCP(articles.Metas())             // a tools/list result: {"tools": [...]}
//
// Every exporter returns deterministic bytes: tools sorted by name (or in
// the order given, with KeepOrder), object
// keys in a fixed order (a schema's own keys in the order the catalog wrote
// them), two-space indentation, no HTML escaping and a final newline. The
// same catalog therefore always yields the same bytes, so provider prompt
// caches hit and diffs of committed exports are reviewable.
//
// Hidden tools (exposure: hidden), which a model finds through discovery
// rather than in its first tool list, are left out unless IncludeHidden is
// given, as runtime.Registry.Visible leaves them out. DeferHidden includes
// them marked as deferred, with the provider's tool-search tool, for a host
// that lets the provider search them (Anthropic, OpenAI Responses) rather
// than a session's own search tools.
//
// Format turns an exporter and its options into a runtime.Format, what a
// session renders its definitions with:
//
//	b, err := sess.Definitions(export.Format(export.Anthropic, export.DeferHidden()))
//
// What each exporter does to a schema:
//
//   - OpenAIChat and OpenAIResponses send the args schema as written, less
//     the "$schema" and "$comment" annotations, and set "strict": true only
//     when the schema already fits OpenAI's Structured Outputs subset (see
//     StrictProblem); the schema is never rewritten to make it fit.
//
// A tool that takes its idempotency key as an argument
// (runtime.Meta.IdempotencyKeyArg) gets one more property in every
// export, runtime.IdempotencyKeyArg, a string described by
// runtime.IdempotencyKeyDescription and required when the tool requires a
// key. In a strict OpenAI definition it is always required and typed
// ["string", "null"] when the tool does not require a key, without
// minLength and maxLength, which strict mode refuses: the property alone
// never costs a tool its strict mode.
//   - Anthropic sends the args schema as written as input_schema.
//   - Gemini rewrites the schema into Gemini's OpenAPI 3.0 subset (see
//     GeminiSchema).
//   - MCP sends the args schema as inputSchema, the result schema as
//     outputSchema when it is an object, and annotations derived from the
//     metadata (see MCPAnnotations).
package export

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/toolcat/toolcat/runtime"
)

// Option changes what an exporter includes.
type Option func(*options)

type options struct {
	includeHidden bool
	keepOrder     bool       // KeepOrder: the tools in the order given
	deferHidden   bool       // DeferHidden: hidden tools deferred, with a tool-search tool
	search        ToolSearch // the tool-search variant of DeferHidden
	// namespaces maps a category to the description of its OpenAI
	// namespace (NamespacesByCategory).
	namespaces map[string]string
}

// newOptions applies opts in order; a nil Option is skipped.
func newOptions(opts []Option) options {
	var o options
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}

// IncludeHidden includes hidden tools (exposure: hidden), which are left
// out by default: a host lists them to a model only once discovery has
// surfaced them.
func IncludeHidden() Option { return func(o *options) { o.includeHidden = true } }

// KeepOrder exports the tools in the order they are given rather than
// sorted by name. A session lists its tools in an order where a newly
// promoted tool comes last (runtime.Session.Tools), so that the definitions
// sent before it stay the same, and a provider's cached prompt prefix with
// them: render it with export.Format(fn, export.KeepOrder()) to keep that
// order. The output is deterministic for a given order; a tool-search tool
// (DeferHidden) and OpenAI namespaces still come after the tools.
func KeepOrder() Option { return func(o *options) { o.keepOrder = true } }

// tool is one Meta prepared for export.
type tool struct {
	meta   *runtime.Meta
	desc   string
	args   *node // the args schema, an object schema
	result *node // the result schema, or nil
}

// nameRule is what a provider accepts as a tool name, beyond the legal
// names of runtime.NamePattern.
type nameRule struct {
	provider string
	re       *regexp.Regexp
	says     string // the rule, in words
}

// The providers' name rules. Legal names are 1 to 64 of A-Z, a-z, 0-9,
// '_', '.' and '-' (runtime.NamePattern); MCP takes every one, OpenAI and
// Anthropic no '.', Gemini none that starts with a digit, '.' or '-'.
var (
	openAINames    = nameRule{"OpenAI", regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`), "letters, digits, '_' and '-', at most 64"}
	anthropicNames = nameRule{"Anthropic", regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`), "letters, digits, '_' and '-', at most 64"}
	geminiNames    = nameRule{"Gemini", regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$`), "a letter or '_' first, then letters, digits, '_', '.', ':' and '-', at most 128"}
	mcpNames       = nameRule{"MCP", regexp.MustCompile(`^[a-zA-Z0-9_.-]{1,128}$`), "letters, digits, '_', '-' and '.', at most 128"}
)

// providerNames maps the provider names of toolcat's lint configuration
// (the providers setting) to their name rules.
var providerNames = map[string]nameRule{
	"openai":    openAINames,
	"anthropic": anthropicNames,
	"gemini":    geminiNames,
	"mcp":       mcpNames,
}

// CheckName reports whether provider ("openai", "anthropic", "gemini" or
// "mcp") accepts name as a tool name: nil, or an error that says what the
// provider takes. Names are never renamed on export: the name the model
// calls is the catalog's, as in error suggestions, logs and fallbacks. A
// name outside runtime.NamePattern is refused for every provider.
func CheckName(provider, name string) error {
	r, ok := providerNames[provider]
	if !ok {
		return fmt.Errorf("%w %q; want openai, anthropic, gemini or mcp", ErrUnknownProvider, provider)
	}
	return r.check(name)
}

// ErrUnknownProvider is what CheckName wraps when it does not know the
// provider.
var ErrUnknownProvider = errors.New("unknown provider")

// check reports whether name is legal (runtime.NamePattern) and the
// provider takes it.
func (r nameRule) check(name string) error {
	if err := runtime.CheckName(name); err != nil {
		return fmt.Errorf("tool %w", err)
	}
	if !r.re.MatchString(name) {
		return fmt.Errorf("tool name %q is not accepted by %s, which takes %s; rename the tool (lint rule TOOL_NAME_FORMAT reports it)", name, r.provider, r.says)
	}
	return nil
}

// prepare selects, checks and sorts the tools to export.
func prepare(metas []runtime.Meta, o options, names nameRule) ([]tool, error) {
	tools := make([]tool, 0, len(metas))
	for i := range metas {
		m := &metas[i]
		if m.Exposure == runtime.ExposureHidden && !o.includeHidden && !o.deferHidden {
			continue
		}
		if m.Name == "" {
			return nil, fmt.Errorf("tool %d has no name", i)
		}
		if err := names.check(m.WireName()); err != nil {
			return nil, err
		}
		t := tool{meta: m, desc: strings.TrimSpace(m.Description)}
		var err error
		if t.args, err = argsSchema(m); err != nil {
			return nil, err
		}
		if m.IdempotencyKeyArg {
			if err := withKeyArg(m, t.args); err != nil {
				return nil, err
			}
		}
		if len(m.ResultSchema) > 0 {
			if t.result, err = parse(m.ResultSchema); err != nil {
				return nil, fmt.Errorf("tool %s: result schema: %w", m.Name, err)
			}
		}
		tools = append(tools, t)
	}
	if o.keepOrder {
		seen := make(map[string]bool, len(tools))
		for _, t := range tools {
			if seen[t.meta.WireName()] {
				return nil, fmt.Errorf("tool %s is listed twice", t.meta.WireName())
			}
			seen[t.meta.WireName()] = true
		}
		return tools, nil
	}
	slices.SortFunc(tools, func(a, b tool) int { return cmp.Compare(a.meta.WireName(), b.meta.WireName()) })
	for i := 1; i < len(tools); i++ {
		if tools[i].meta.WireName() == tools[i-1].meta.WireName() {
			return nil, fmt.Errorf("tool %s is listed twice", tools[i].meta.WireName())
		}
	}
	return tools, nil
}

// argsSchema parses a tool's args schema, which every provider needs to be
// an object schema; a tool without one takes no arguments.
func argsSchema(m *runtime.Meta) (*node, error) {
	if len(m.ArgsSchema) == 0 || string(m.ArgsSchema) == "null" {
		return object().set("type", str("object")).set("properties", object()), nil
	}
	n, err := parse(m.ArgsSchema)
	if err != nil {
		return nil, fmt.Errorf("tool %s: args schema: %w", m.Name, err)
	}
	if n.kind != 'o' {
		return nil, fmt.Errorf("tool %s: args schema is not a JSON object", m.Name)
	}
	switch ty := n.get("type"); {
	case ty == nil:
		// Tool input is always an object; say so, as every provider requires.
		n.keys = append([]string{"type"}, n.keys...)
		n.vals = append([]*node{str("object")}, n.vals...)
	case ty.text() != "object":
		return nil, fmt.Errorf("tool %s: args schema has type %s; every provider needs \"type\": \"object\" at the top", m.Name, ty)
	}
	return n, nil
}

// withDescription sets "description" on o when d is not empty.
func withDescription(o *node, d string) *node {
	if d != "" {
		o.set("description", str(d))
	}
	return o
}

// isObjectSchema reports whether a schema describes an object.
func isObjectSchema(n *node) bool {
	if n == nil || n.kind != 'o' {
		return false
	}
	ty := n.get("type")
	return ty.text() == "object" || ty == nil && n.get("properties") != nil
}

// rawOf returns n as a json.RawMessage.
func rawOf(n *node) json.RawMessage { return json.RawMessage(n.String()) }
