package lint

import (
	"strings"
	"unicode/utf8"

	"github.com/toolcat/toolcat/catalog"
)

// DescriptionLength checks that a description exists and says enough.
var DescriptionLength = &Rule{
	ID:       "DESCRIPTION_LENGTH",
	Category: "descriptions",
	Purpose:  "Checks that every tool has a description of at least description_min_chars characters: the description is what the model reads to choose a tool.",
	Check:    forEachTool(checkDescriptionLength),
}

func checkDescriptionLength(p *Pass, t *catalog.Tool) {
	d := strings.TrimSpace(t.Description)
	if d == "" {
		p.Reportf(t, t.PosOf("description"), "tool %q has no description; say what it does, when to use it and when not to", t.Name)
		return
	}
	if n := utf8.RuneCountInString(d); n < p.Config.DescriptionMinChars {
		p.Reportf(t, t.PosOf("description"), "description is %d characters, shorter than %d; say what the tool does, when to use it and when not to", n, p.Config.DescriptionMinChars)
	}
}
