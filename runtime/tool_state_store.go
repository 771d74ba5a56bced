package runtime

import (
	"context"
	"maps"
	"sync"
)

// MemoryToolStateStore is a ToolStateStore in the process's memory: the
// default of a registry, which then needs no WatchToolStates. Registries
// of one process sharing one MemoryToolStateStore (given to each with
// WithToolStateStore) follow each other's changes through
// WatchToolStates. It is safe for concurrent use.
type MemoryToolStateStore struct {
	mu       sync.Mutex
	settings map[string]ToolSetting
	watchers map[chan struct{}]struct{}
}

// NewMemoryToolStateStore returns an empty store: every tool enabled.
func NewMemoryToolStateStore() *MemoryToolStateStore {
	return &MemoryToolStateStore{settings: map[string]ToolSetting{}, watchers: map[chan struct{}]struct{}{}}
}

// Load implements ToolStateStore; the map is the caller's.
func (m *MemoryToolStateStore) Load(context.Context) (map[string]ToolSetting, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.settings), nil
}

// Save implements ToolStateStore.
func (m *MemoryToolStateStore) Save(_ context.Context, tool string, s ToolSetting) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s.Enabled {
		delete(m.settings, tool)
	} else {
		m.settings[tool] = s
	}
	for ch := range m.watchers {
		select {
		case ch <- struct{}{}:
		default: // a change is already waiting to be reported
		}
	}
	return nil
}

// Watch implements ToolStateStore.
func (m *MemoryToolStateStore) Watch(ctx context.Context, changed func()) error {
	ch := make(chan struct{}, 1)
	m.mu.Lock()
	m.watchers[ch] = struct{}{}
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		delete(m.watchers, ch)
		m.mu.Unlock()
	}()
	changed()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
			changed()
		}
	}
}
