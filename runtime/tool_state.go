package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// ToolState says whether a tool may be called now.
type ToolState string

// The tool states.
const (
	// ToolEnabled: the tool is listed and called as its catalog says.
	ToolEnabled ToolState = "enabled"
	// ToolDisabled: an operator switched the tool off (Registry.DisableTool).
	// It is left out of Registry.Visible, Session.Tools and the session's
	// searches, and a call answers permission_denied with the reason.
	ToolDisabled ToolState = "disabled"
	// ToolBlocked: the tool is enabled, but a registered tool it depends on
	// (its catalog dependencies, followed through), is disabled. It is
	// treated as disabled, so that a composite never runs halfway and then
	// fails on the dependency; it is enabled again with that dependency.
	ToolBlocked ToolState = "blocked"
)

// ToolSetting is what an operator set for one tool, as a ToolStateStore
// keeps it.
type ToolSetting struct {
	// Enabled is false for a tool switched off.
	Enabled bool `json:"enabled"`
	// Reason says why the tool is off; the model reads it.
	Reason string `json:"reason,omitempty"`
	// At is when the setting was made.
	At time.Time `json:"at"`
	// Hold is set when the host held the tool for review (HoldTool).
	Hold *ToolHold `json:"hold,omitempty"`
}

// ToolStatus is a tool's state as the registry applies it now.
type ToolStatus struct {
	Tool  string    `json:"tool"`
	State ToolState `json:"state"`
	// Reason is the operator's reason for a disabled tool, or for a
	// blocked one the reason of the disabled tool it depends on.
	Reason string `json:"reason,omitempty"`
	// Since is when the tool was disabled (for a blocked tool, its
	// dependency); zero for an enabled tool.
	Since time.Time `json:"since,omitzero"`
	// DisabledDependency names, for a blocked tool, the disabled tool it
	// depends on.
	DisabledDependency string `json:"disabled_dependency,omitempty"`
	// Hold is why the host holds a disabled tool for an operator's
	// review (HoldTool); nil for a tool an operator disabled.
	Hold *ToolHold `json:"hold,omitempty"`
}

// MaxToolStateReason is the longest reason, in bytes, DisableTool accepts.
const MaxToolStateReason = 500

// DefaultDisableReason is the reason of a tool disabled without one.
const DefaultDisableReason = "switched off by an operator"

// ToolStateStore keeps the tools operators switched off, so that every
// replica of an agent sharing the store applies them. The registry's
// default is a MemoryToolStateStore; runtime/redisstore has one on Redis.
type ToolStateStore interface {
	// Load returns the setting of every tool switched off, by name; tools
	// not in the map are enabled. It may hold names the registry does not
	// have (another replica's, another version's).
	Load(ctx context.Context) (map[string]ToolSetting, error)
	// Save records s for tool: a disabled setting is kept, an enabled one
	// removes the tool's record. It then tells every Watch, of this store
	// value and of the others sharing its data.
	Save(ctx context.Context, tool string, s ToolSetting) error
	// Watch calls changed once as soon as it watches (so that a change
	// made between a Load and the Watch is not missed), then each time the
	// settings may have changed, until ctx ends, and returns ctx's error
	// (or one it cannot recover from). It calls changed on one goroutine,
	// never concurrently; a change made while changed runs is reported
	// after it returns.
	Watch(ctx context.Context, changed func()) error
}

// toolStates is the part of a Registry that applies tool settings.
type toolStates struct {
	mu       sync.Mutex // serialises changes of settings and stops
	settings map[string]ToolSetting
	// stops are the tools that may not be called (disabled or blocked),
	// nil when there are none: read on every call.
	stops   atomic.Pointer[map[string]*ToolStatus]
	hooksMu sync.Mutex
	hooks   []*func()
}

// ErrUnknownTool is returned by EnableTool and DisableTool for a tool the
// registry does not have.
var ErrUnknownTool = errors.New("no such tool")

// ErrToolStateStore wraps the errors of the ToolStateStore returned by
// EnableTool and DisableTool: nothing changed.
var ErrToolStateStore = errors.New("the tool state store failed")

// DisableTool switches tool off for every replica sharing the registry's
// ToolStateStore: it is left out of the tools listed to models, and its
// calls answer permission_denied with reason (DefaultDisableReason when
// empty; at most MaxToolStateReason bytes of UTF-8). The setting is saved
// in the store first: when that fails nothing changes and the error is
// returned.
func (r *Registry) DisableTool(ctx context.Context, tool, reason string) error {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		reason = DefaultDisableReason
	}
	if len(reason) > MaxToolStateReason {
		return fmt.Errorf("reason is %d bytes long; the most is %d", len(reason), MaxToolStateReason)
	}
	if !utf8.ValidString(reason) {
		return errors.New("reason is not valid UTF-8")
	}
	return r.setTool(ctx, tool, ToolSetting{Enabled: false, Reason: reason, At: r.now()})
}

