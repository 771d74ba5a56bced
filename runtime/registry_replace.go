package runtime

import (
	"fmt"
	"slices"
)

// ReplaceTool puts t in the place of the registered tool of the same
// name, as Register would register it: a host that mounts another
// server's tools (runtime/mcpclient) uses it when an operator approves a
// changed definition. The tool keeps its state (enabled, disabled, held).
// Calls already running finish with the tool they started with.
func (r *Registry) ReplaceTool(t Tool) error {
	var e entry
	if err := r.newEntry(&e, t); err != nil {
		return err
	}
	r.mu.Lock()
	old := r.tools.Load()
	prev, ok := old.byName[e.meta.Name]
	if !ok || prev.meta.Name != e.meta.Name {
		r.mu.Unlock()
		return fmt.Errorf("tool %s: %w", clipName(e.meta.Name), ErrUnknownTool)
	}
	if prev.meta.OriginalName != e.meta.OriginalName {
		r.mu.Unlock()
		return fmt.Errorf("tool %s: a replacement keeps the original name %q", e.meta.Name, prev.meta.OriginalName)
	}
	ns := &toolSet{byName: make(map[string]*entry, len(old.byName)), names: old.names}
	for k, v := range old.byName {
		if v == prev {
			v = &e
		}
		ns.byName[k] = v
	}
	ns.sorted = slices.Clone(old.sorted)
	for i, s := range ns.sorted {
		if s == prev {
			ns.sorted[i] = &e
		}
	}
	r.tools.Store(ns)
	r.mu.Unlock()
	r.restop() // its dependencies may be others now
	r.toolsChanged()
	return nil
}
