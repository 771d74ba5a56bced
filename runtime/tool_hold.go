package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ToolHold says why the host, rather than an operator, disabled a tool
// until an operator reviews it: runtime/mcpclient holds a mounted tool
// whose text is flagged as aimed at the model (tool poisoning), whose
// definition changed since it was approved (a "rug pull"), or that a pinned
// server offers for the first time. Enabling the tool (EnableTool, or the
// admin API's PUT /api/tools/{name}/state) is the operator's approval.
// The hold travels with the tool's setting through the ToolStateStore, so
// every replica shows it.
type ToolHold struct {
	// Kind is HoldFlagged, HoldChanged or HoldNew.
	Kind string `json:"kind"`
	// Source names what held the tool, such as "mcp:notes".
	Source string `json:"source,omitempty"`
	// Findings are the flagged spans, one line each (HoldFlagged, and
	// HoldChanged when the new text is flagged too).
	Findings []string `json:"findings,omitempty"`
	// Diff is what changed from the approved definition (HoldChanged).
	Diff string `json:"diff,omitempty"`
	// Hash is the SHA-256 of the definition held, in hex: an operator
	// enabling the tool approves that definition.
	Hash string `json:"hash,omitempty"`
}

// The kinds of holds.
const (
	HoldFlagged = "flagged"
	HoldChanged = "changed"
	HoldNew     = "new"
)

// maxHoldBytes bounds a hold's findings and diff, which every replica
// loads from the ToolStateStore.
const maxHoldBytes = 32 << 10

// HoldTool disables tool, for every replica sharing the registry's
// ToolStateStore, with reason and the hold h, until an operator enables
// it. Unlike DisableTool it accepts a tool not registered yet, so that a
// tool is held from the moment it is registered, never listed first. The
// reason is what a model calling the tool reads; keep the held text out of
// it (it may be the poison): h's findings and diff are for operators
// (ToolStatus, the admin API) only.
func (r *Registry) HoldTool(ctx context.Context, tool, reason string, h ToolHold) error {
	reason = strings.TrimSpace(reason)
	switch {
	case tool == "":
		return errors.New("hold: empty tool name")
	case reason == "":
		return errors.New("hold: empty reason")
	case len(reason) > MaxToolStateReason:
		return fmt.Errorf("reason is %d bytes long; the most is %d", len(reason), MaxToolStateReason)
	case !utf8.ValidString(reason) || !utf8.ValidString(h.Diff) || !utf8.ValidString(strings.Join(h.Findings, "")):
		return errors.New("hold: text is not valid UTF-8")
	}
	h.Diff = clipBytes(h.Diff, maxHoldBytes/2)
	n := 0
	for i, f := range h.Findings {
		if n += len(f); n > maxHoldBytes/2 {
			h.Findings = append(h.Findings[:i:i], fmt.Sprintf("(%d more)", len(h.Findings)-i))
			break
		}
	}
	if e, ok := r.tools.Load().byName[tool]; ok {
		tool = e.meta.Name
	}
	return r.saveSetting(ctx, tool, ToolSetting{Enabled: false, Reason: reason, At: r.now(), Hold: &h})
}

// clipBytes cuts s to at most n bytes on a rune boundary, marking the cut.
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n-len("…")]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}
