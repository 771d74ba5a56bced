package lint

import (
	"sort"

	"github.com/toolcat/toolcat/catalog"
)

// ToolNameUnique catches names that differ only in spelling.
var ToolNameUnique = &Rule{
	ID:       "TOOL_NAME_UNIQUE",
	Category: "names",
	Purpose:  "Checks that tool names stay unique once case, -, . and camelCase are normalised (get-user, get_user, Get.User, getUser), since providers, MCP clients and generated Go names would collide or confuse them.",
	Check:    checkToolNameUnique,
}

func checkToolNameUnique(p *Pass) {
	tools := append([]*catalog.Tool(nil), p.Catalog.Tools...)
	sort.SliceStable(tools, func(i, j int) bool { return tools[i].Pos.Before(tools[j].Pos) })
	first := map[string]*catalog.Tool{}
	for _, t := range tools {
		key := snakeCase(t.Name)
		if prev, ok := first[key]; ok {
			p.Reportf(t, t.Pos, "tool name %q collides with %q once case and separators are normalised; rename one of them", t.Name, prev.Name)
			continue
		}
		first[key] = t
	}
}
