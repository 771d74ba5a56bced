package lint

import (
	"errors"
	"fmt"
	"strings"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/runtime/export"
)

// ToolNameFormat checks tool names against the providers that will list
// them.
var ToolNameFormat = &Rule{
	ID:       "TOOL_NAME_FORMAT",
	Category: "names",
	Purpose: "Checks that each tool name is accepted by every provider in providers. Every catalog name is already legal " +
		"(1 to 64 of A-Z, a-z, 0-9, _, . and -, the union the providers accept); openai and anthropic take no '.', and gemini no name that starts with a digit, '.' or '-'. " +
		"Exporters never rename a tool, since the model must call the name that error suggestions, fallbacks and logs use; rename it, or drop the provider from providers. " +
		"A tool with an original_name is sent by that name, so that is the one checked.",
	Check: forEachTool(checkToolNameFormat),
}

func checkToolNameFormat(p *Pass, t *catalog.Tool) {
	if t.OriginalName != "" {
		checkWireName(p, t)
		return
	}
	var refused []string
	for _, prov := range p.Config.Providers {
		if err := export.CheckName(prov, t.Name); err != nil && !errors.Is(err, export.ErrUnknownProvider) {
			refused = append(refused, prov)
		}
	}
	if len(refused) == 0 {
		return
	}
	who := andList(refused)
	msg := fmt.Sprintf("tool name %q is not accepted by %s", t.Name, who)
	if s := providerSafeName(t.Name); s != t.Name {
		msg += fmt.Sprintf("; rename it %q", s)
	} else {
		msg += "; rename it"
	}
	p.Reportf(t, t.Pos, "%s, or remove %s from providers", msg, who)
}

// checkWireName checks the original_name providers are sent instead of
// the tool's name.
func checkWireName(p *Pass, t *catalog.Tool) {
	var refused []string
	for _, prov := range p.Config.Providers {
		if err := export.CheckName(prov, t.OriginalName); err != nil && !errors.Is(err, export.ErrUnknownProvider) {
			refused = append(refused, prov)
		}
	}
	if len(refused) == 0 {
		return
	}
	who := andList(refused)
	p.Reportf(t, t.PosOf("original_name"), "original_name %q, the name providers are sent, is not accepted by %s; drop original_name so they see %q, or remove %s from providers",
		t.OriginalName, who, t.Name, who)
}

// andList writes "a", "a and b", "a, b and c".
func andList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// providerSafeName spells a legal name as one every provider takes: '.'
// becomes '_', and a name that does not start with a letter or '_' gets
// a leading '_' (cut back to 64 characters).
func providerSafeName(name string) string {
	s := strings.ReplaceAll(name, ".", "_")
	if c := s[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
		s = "_" + s
	}
	if len(s) > 64 {
		s = s[:64]
	}
	return s
}
