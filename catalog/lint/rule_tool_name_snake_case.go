package lint

import (
	"regexp"
	"strings"

	"github.com/toolcat/toolcat/catalog"
)

// ToolNameSnakeCase checks the one spelling style of a catalog.
var ToolNameSnakeCase = &Rule{
	ID:       "TOOL_NAME_SNAKE_CASE",
	Category: "names",
	Purpose:  "Checks that tool names are lower_snake_case (a-z, 0-9 and single underscores, starting with a letter), the convention of OpenAI, Anthropic and MCP examples, so names read alike and map cleanly to Go identifiers.",
	Check:    forEachTool(checkToolNameSnakeCase),
}

var snakeName = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

func checkToolNameSnakeCase(p *Pass, t *catalog.Tool) {
	if snakeName.MatchString(t.Name) {
		return
	}
	if s := snakeCase(t.Name); s != "" && snakeName.MatchString(s) {
		p.Reportf(t, t.Pos, "tool name %q is not lower_snake_case; rename it %q", t.Name, s)
		return
	}
	p.Reportf(t, t.Pos, "tool name %q is not lower_snake_case; use a-z, 0-9 and single underscores, starting with a letter", t.Name)
}

// snakeCase spells name in lower_snake_case: "getUser-v2" → "get_user_v2".
func snakeCase(name string) string {
	return strings.Join(nameWords(name), "_")
}