// EnableTool switches tool on again, for every replica sharing the
// registry's ToolStateStore.
func (r *Registry) EnableTool(ctx context.Context, tool string) error {
	return r.setTool(ctx, tool, ToolSetting{Enabled: true, At: r.now()})
}

func (r *Registry) setTool(ctx context.Context, tool string, s ToolSetting) error {
	e, ok := r.tools.Load().byName[tool]
	if !ok {
		return fmt.Errorf("tool %s: %w", clipName(tool), ErrUnknownTool)
	}
	return r.saveSetting(ctx, e.meta.Name, s) // a tool's state is kept under its name, not its wire name
}

// saveSetting stores s as the setting of the tool named tool, for every
// replica sharing the ToolStateStore, and applies it here.
func (r *Registry) saveSetting(ctx context.Context, tool string, s ToolSetting) error {
	if err := r.states.Save(ctx, tool, s); err != nil {
		return fmt.Errorf("saving the state of tool %s: %w: %w", tool, ErrToolStateStore, err)
	}
	ts := &r.ts
	ts.mu.Lock()
	next := maps.Clone(ts.settings)
	if next == nil {
		next = map[string]ToolSetting{}
	}
	if s.Enabled {
		delete(next, tool)
	} else {
		next[tool] = s
	}
	ts.settings = next
	changed := r.restopLocked()
	ts.mu.Unlock()
	if changed {
		r.toolsChanged()
	}
	return nil
}

// SyncToolStates loads the settings from the ToolStateStore and applies
// them. WatchToolStates does it too, at its start and on every change.
func (r *Registry) SyncToolStates(ctx context.Context) error {
	m, err := r.states.Load(ctx)
	if err != nil {
		return fmt.Errorf("loading tool states: %w", err)
	}
	ts := &r.ts
	ts.mu.Lock()
	ts.settings = m
	changed := r.restopLocked()
	ts.mu.Unlock()
	if changed {
		r.toolsChanged()
	}
	return nil
}

// WatchToolStates loads the settings from the ToolStateStore, then
// follows the changes other replicas make, until ctx ends; run it on a
// goroutine of its own in each replica:
//
//	go reg.WatchToolStates(ctx)
//
// A load that fails is logged and tried again on the next change the
// store reports; until the first load succeeds every tool is enabled.
// How soon a change reaches this replica depends on the store (for
// runtime/redisstore: at once through pub/sub, at worst its poll
// interval). It returns the store's Watch error (ctx's, when it ends).
func (r *Registry) WatchToolStates(ctx context.Context) error {
	load := func() {
		if err := r.SyncToolStates(ctx); err != nil && ctx.Err() == nil {
			r.log.LogAttrs(ctx, slog.LevelError, "toolcat: tool states", slog.Any("err", err))
		}
	}
	load()
	return r.states.Watch(ctx, load)
}

// ToolStatus returns the state tool is in now, and false when the
// registry has no such tool.
func (r *Registry) ToolStatus(tool string) (ToolStatus, bool) {
	e, ok := r.tools.Load().byName[tool]
	if !ok {
		return ToolStatus{}, false
	}
	tool = e.meta.Name
	if p := r.ts.stops.Load(); p != nil {
		if st := (*p)[tool]; st != nil {
			return *st, true
		}
	}
	return ToolStatus{Tool: tool, State: ToolEnabled}, true
}

// ToolStatuses returns the state of every registered tool, sorted by name.
func (r *Registry) ToolStatuses() []ToolStatus {
	names := r.Names()
	out := make([]ToolStatus, len(names))
	var stops map[string]*ToolStatus
	if p := r.ts.stops.Load(); p != nil {
		stops = *p
	}
	for i, n := range names {
		if st := stops[n]; st != nil {
			out[i] = *st
		} else {
			out[i] = ToolStatus{Tool: n, State: ToolEnabled}
		}
	}
	return out
}

// OnToolsChanged registers fn to be called after the tools a model may
// see changed for every session: a tool was registered, disabled or
// enabled (here, or by another replica through the ToolStateStore), or
// blocked or unblocked with its dependency. An MCP server sends
// notifications/tools/list_changed from it. fn runs on the goroutine that
// made the change, after it took effect, and possibly on several at once;
// it must not block (start a goroutine for slow work). The function
// returned removes fn.
func (r *Registry) OnToolsChanged(fn func()) (remove func()) {
	p := &fn
	ts := &r.ts
	ts.hooksMu.Lock()
	ts.hooks = append(ts.hooks, p)
	ts.hooksMu.Unlock()
	return func() {
		ts.hooksMu.Lock()
		defer ts.hooksMu.Unlock()
		for i, h := range ts.hooks {
			if h == p {
				ts.hooks = append(ts.hooks[:i:i], ts.hooks[i+1:]...)
				return
			}
		}
	}
}

