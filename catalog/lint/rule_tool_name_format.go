package lint

import (
	"regexp"

	"github.com/toolcat/toolcat/catalog"
)

// ToolNameFormat checks the names every provider accepts.
var ToolNameFormat = &Rule{
	ID:       "TOOL_NAME_FORMAT",
	Category: "names",
	Purpose:  "Checks that tool names use only the characters every provider and MCP client accepts (ASCII letters, digits, _ and -) and at most 64 of them; OpenAI and Anthropic reject anything else.",
	Check:    forEachTool(checkToolNameFormat),
}

var providerName = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

const maxToolNameLen = 64

func checkToolNameFormat(p *Pass, t *catalog.Tool) {
	if !providerName.MatchString(t.Name) {
		if s := snakeCase(t.Name); s != "" && snakeName.MatchString(s) {
			p.Reportf(t, t.Pos, "tool name %q has characters providers reject (only letters, digits, _ and - are allowed); rename it %q", t.Name, s)
		} else {
			p.Reportf(t, t.Pos, "tool name %q has characters providers reject; use only letters, digits, _ and -", t.Name)
		}
	}
	if n := len(t.Name); n > maxToolNameLen {
		p.Reportf(t, t.Pos, "tool name %q is %d characters, more than the %d providers accept; shorten it", t.Name, n, maxToolNameLen)
	}
}
