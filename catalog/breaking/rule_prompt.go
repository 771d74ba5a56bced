package breaking

import (
	"fmt"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/catalog/lint"
)

// The PROMPT rules report prompt drift: text the model reads that
// changed, so that evaluations tuned on the old text are run again.

// DescriptionChanged reports a changed tool or argument description.
var DescriptionChanged = &Rule{
	ID:       "DESCRIPTION_CHANGED",
	Category: Prompt,
	Purpose:  "Reports changed descriptions of tools and arguments, with the change in estimated tokens: prompt drift, to re-evaluate the model on.",
	Check: forEachPair(func(p *Pass, old, new *catalog.Tool) {
		if old.Description != new.Description {
			p.Reportf(new.Name, new.PosOf("description"), "%s: description changed (%s); re-run the evaluations of this tool", new.Name, tokenDelta(old.Description, new.Description))
		}
		walkPairs(old.Args, new.Args, func(ptr string, o, n *catalog.Node) {
			od, _ := o.Get("description").StringValue()
			nd, ok := n.Get("description").StringValue()
			if ptr != "" && ok && od != nd {
				p.Reportf(new.Name, n.KeyPos("description"), "%s: description of %s changed (%s)", new.Name, where(ptr), tokenDelta(od, nd))
			}
		})
	}),
}

// HintChanged reports changed error suggestions.
var HintChanged = &Rule{
	ID:       "HINT_CHANGED",
	Category: Prompt,
	Purpose:  "Reports error suggestions (the hints a model reads on failure) added, changed or removed: prompt drift in error recovery.",
	Check: forEachPair(func(p *Pass, old, new *catalog.Tool) {
		was := map[string]catalog.ErrorHint{}
		for _, e := range old.Errors {
			was[e.Code] = e
		}
		for _, e := range new.Errors {
			o, ok := was[e.Code]
			delete(was, e.Code)
			if ok && o.Suggestion == e.Suggestion {
				continue
			}
			what := "changed"
			if !ok || o.Suggestion == "" {
				what = "added"
			}
			p.Reportf(new.Name, e.Pos, "%s: hint for %s %s (%s)", new.Name, e.Code, what, tokenDelta(o.Suggestion, e.Suggestion))
		}
		for _, e := range old.Errors {
			if _, gone := was[e.Code]; gone && e.Suggestion != "" {
				p.Reportf(new.Name, e.Pos, "%s: hint for %s removed (%s); the model gets the default suggestion", new.Name, e.Code, tokenDelta(e.Suggestion, ""))
			}
		}
	}),
}

// tokenDelta says how the estimated tokens of a text moved.
func tokenDelta(old, new string) string {
	o, n := lint.EstimateTokens(old), lint.EstimateTokens(new)
	return fmt.Sprintf("about %d tokens, was %d: %+d", n, o, n-o)
}