// toolsChanged calls the OnToolsChanged functions.
func (r *Registry) toolsChanged() {
	ts := &r.ts
	ts.hooksMu.Lock()
	hooks := ts.hooks
	ts.hooksMu.Unlock()
	for _, h := range hooks {
		(*h)()
	}
}

// restop recomputes the stopped tools after the tool set changed.
func (r *Registry) restop() {
	r.ts.mu.Lock()
	r.restopLocked()
	r.ts.mu.Unlock()
}

// restopLocked recomputes the stopped tools from the settings and the
// registered tools, and reports whether they changed; ts.mu is held.
func (r *Registry) restopLocked() bool {
	ts := &r.ts
	set := r.tools.Load()
	stops := map[string]*ToolStatus{}
	for name, s := range ts.settings {
		if _, ok := set.byName[name]; ok && !s.Enabled {
			stops[name] = &ToolStatus{Tool: name, State: ToolDisabled, Reason: s.Reason, Since: s.At, Hold: s.Hold}
		}
	}
	if len(stops) > 0 {
		// A tool is blocked when a registered tool it depends on, directly
		// or through others, is disabled.
		visiting := map[string]bool{}
		var cause func(e *entry) *ToolStatus
		cause = func(e *entry) *ToolStatus {
			name := e.meta.Name
			if st, ok := stops[name]; ok {
				return st // disabled, blocked, or nil: known to be fine
			}
			if visiting[name] {
				return nil // a cycle: lint reports it
			}
			visiting[name] = true
			var found *ToolStatus
			for _, d := range e.meta.Dependencies {
				if de := set.byName[d]; de != nil {
					if c := cause(de); c != nil {
						found = c
						break
					}
				}
			}
			if found != nil {
				root := found
				if found.State == ToolBlocked {
					root = &ToolStatus{Tool: found.DisabledDependency, Reason: found.Reason, Since: found.Since}
				}
				stops[name] = &ToolStatus{Tool: name, State: ToolBlocked, Reason: root.Reason, Since: root.Since, DisabledDependency: root.Tool}
			} else {
				stops[name] = nil
			}
			return stops[name]
		}
		for _, e := range set.sorted {
			cause(e)
		}
		maps.DeleteFunc(stops, func(_ string, st *ToolStatus) bool { return st == nil })
	}
	var old map[string]*ToolStatus
	if p := ts.stops.Load(); p != nil {
		old = *p
	}
	same := maps.EqualFunc(old, stops, func(a, b *ToolStatus) bool {
		return a.State == b.State && a.Reason == b.Reason && a.DisabledDependency == b.DisabledDependency && a.Since.Equal(b.Since) && a.Hold == b.Hold
	})
	if len(stops) == 0 {
		ts.stops.Store(nil)
	} else {
		ts.stops.Store(&stops)
	}
	return !same
}

// stopped returns the error of a call of e when e is disabled or blocked,
// or nil. It costs one atomic load while no tool is stopped.
func (r *Registry) stopped(e *entry) *ToolError {
	p := r.ts.stops.Load()
	if p == nil {
		return nil
	}
	st := (*p)[e.meta.Name]
	if st == nil {
		return nil
	}
	return stoppedError(st)
}

// isStopped reports whether e is disabled or blocked.
func (r *Registry) isStopped(e *entry) bool {
	p := r.ts.stops.Load()
	return p != nil && (*p)[e.meta.Name] != nil
}

func stoppedError(st *ToolStatus) *ToolError {
	var te *ToolError
	if st.State == ToolBlocked {
		te = PermissionDenied("tool " + st.Tool + " is unavailable: it depends on " + st.DisabledDependency +
			", which an operator disabled: " + st.Reason)
	} else if st.Hold != nil {
		te = PermissionDenied("tool " + st.Tool + " is held for an operator's review: " + st.Reason)
	} else {
		te = PermissionDenied("tool " + st.Tool + " is disabled by an operator: " + st.Reason)
	}
	te.Suggestion = "Do not retry this tool now. Tell the user it is switched off, and why; use another listed tool if one does the job."
	te.Details = map[string]any{"state": string(st.State), "reason": st.Reason}
	if st.DisabledDependency != "" {
		te.Details["disabled_dependency"] = st.DisabledDependency
	}
	te.internal = true
	return te
}
