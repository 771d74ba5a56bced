package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/toolscan"
)

// WithPins keeps the approved definitions of the server's tools in pins
// (LoadPins for a pin file, NewPins for memory only) and makes the server
// a pinned one: a tool whose definition differs from its pin is held as
// changed, and a tool the pins do not know, of a server they know, is held
// as new, until an operator enables it. The first mount of a server the
// pins do not know approves its tools as listed (trust on first use),
// those flagged by the poisoning check excepted.
//
// Without WithPins the mount pins in memory, for the life of the process:
// a definition that changes while mounted (on list_changed or a
// reconnection) is still held, but new tools are only checked for
// poisoning.
func WithPins(p *Pins) Option { return func(c *config) { c.pins = p } }

// WithToolScan turns the poisoning check of the server's tool texts on
// (the default) or off. A tool whose name, title, description or schema
// texts the check flags (runtime/toolscan: text aimed at the model, such
// as orders to read secrets, to hide actions from the user, to call other
// tools; invisible Unicode; encoded blobs; look-alike names) is held,
// disabled and hidden, until an operator enables it.
func WithToolScan(on bool) Option { return func(c *config) { c.noScan = !on } }

// Review is a tool the mount holds for an operator.
type Review struct {
	// Tool is the registry name, Remote the server's.
	Tool   string `json:"tool"`
	Remote string `json:"remote"`
	// Kind is runtime.HoldFlagged, HoldChanged or HoldNew.
	Kind     string             `json:"kind"`
	Findings []toolscan.Finding `json:"findings,omitempty"`
	Diff     string             `json:"diff,omitempty"`
	// SHA256 is the hash of the definition held: the one enabling the tool
	// approves.
	SHA256 string `json:"sha256"`
}

// held is a tool the mount holds: the definition it waits to approve.
type held struct {
	Review
	def  json.RawMessage
	meta runtime.Meta
}

// approved is the definition an operator (or trust on first use)
// approved for a tool.
type approved struct {
	hash string
	def  json.RawMessage
}

// Reviews lists the tools the mount holds for an operator, sorted by name.
// Enabling one (Approve, runtime.Registry.EnableTool, or the admin API's
// PUT /api/tools/{name}/state with {"enabled": true}, on any replica
// sharing the ToolStateStore) approves the definition held: it is pinned
// and, for a changed tool, becomes the registered one.
func (m *Mounted) Reviews() []Review {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Review, 0, len(m.held))
	for _, h := range m.held {
		out = append(out, h.Review)
	}
	slices.SortFunc(out, func(a, b Review) int { return cmpString(a.Tool, b.Tool) })
	return out
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Approve enables a held tool (by its registry name), approving the
// definition held; see Reviews. The approval itself follows, as on every
// replica, from the registry's change.
func (m *Mounted) Approve(ctx context.Context, tool string) error {
	return m.reg.EnableTool(ctx, tool)
}

// scanContext is what the poisoning check knows of the server: its tools
// (by their names on the wire) and the registry's other tools.
func (m *Mounted) scanContext(tools []*mcp.Tool) *toolscan.Context {
	c := &toolscan.Context{}
	for _, t := range tools {
		if t != nil {
			c.Siblings = append(c.Siblings, t.Name)
		}
	}
	m.mu.Lock()
	mine := make(map[string]bool, len(m.remote))
	for l := range m.remote {
		mine[l] = true
	}
	m.mu.Unlock()
	for _, n := range m.reg.Names() {
		if !mine[n] {
			c.Others = append(c.Others, n)
		}
	}
	c.Prepare()
	return c
}

func (m *Mounted) scanTool(t *mcp.Tool, c *toolscan.Context) []toolscan.Finding {
	if m.cfg.noScan {
		return nil
	}
	st := toolscan.Tool{Name: t.Name, Title: t.Title, Description: t.Description}
	if t.Annotations != nil && st.Title == "" {
		st.Title = t.Annotations.Title
	}
	if t.InputSchema != nil {
		st.InputSchema, _ = json.Marshal(t.InputSchema)
	}
	if t.OutputSchema != nil {
		st.OutputSchema, _ = json.Marshal(t.OutputSchema)
	}
	cc := *c
	cc.Self = t.Name
	return toolscan.ScanTool(st, &cc)
}

// reasons are what a model calling a held tool reads: never the held text.
func (m *Mounted) holdReason(kind string) string {
	switch kind {
	case runtime.HoldChanged:
		return fmt.Sprintf("its definition on MCP server %s changed since it was approved; an operator must review the change", m.server)
	case runtime.HoldNew:
		return fmt.Sprintf("MCP server %s offers it newly; an operator must approve it", m.server)
	}
	return fmt.Sprintf("its text on MCP server %s is flagged as aimed at the model; an operator must review it", m.server)
}

// hold holds a tool (registered or about to be) for review.
func (m *Mounted) hold(ctx context.Context, remote string, meta runtime.Meta, def json.RawMessage, kind string, findings []toolscan.Finding, diff string) error {
	h := &held{Review: Review{Tool: meta.Name, Remote: remote, Kind: kind, Findings: findings, Diff: diff, SHA256: hashOf(def)}, def: def, meta: meta}
	lines := make([]string, len(findings))
	for i, f := range findings {
		lines[i] = f.String()
	}
	err := m.reg.HoldTool(ctx, meta.Name, m.holdReason(kind), runtime.ToolHold{
		Kind: kind, Source: "mcp:" + m.server, Findings: lines, Diff: diff, Hash: h.SHA256})
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.held[remote] = h
	m.mu.Unlock()
	attrs := []any{"server", m.server, "tool", meta.Name, "kind", kind}
	if len(findings) > 0 {
		attrs = append(attrs, "findings", toolscan.Summary(findings))
	}
	m.cfg.logger.Warn("mcpclient: tool held for an operator's review", attrs...)
	return nil
}

