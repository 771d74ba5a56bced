package main

import (
	"encoding/json"
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/toolcat/toolcat/catalog/importer"
	"github.com/toolcat/toolcat/runtime/toolscan"
)

// scanImported runs the tool-poisoning check (runtime/toolscan, the
// security lint rules' check) on the imported definitions as their server
// wrote them, each with the other imported tools as its siblings, and
// returns one report line per finding and the number of tools flagged.
func scanImported(tools []importer.Tool) (lines []string, flagged int) {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	base := &toolscan.Context{Siblings: names}
	base.Prepare()
	for _, t := range tools {
		st := toolscan.Tool{Name: t.Name, Description: t.Description, InputSchema: nodeJSON(t.Input), OutputSchema: nodeJSON(t.Output)}
		c := *base
		c.Self = t.Name
		fs := toolscan.ScanTool(st, &c)
		if len(fs) > 0 {
			flagged++
		}
		for _, f := range fs {
			lines = append(lines, fmt.Sprintf("%s: tool %s: possible tool poisoning: %s", t.Source, t.Name, f))
		}
	}
	return lines, flagged
}

// nodeJSON is a schema read from YAML or JSON, as JSON; nil when it
// cannot be.
func nodeJSON(n *yaml.Node) json.RawMessage {
	if n == nil {
		return nil
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}
