package export

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/toolcat/toolcat/runtime"
)

// DeferHidden exports hidden tools (exposure: hidden) too, marked as
// deferred in the provider's own form, and adds the provider's
// tool-search tool, so that the provider searches them server-side and
// loads only those the model asks for. Core tools are never deferred. It
// is the provider-side alternative to a session's own search tools
// (search_tools_by_regex, search_tools_by_keywords): the same hidden set
// drives both, and a host picks one.
//
// Anthropic (Messages API): every hidden tool gets "defer_loading": true,
// and the tool-search tool of the variant ToolSearchBM25 (the default) or
// ToolSearchRegex (see DeferHiddenWith) comes last. A catalog of only
// hidden tools is fine: the tool-search tool is itself not deferred, which
// satisfies the API's rule that at least one tool is not. Last, it keeps
// the last entry of the list a tool that is not deferred, where a host
// puts its cache_control breakpoint (the API refuses one on a deferred
// tool).
//
// OpenAI Responses API: every hidden function gets "defer_loading": true,
// and {"type": "tool_search"} (hosted tool search) comes last; strict mode
// is the same as without the option.
//
// OpenAIChat, Gemini and MCP have no deferred tools: with DeferHidden they
// return an error that wraps ErrDeferUnsupported.
//
// Without a hidden tool among the metas, the export is the same as without
// the option: no tool-search tool is added when there is nothing to search.
func DeferHidden() Option { return DeferHiddenWith(ToolSearchBM25) }

// DeferHiddenWith is DeferHidden with the tool-search variant chosen.
// Anthropic offers two; OpenAI has one hosted search and ignores the
// choice. An unknown variant is an error from the exporter.
func DeferHiddenWith(s ToolSearch) Option {
	return func(o *options) {
		o.deferHidden = true
		o.search = s
	}
}

// ToolSearch is the variant of the provider's tool-search tool that
// DeferHiddenWith adds.
type ToolSearch string

const (
	// ToolSearchBM25: the model searches with natural-language queries
	// (Anthropic tool_search_tool_bm25_20251119). The default: tools are
	// described in words, and users ask in words.
	ToolSearchBM25 ToolSearch = "bm25"
	// ToolSearchRegex: the model searches with regular expressions
	// (Python re.search syntax, at most 200 characters) over names and
	// descriptions (Anthropic tool_search_tool_regex_20251119); suits
	// catalogs whose names follow a strict pattern, such as a service
	// prefix.
	ToolSearchRegex ToolSearch = "regex"
)

// ErrDeferUnsupported is what an exporter's error wraps when DeferHidden is
// given for a provider without deferred tools (OpenAI Chat Completions,
// Gemini function declarations, MCP).
var ErrDeferUnsupported = errors.New("the provider has no deferred tools")

// deferUnsupported is the error of an exporter without deferred tools.
func deferUnsupported(exporter, why string) error {
	return fmt.Errorf("export.%s with DeferHidden: %w: %s; leave hidden tools to the session's search tools (search_tools_by_regex, search_tools_by_keywords) instead", exporter, ErrDeferUnsupported, why)
}

// anthropicSearch is one variant of Anthropic's tool-search tool.
type anthropicSearch struct{ typ, name string }

var anthropicSearches = map[ToolSearch]anthropicSearch{
	ToolSearchBM25:  {"tool_search_tool_bm25_20251119", "tool_search_tool_bm25"},
	ToolSearchRegex: {"tool_search_tool_regex_20251119", "tool_search_tool_regex"},
}

// anthropicMaxTools is how many tools the Messages API searches at most
// in one request (its documented catalog limit for tool search).
const anthropicMaxTools = 10000

// deferred reports whether t is exported as a deferred tool.
func (o options) deferred(t tool) bool {
	return o.deferHidden && t.meta.Exposure == runtime.ExposureHidden
}

// anyDeferred reports whether one of tools is exported as deferred.
func (o options) anyDeferred(tools []tool) bool {
	for _, t := range tools {
		if o.deferred(t) {
			return true
		}
	}
	return false
}

// anthropicSearchTool returns the tool-search tool Anthropic gets with
// DeferHidden, or nil when no tool is deferred, and checks the rules of the
// Messages API: a known variant, no tool with the search tool's name, and
// at most anthropicMaxTools tools.
func anthropicSearchTool(o options, tools []tool) (*node, error) {
	if !o.deferHidden {
		return nil, nil
	}
	s, ok := anthropicSearches[o.search]
	if !ok {
		return nil, fmt.Errorf("export.Anthropic with DeferHidden: unknown tool search %q; want %q or %q", o.search, ToolSearchBM25, ToolSearchRegex)
	}
	if !o.anyDeferred(tools) {
		return nil, nil
	}
	if len(tools) > anthropicMaxTools {
		return nil, fmt.Errorf("export.Anthropic with DeferHidden: %d tools, more than the %d the Messages API's tool search takes; make fewer tools hidden, or leave the rest to the session's search tools", len(tools), anthropicMaxTools)
	}
	for _, t := range tools {
		if t.meta.WireName() == s.name {
			return nil, fmt.Errorf("export.Anthropic with DeferHidden: tool %s has the name of Anthropic's tool-search tool (%s); rename the tool", t.meta.Name, s.typ)
		}
	}
	return object().set("type", str(s.typ)).set("name", str(s.name)), nil
}

