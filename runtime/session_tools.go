package runtime

import "context"

// Tools returns the tools the model may see now, in a stable order: the
// core tools the session's agent may call (by name), then the built-in
// tools the session offers, then the hidden tools promoted by a search,
// oldest promotion first. A new promotion thus adds to the end of the list
// and leaves the rest as it was, and a provider's prompt cache with it.
//
// With SessionProviderSearch, the hidden tools follow the core ones (by name)
// with their Exposure hidden, for the exporter to mark as deferred
// (export.DeferHidden), and no search tool is offered.
//
// A tool that needs the user's approval is listed; its call answers
// approval_required and waits (see Approve). Read-only agents see only the
// tools without side effects.
func (s *Session) Tools(ctx context.Context) ([]Meta, error) {
	st, err := s.load(ctx)
	if err != nil {
		return nil, err
	}
	set := s.r.tools.Load()
	var out []Meta
	var hidden []Meta
	for _, e := range set.sorted {
		if !s.mayCall(e) {
			continue
		}
		if e.meta.Exposure != ExposureHidden {
			out = append(out, *e.meta)
		} else if s.providerSide {
			hidden = append(hidden, *e.meta)
		}
	}
	out = append(out, s.builtinMetas()...)
	if s.providerSide {
		return append(out, hidden...), nil
	}
	for _, p := range sortedPromotions(st.Promoted) {
		e := set.byName[p.Tool]
		if e == nil || st.Turn >= p.Until || !s.mayCall(e) {
			continue
		}
		m := *e.meta
		m.Exposure = ExposureCore // listed now
		out = append(out, m)
	}
	return out, nil
}

// Definitions renders Tools with format, such as
// export.Format(export.Anthropic).
func (s *Session) Definitions(ctx context.Context, format Format) ([]byte, error) {
	tools, err := s.Tools(ctx)
	if err != nil {
		return nil, err
	}
	return format(tools)
}

// Format renders tool definitions for a model provider, from the tools a
// session shows (Session.Definitions). runtime/export makes one per
// provider: export.Format(export.Anthropic), and so on.
type Format func(tools []Meta) ([]byte, error)
