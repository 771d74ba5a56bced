package lint

import (
	"regexp"
	"strings"

	"github.com/toolcat/toolcat/catalog"
)

// ToolNameFormat checks the spelling providers accept everywhere.
var ToolNameFormat = &Rule{
	ID:       "TOOL_NAME_FORMAT",
	Category: "names",
	Purpose:  "Checks that tool names are lower_snake_case ASCII of at most 64 characters, the form every provider and MCP client accepts and that maps cleanly to Go names.",
	Check:    forEachTool(checkToolNameFormat),
}

var snakeName = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

const maxToolNameLen = 64

func checkToolNameFormat(p *Pass, t *catalog.Tool) {
	if !snakeName.MatchString(t.Name) {
		if s := snakeCase(t.Name); s != "" && s != t.Name && snakeName.MatchString(s) {
			p.Reportf(t, t.Pos, "tool name %q is not lower_snake_case; rename it %q", t.Name, s)
		} else {
			p.Reportf(t, t.Pos, "tool name %q is not lower_snake_case (a-z, 0-9 and single underscores, starting with a letter); rename it", t.Name)
		}
	}
	if n := len(t.Name); n > maxToolNameLen {
		p.Reportf(t, t.Pos, "tool name %q is %d characters, more than the %d providers accept; shorten it", t.Name, n, maxToolNameLen)
	}
}

// snakeCase spells name in lower_snake_case: "getUser-v2" → "get_user_v2".
func snakeCase(name string) string {
	return strings.Join(nameWords(name), "_")
}
