package gen

import (
	"encoding/json"
	"time"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/runtime"
)

// Meta returns the runtime metadata of a catalog tool: what the generated
// code embeds, for exporters and docs that work from a catalog directly.
func Meta(t *catalog.Tool) runtime.Meta {
	m := runtime.Meta{
		Name:                t.Name,
		OriginalName:        t.OriginalName,
		Description:         t.Description,
		Category:            t.Category,
		Version:             t.Version,
		Owner:               t.Owner,
		Risk:                runtime.Risk(t.Risk),
		HasSideEffects:      t.HasSideEffects,
		SideEffect:          runtime.SideEffect(t.SideEffect),
		Idempotent:          t.Idempotent,
		IdempotencyRequired: t.IdempotencyRequired,
		SupportsDryRun:      t.SupportsDryRun,
		Revertible:          t.Revertible,
		ReturnsUntrusted:    t.ReturnsUntrusted,
		CapabilityRequired:  t.CapabilityRequired,
		Exposure:            runtime.Exposure(t.Exposure),
		MinAutonomy:         autonomy(t.Autonomy),
		MaxRetries:          t.MaxRetries,
		SLA:                 time.Duration(t.SLAms) * time.Millisecond,
		MaxResultBytes:      t.MaxResultBytes,
		Dependencies:        t.Dependencies,
		FallbackTool:        t.FallbackTool,
		AdditionalArgs:      runtime.AdditionalArgs(t.AdditionalArgs),
		Queries:             t.Queries,
	}
	m.IdempotencyKeyArg = t.IdempotencyKey == catalog.IdempotencyKeyArgument
	if t.Args != nil {
		m.ArgsSchema = json.RawMessage(t.Args.JSON())
	}
	if t.Result != nil {
		m.ResultSchema = json.RawMessage(t.Result.JSON())
	}
	for _, h := range t.Errors {
		if h.Suggestion == "" {
			continue
		}
		if m.ErrorHints == nil {
			m.ErrorHints = map[runtime.Code]string{}
		}
		m.ErrorHints[runtime.Code(h.Code)] = h.Suggestion
	}
	return m
}

// Metas returns the runtime metadata of every tool of cat, sorted by name.
func Metas(cat *catalog.Catalog) []runtime.Meta {
	out := make([]runtime.Meta, len(cat.Tools))
	for i, t := range cat.Tools {
		out[i] = Meta(t)
	}
	return out
}

func autonomy(a catalog.Autonomy) runtime.Autonomy {
	switch a {
	case catalog.AutonomyReadOnly:
		return runtime.AutonomyReadOnly
	case catalog.AutonomySupervised:
		return runtime.AutonomySupervised
	case catalog.AutonomyFull:
		return runtime.AutonomyFull
	}
	return runtime.AutonomyDefault
}