// review approves the held tools an operator enabled: it runs after every
// change of the registry's tools (OnToolsChanged), one at a time.
func (m *Mounted) review() {
	m.reviewMu.Lock()
	defer m.reviewMu.Unlock()
	m.mu.Lock()
	var todo []*held
	for _, h := range m.held {
		todo = append(todo, h)
	}
	m.mu.Unlock()
	for _, h := range todo {
		st, ok := m.reg.ToolStatus(h.Tool)
		if !ok || st.State == runtime.ToolDisabled {
			continue // still held, or not registered yet
		}
		m.mu.Lock()
		registered := m.registered[h.Remote]
		still := m.held[h.Remote] == h
		m.mu.Unlock()
		if !still {
			continue
		}
		if registered != h.SHA256 {
			if err := m.reg.ReplaceTool(runtime.Tool{Meta: h.meta, Execute: m.execute(h.Remote)}); err != nil {
				m.cfg.logger.Error("mcpclient: approving a changed definition", "server", m.server, "tool", h.Tool, "err", err)
				continue
			}
			m.mu.Lock()
			m.registered[h.Remote] = h.SHA256
			m.mu.Unlock()
		}
		if err := m.pins.Approve(m.server, h.Remote, h.def, time.Now()); err != nil {
			m.cfg.logger.Error("mcpclient: pinning an approved definition", "server", m.server, "tool", h.Tool, "err", err)
		}
		m.mu.Lock()
		if m.held[h.Remote] == h {
			delete(m.held, h.Remote)
		}
		m.approved[h.Remote] = approved{h.SHA256, h.def}
		m.mu.Unlock()
		m.cfg.logger.Info("mcpclient: held tool approved", "server", m.server, "tool", h.Tool, "kind", h.Kind)
	}
}

// check decides, for a listed tool, whether it runs as registered, must be
// held, or is approved now; it registers a tool not registered yet.
func (m *Mounted) check(ctx context.Context, t *mcp.Tool, sc *toolscan.Context) error {
	def, err := definition(t)
	if err != nil {
		return fmt.Errorf("tool %s: %w", t.Name, err)
	}
	h := hashOf(def)
	m.mu.Lock()
	local, known := m.local[t.Name]
	cur := m.approved[t.Name]
	pending := m.held[t.Name]
	m.mu.Unlock()
	if known {
		switch {
		case h == cur.hash && pending == nil:
			return nil
		case h == cur.hash:
			// The server went back to the approved definition.
			m.mu.Lock()
			delete(m.held, t.Name)
			m.mu.Unlock()
			if pending.Kind == runtime.HoldChanged {
				return m.reg.EnableTool(ctx, local)
			}
			return nil
		case pending != nil && pending.SHA256 == h:
			return nil // held already
		}
		meta, err := m.meta(t)
		if err != nil {
			return err
		}
		return m.hold(ctx, t.Name, meta, def, runtime.HoldChanged, m.scanTool(t, sc), diffDefinitions(cur.def, def))
	}
	meta, err := m.meta(t)
	if err != nil {
		return err
	}
	findings := m.scanTool(t, sc)
	kind, diff := "", ""
	pin, pinned := m.pins.Lookup(m.server, t.Name)
	switch {
	case pinned && pin.SHA256 == h:
	case pinned:
		kind, diff = runtime.HoldChanged, diffDefinitions(pin.Definition, def)
	case m.cfg.pins != nil && (m.pinnedAtStart || !m.firstSync):
		// A tool a pinned server did not offer when it was approved.
		kind = runtime.HoldNew
	case len(findings) > 0:
		kind = runtime.HoldFlagged
	}
	if kind != "" {
		if err := m.hold(ctx, t.Name, meta, def, kind, findings, diff); err != nil {
			return err
		}
	}
	if err := m.reg.Register(runtime.Tool{Meta: meta, Execute: m.execute(t.Name)}); err != nil {
		m.mu.Lock()
		delete(m.held, t.Name)
		m.mu.Unlock()
		return err
	}
	m.mu.Lock()
	m.local[t.Name] = meta.Name
	m.remote[meta.Name] = t.Name
	m.registered[t.Name] = h
	if kind == "" {
		m.approved[t.Name] = approved{h, def}
	} else if pinned {
		m.approved[t.Name] = approved{pin.SHA256, pin.Definition}
	}
	m.mu.Unlock()
	if kind != "" {
		return nil
	}
	if !pinned {
		if err := m.pins.Approve(m.server, t.Name, def, time.Now()); err != nil {
			return err
		}
	}
	// A hold this mount left in the ToolStateStore (before a restart) for
	// a definition approved since, or one the server has gone back on.
	if st, _ := m.reg.ToolStatus(meta.Name); st.Hold != nil && st.Hold.Source == "mcp:"+m.server {
		return m.reg.EnableTool(ctx, meta.Name)
	}
	return nil
}