// openAISearchTool returns the hosted tool_search tool the Responses API
// gets with DeferHidden, or nil when no tool is deferred.
func openAISearchTool(o options, tools []tool) (*node, error) {
	if !o.deferHidden {
		return nil, nil
	}
	if _, ok := anthropicSearches[o.search]; !ok {
		return nil, fmt.Errorf("export.OpenAIResponses with DeferHidden: unknown tool search %q; want %q or %q", o.search, ToolSearchBM25, ToolSearchRegex)
	}
	if !o.anyDeferred(tools) {
		return nil, nil
	}
	return object().set("type", str("tool_search")), nil
}

// NamespacesByCategory groups, in OpenAIResponses with DeferHidden, the
// hidden functions of each category named in descriptions (Meta.Category)
// into an OpenAI namespace of that name, described by its value:
//
//	{"type": "namespace", "name": "billing", "description": "...", "tools": [{"type": "function", ..., "defer_loading": true}]}
//
// At first the model sees a namespace's name and description only, not its
// functions' names and descriptions, which OpenAI recommends for large
// catalogs (and advises fewer than 10 functions per namespace). A call to
// a function of a namespace names the namespace beside the function's
// name; the name alone identifies the tool. Hidden tools of other
// categories stay deferred functions of their own, and core tools are never
// put in a namespace. Namespaces follow the functions, sorted by name.
//
// A category and a description must not be empty, and a category must be a
// name OpenAI takes for a function (letters, digits, '_' and '-', at most
// 64) that no tool has. Other exporters, and OpenAIResponses without
// DeferHidden, ignore the option.
func NamespacesByCategory(descriptions map[string]string) Option {
	c := make(map[string]string, len(descriptions))
	for k, v := range descriptions {
		c[k] = v
	}
	return func(o *options) { o.namespaces = c }
}

// namespaces are the OpenAI namespaces of one export.
type namespaces struct {
	byCategory map[string]*node // the "tools" array of each namespace used
	list       []*node          // the namespaces used, sorted by name
}

// of returns the "tools" array t goes into, or nil when t stays a function
// of its own.
func (s namespaces) of(o options, t tool) *node {
	if !o.deferred(t) {
		return nil
	}
	return s.byCategory[t.meta.Category]
}

// openAINamespaces checks NamespacesByCategory and builds the namespaces
// that receive at least one deferred tool.
func openAINamespaces(o options, tools []tool) (namespaces, error) {
	var s namespaces
	if !o.deferHidden || len(o.namespaces) == 0 {
		return s, nil
	}
	names := make(map[string]bool, len(tools))
	for _, t := range tools {
		names[t.meta.WireName()] = true
	}
	for _, cat := range slices.Sorted(maps.Keys(o.namespaces)) {
		desc := o.namespaces[cat]
		if cat == "" {
			return s, fmt.Errorf("export.NamespacesByCategory: a category is empty")
		}
		if !openAINames.re.MatchString(cat) {
			return s, fmt.Errorf("export.NamespacesByCategory: category %q is not a namespace name OpenAI takes (%s)", cat, openAINames.says)
		}
		if names[cat] {
			return s, fmt.Errorf("export.NamespacesByCategory: category %q is also the name of a tool; a namespace and a tool must not share a name", cat)
		}
		if strings.TrimSpace(desc) == "" {
			return s, fmt.Errorf("export.NamespacesByCategory: category %q has an empty description; OpenAI needs one, and the model picks a namespace by it", cat)
		}
	}
	used := map[string]bool{}
	for _, t := range tools {
		if _, ok := o.namespaces[t.meta.Category]; ok && o.deferred(t) {
			used[t.meta.Category] = true
		}
	}
	cats := slices.Sorted(maps.Keys(used))
	s.byCategory = make(map[string]*node, len(cats))
	for _, cat := range cats {
		fns := array()
		s.byCategory[cat] = fns
		s.list = append(s.list, object().set("type", str("namespace")).set("name", str(cat)).
			set("description", str(strings.TrimSpace(o.namespaces[cat]))).set("tools", fns))
	}
	return s, nil
}
