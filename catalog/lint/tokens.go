package lint

import "github.com/toolcat/toolcat/catalog"

// EstimateTokens estimates how many tokens a model's tokenizer makes of
// s, as the token-budget rules do (within about 20%).
func EstimateTokens(s string) int { return estimateTokens(s) }

// ToolTokens estimates the tokens of one tool definition as sent to a
// model: name, description and argument schema.
func ToolTokens(t *catalog.Tool) int { return toolTokens(t) }
