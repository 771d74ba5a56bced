package lint

import (
	"github.com/toolcat/toolcat/catalog"
)

// DescriptionTokenBudget keeps one description from eating the context.
var DescriptionTokenBudget = &Rule{
	ID:       "DESCRIPTION_TOKEN_BUDGET",
	Category: "descriptions",
	Purpose:  "Checks that a tool description stays within description_max_tokens (estimated), since every core tool's description is sent with every request.",
	Check:    forEachTool(checkDescriptionTokenBudget),
}

func checkDescriptionTokenBudget(p *Pass, t *catalog.Tool) {
	if n := estimateTokens(t.Description); n > p.Config.DescriptionMaxTokens {
		p.Reportf(t, t.PosOf("description"), "description is about %d tokens, over the budget of %d; keep what decides when to call the tool and move details into argument descriptions", n, p.Config.DescriptionMaxTokens)
	}
}
