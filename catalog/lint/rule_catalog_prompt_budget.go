package lint

import (
	"strconv"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/runtime"
)

// CatalogPromptBudget bounds what the tool list costs on every request.
var CatalogPromptBudget = &Rule{
	ID:       "CATALOG_PROMPT_BUDGET",
	Category: "catalog",
	Purpose:  "Checks that the estimated tokens of the tools as the model sees them (names, descriptions and args schemas of core tools; hidden ones are found through discovery) stay within prompt_budget_tokens, when that is set.",
	Check:    checkCatalogPromptBudget,
}

// toolOverheadTokens is what a provider adds around each tool definition.
const toolOverheadTokens = 8

func checkCatalogPromptBudget(p *Pass) {
	budget := p.Config.PromptBudgetTokens
	if budget <= 0 {
		return
	}
	total, core := 0, 0
	type cost struct {
		name   string
		tokens int
	}
	var biggest cost
	for _, t := range p.Catalog.Tools {
		if t.Exposure == "hidden" {
			continue
		}
		core++
		n := toolTokens(t)
		total += n
		if n > biggest.tokens {
			biggest = cost{t.Name, n}
		}
	}
	if total > budget {
		p.Reportf(nil, p.Catalog.Pos, "the %d core tools take about %d tokens, over prompt_budget_tokens %d; hide some (exposure: hidden) or shorten descriptions and schemas (the largest is %q, about %d tokens)", core, total, budget, biggest.name, biggest.tokens)
	}
}

// toolTokens estimates the tokens of one tool definition as sent to a model.
func toolTokens(t *catalog.Tool) int {
	n := toolOverheadTokens + estimateTokens(t.Name) + estimateTokens(t.Description)
	if t.Args != nil {
		n += estimateTokens(string(t.Args.JSON()))
	}
	if t.IdempotencyKey == catalog.IdempotencyKeyArgument {
		n += keyArgTokens
	}
	return n
}

// keyArgTokens estimates the idempotency_key property the exporters add
// to a tool with idempotency_key: argument.
var keyArgTokens = estimateTokens(`,"` + runtime.IdempotencyKeyArg + `":{"type":"string","description":` +
	strconv.Quote(runtime.IdempotencyKeyDescription) + `,"minLength":1,"maxLength":` +
	strconv.Itoa(runtime.IdempotencyKeyMaxLength) + `}`)
