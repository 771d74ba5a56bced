package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/toolcat/toolcat/basetools"
	"github.com/toolcat/toolcat/examples/agent-host/tickets"
	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/codemode"
)

// host is what an agent host holds for one conversation: the registry of
// every tool (base tools and its own), the session, and the services
// behind its own tools.
type host struct {
	reg  *runtime.Registry
	sess *runtime.Session
	desk *tickets.Desk
	base *basetools.Set
	dir  string // the temporary workspace
	// mode is set when the host answers in code mode (useCodeMode).
	mode *codemode.Mode
}

// newHost makes the registry — the domain tools, then the base tools over
// a new temporary workspace — and a supervised session with id, which
// offers the model undo_last_actions; opts are added to the registry's.
// Close removes the workspace.
func newHost(id string, logs io.Writer, opts ...runtime.Option) (*host, error) {
	desk := tickets.NewDesk(nil,
		tickets.Ticket{ID: "OPS-12", Title: "Checkout returns 502 for some users", Status: "in_progress", Assignee: "Dana", Priority: "urgent"},
		tickets.Ticket{ID: "OPS-7", Title: "Rotate the TLS certificate of the status page", Status: "open", Priority: "normal"},
	)
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	reg, err := tickets.NewRegistry(tickets.New(desk), append([]runtime.Option{runtime.WithLogger(logger)}, opts...)...)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "agent-host-")
	if err != nil {
		return nil, err
	}
	runbook := "# Checkout runbook\n\n1. Look at the ticket.\n2. If customers cannot pay, page the engineer on call.\n"
	if err := os.WriteFile(filepath.Join(dir, "runbook.md"), []byte(runbook), 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	base, err := basetools.Open(basetools.Config{
		Workspace: dir,
		Shell:     basetools.ShellConfig{Allow: []string{"ls", "cat"}},
		Web:       basetools.WebConfig{Timeout: 10 * time.Second},
	})
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := base.Register(reg); err != nil {
		base.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	sess := reg.Session(id,
		runtime.SessionSender("user-1"),
		runtime.SessionAutonomy(runtime.AutonomySupervised),
		runtime.SessionUndoTool(true),
	)
	return &host{reg: reg, sess: sess, desk: desk, base: base, dir: dir}, nil
}

// Close releases the workspace and removes it.
func (h *host) Close() error {
	err := h.base.Close()
	if rerr := os.RemoveAll(h.dir); err == nil {
		err = rerr
	}
	return err
}

// toolNames lists the tools the model sees now, in the order sent.
func (h *host) toolNames(ctx context.Context) ([]string, error) {
	var tools []runtime.Meta
	var err error
	if h.mode != nil {
		tools = h.mode.Tools()
	} else if tools, err = h.sess.Tools(ctx); err != nil {
		return nil, err
	}
	names := make([]string, len(tools))
	for i, m := range tools {
		names[i] = m.Name
	}
	return names, nil
}

func previewText(p runtime.Preview) string {
	s := p.Summary
	for _, e := range p.Effects {
		s += "; " + e
	}
	return s
}
