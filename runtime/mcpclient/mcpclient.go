// Package mcpclient mounts an external MCP server into a runtime.Registry:
// the server's tools become hidden tools of the registry, found through a
// session's discovery and called through the registry's full pipeline
// (argument validation against the server's own input schema, envelope,
// retry guard, SLA, untrusted wrapping).
//
// It links the MCP go-sdk client only when imported; package runtime does
// not import it.
package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolcat/toolcat/runtime"
)

// Source says where the MCP server is: a command spoken to over stdio
// (Command) or a streamable HTTP endpoint (URL).
type Source struct {
	name    string
	args    []string
	url     string
	headers http.Header
}

// Command is a server started as a subprocess, spoken to over its stdin and
// stdout. It is started again on every reconnection.
func Command(name string, args ...string) Source {
	return Source{name: name, args: append([]string(nil), args...)}
}

// URL is a streamable HTTP server; headers (may be nil) go with every
// request, for example Authorization.
func URL(u string, headers http.Header) Source {
	return Source{url: u, headers: headers.Clone()}
}

func (s Source) String() string {
	if s.url != "" {
		return s.url
	}
	return strings.TrimSpace(s.name + " " + strings.Join(s.args, " "))
}

func (s Source) transport() (mcp.Transport, error) {
	switch {
	case s.url != "" && s.name != "":
		return nil, errors.New("mcpclient: a source is a command or a URL, not both")
	case s.url != "":
		hc := http.DefaultClient
		if len(s.headers) > 0 {
			hc = &http.Client{Transport: headerTransport{h: s.headers, next: http.DefaultTransport}}
		}
		return &mcp.StreamableClientTransport{Endpoint: s.url, HTTPClient: hc, MaxRetries: -1}, nil
	case s.name != "":
		return &mcp.CommandTransport{Command: exec.Command(s.name, s.args...), TerminateDuration: time.Second}, nil
	}
	return nil, errors.New("mcpclient: empty source; use Command or URL")
}

type headerTransport struct {
	h    http.Header
	next http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.h {
		r.Header[k] = v
	}
	return t.next.RoundTrip(r)
}

// Option configures Mount.
type Option func(*config)

type config struct {
	prefix     *string
	overlay    []runtime.Meta
	minBackoff time.Duration
	maxBackoff time.Duration
	logger     *slog.Logger
	prop       propagation.TextMapPropagator // trace context into _meta (trace.go)
	tp         trace.TracerProvider          // client spans (trace.go)
	pins       *Pins                         // nil: in memory, and the server is not a pinned one
	noScan     bool
}

// WithPrefix sets what goes before each tool's name in the registry. The
// default is the server's name (as its initialize result gives it, made a
// legal name) and "_". An empty prefix keeps the server's names.
func WithPrefix(p string) Option { return func(c *config) { c.prefix = &p } }

// WithOverlay supplies catalog metadata per tool: the []runtime.Meta that
// toolcat gen emits for a catalog toolcat import wrote from this server and
// a human edited. An entry matches a server tool by OriginalName or Name
// (the server's name, or the prefixed one); see the package README for the
// fields it sets.
func WithOverlay(metas []runtime.Meta) Option {
	return func(c *config) { c.overlay = append(c.overlay, metas...) }
}

// WithBackoff bounds the wait between reconnection attempts: it starts at
// min and doubles up to max (defaults 100ms and 5s).
func WithBackoff(min, max time.Duration) Option {
	return func(c *config) { c.minBackoff, c.maxBackoff = min, max }
}

// WithLogger logs connections, disconnections and registrations (default:
// slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// Mounted is a mounted server. Its tools stay registered after Close (a
// registry cannot unregister); they then answer dependency_unavailable.
type Mounted struct {
	reg    *runtime.Registry
	src    Source
	cfg    config
	client *mcp.Client
	server string // the server's name
	prefix string

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	cs      *mcp.ClientSession
	lastErr error
	remote  map[string]string   // registry name → server's name
	listed  map[string]bool     // server names in the last tools/list
	local   map[string]string   // server's name → registry name
	wake    chan struct{}       // a call saw the connection fail
	relist  chan struct{}       // notifications/tools/list_changed
	regErrs map[string]struct{} // registration failures already logged

	// Review (review.go): the approved definition of each registered
	// tool and the tools held for an operator, by the server's name.
	pins          *Pins
	approved      map[string]approved
	registered    map[string]string // hash of the definition registered
	held          map[string]*held
	reviewMu      sync.Mutex // serialises review
	firstSync     bool       // the sync of Mount is running
	pinnedAtStart bool       // the pins knew the server when it was mounted
	removeHook    func()
}

// Mount connects to the server, lists its tools and registers them in reg,
// then keeps the connection: it reconnects with a bounded backoff when the
// server dies, and re-lists the tools when the server sends
// notifications/tools/list_changed. The first connection must succeed;
// ctx bounds only it. Close stops the mount.
func Mount(ctx context.Context, reg *runtime.Registry, src Source, opts ...Option) (*Mounted, error) {
	if reg == nil {
		return nil, errors.New("mcpclient: nil registry")
	}
	cfg := config{minBackoff: 100 * time.Millisecond, maxBackoff: 5 * time.Second, logger: slog.Default()}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.minBackoff <= 0 {
		cfg.minBackoff = 100 * time.Millisecond
	}
	if cfg.maxBackoff < cfg.minBackoff {
		cfg.maxBackoff = cfg.minBackoff
	}
	if cfg.logger == nil {
		cfg.logger = slog.Default()
	}
	if _, err := src.transport(); err != nil {
		return nil, err
	}
	m := &Mounted{
		reg: reg, src: src, cfg: cfg,
		done:    make(chan struct{}),
		remote:  map[string]string{},
		listed:  map[string]bool{},
		local:   map[string]string{},
		wake:    make(chan struct{}, 1),
		relist:  make(chan struct{}, 1),
		regErrs: map[string]struct{}{},

		pins:       cfg.pins,
		approved:   map[string]approved{},
		registered: map[string]string{},
		held:       map[string]*held{},
	}
	if m.pins == nil {
		m.pins = NewPins()
	}
	m.client = mcp.NewClient(&mcp.Implementation{Name: "toolcat", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case m.relist <- struct{}{}:
			default:
			}
		},
		Logger: cfg.logger,
	})
	m.client.AddSendingMiddleware(cfg.traceMiddleware())
	cs, err := m.connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("mcpclient: mount %s: %w", src, err)
	}
	if ir := cs.InitializeResult(); ir != nil && ir.ServerInfo != nil {
		m.server = ir.ServerInfo.Name
	}
	if m.server == "" {
		m.server = "mcp"
	}
	if cfg.prefix != nil {
		m.prefix = *cfg.prefix
	} else if p := runtime.LegalName(m.server); p != "" {
		m.prefix = p + "_"
	}
	m.pinnedAtStart = m.pins.HasServer(m.server)
	m.firstSync = true
	err = m.sync(ctx, cs)
	m.firstSync = false
	if err != nil {
		_ = cs.Close()
		return nil, fmt.Errorf("mcpclient: mount %s: %w", src, err)
	}
	m.removeHook = reg.OnToolsChanged(func() { go m.review() })
	go m.review() // holds an operator lifted between the listing and the hook
	m.mu.Lock()
	m.cs = cs
	m.mu.Unlock()
	m.ctx, m.cancel = context.WithCancel(context.Background())
	go m.run(cs)
	return m, nil
}

// Server is the server's name, from its initialize result.
func (m *Mounted) Server() string { return m.server }

// Tools lists the registry names of the tools the server offered in its
// last tools/list, sorted.
func (m *Mounted) Tools() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for remote := range m.listed {
		if l, ok := m.local[remote]; ok {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return out
}

// Connected reports whether the mount holds a live session now.
func (m *Mounted) Connected() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cs != nil
}

// Close ends the session (stopping a command server) and the reconnection
// loop. The tools stay registered and answer dependency_unavailable.
func (m *Mounted) Close() error {
	m.cancel()
	<-m.done
	m.removeHook()
	return nil
}

func (m *Mounted) connect(ctx context.Context) (*mcp.ClientSession, error) {
	t, err := m.src.transport()
	if err != nil {
		return nil, err
	}
	return m.client.Connect(ctx, t, nil)
}

// run watches the session, reconnects when it ends and re-lists on
// list_changed, until Close.
func (m *Mounted) run(cs *mcp.ClientSession) {
	defer close(m.done)
	for {
		ended := make(chan struct{})
		go func(cs *mcp.ClientSession) { _ = cs.Wait(); close(ended) }(cs)
	loop:
		for {
			select {
			case <-m.ctx.Done():
				m.drop(cs, errors.New("the mount was closed"))
				_ = cs.Close()
				<-ended
				return
			case <-ended:
				break loop
			case <-m.wake:
				// A call failed on the transport: make sure it is gone.
				pctx, cancel := context.WithTimeout(m.ctx, 5*time.Second)
				if err := cs.Ping(pctx, nil); err != nil {
					_ = cs.Close()
				}
				cancel()
			case <-m.relist:
				if err := m.sync(m.ctx, cs); err != nil {
					m.cfg.logger.Warn("mcpclient: re-listing tools failed", "server", m.server, "err", err)
				}
			}
		}
		m.drop(cs, errors.New("the connection to the server ended"))
		m.cfg.logger.Warn("mcpclient: server disconnected; reconnecting", "server", m.server)
		cs = m.reconnect()
		if cs == nil {
			return
		}
	}
}

func (m *Mounted) drop(cs *mcp.ClientSession, why error) {
	m.mu.Lock()
	if m.cs == cs {
		m.cs = nil
		m.lastErr = why
	}
	m.mu.Unlock()
}

// reconnect tries until it succeeds or the mount is closed, waiting
// between attempts from minBackoff doubling to maxBackoff.
func (m *Mounted) reconnect() *mcp.ClientSession {
	wait := m.cfg.minBackoff
	for {
		t := time.NewTimer(wait)
		select {
		case <-m.ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		actx, cancel := context.WithTimeout(m.ctx, 10*time.Second)
		cs, err := m.connect(actx)
		if err == nil {
			err = m.sync(actx, cs)
			if err != nil {
				_ = cs.Close()
			}
		}
		cancel()
		if err == nil {
			m.mu.Lock()
			m.cs, m.lastErr = cs, nil
			m.mu.Unlock()
			m.cfg.logger.Info("mcpclient: reconnected", "server", m.server)
			return cs
		}
		m.mu.Lock()
		m.lastErr = err
		m.mu.Unlock()
		if wait *= 2; wait > m.cfg.maxBackoff {
			wait = m.cfg.maxBackoff
		}
	}
}

// sync lists the server's tools, registers those not yet registered and
// holds those to review (check).
func (m *Mounted) sync(ctx context.Context, cs *mcp.ClientSession) error {
	var tools []*mcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("tools/list: %w", err)
		}
		tools = append(tools, t)
		if len(tools) > 10000 {
			return errors.New("tools/list: more than 10000 tools")
		}
	}
	// The listing is what calls check first: a tool is offered from the
	// moment it is registered.
	listed := make(map[string]bool, len(tools))
	for _, t := range tools {
		if t != nil && t.Name != "" {
			listed[t.Name] = true
		}
	}
	m.mu.Lock()
	m.listed = listed
	m.mu.Unlock()
	sc := m.scanContext(tools)
	for _, t := range tools {
		if t == nil || t.Name == "" {
			continue
		}
		if err := m.check(ctx, t, sc); err != nil {
			m.mu.Lock()
			_, seen := m.regErrs[t.Name]
			m.regErrs[t.Name] = struct{}{}
			m.mu.Unlock()
			if !seen {
				m.cfg.logger.Warn("mcpclient: tool not registered", "server", m.server, "tool", t.Name, "err", err)
			}
		}
	}
	return nil
}

// localName is the registry name of a server tool: prefix + the name in
// snake_case (as toolcat import names tools), made legal.
func (m *Mounted) localName(remote string) (string, error) {
	n := m.prefix + snake(remote)
	if runtime.CheckName(n) == nil {
		return n, nil
	}
	if l := runtime.LegalName(n); l != "" && runtime.CheckName(l) == nil {
		return l, nil
	}
	return "", runtime.CheckName(n)
}

func (m *Mounted) overlayFor(remote, local string) *runtime.Meta {
	for i := range m.cfg.overlay {
		o := &m.cfg.overlay[i]
		if o.OriginalName == remote || o.Name == remote || o.Name == local {
			return o
		}
	}
	return nil
}

// meta builds the registry metadata of a server tool: the server's name,
// description and schemas, safety inferred from its annotations, then the
// overlay's fields.
func (m *Mounted) meta(t *mcp.Tool) (runtime.Meta, error) {
	name, err := m.localName(t.Name)
	if err != nil {
		return runtime.Meta{}, err
	}
	meta := runtime.Meta{
		Name:             name,
		Description:      t.Description,
		Exposure:         runtime.ExposureHidden,
		ReturnsUntrusted: true,
		UntrustedSource:  "mcp:" + m.server,
		AdditionalArgs:   runtime.AdditionalArgsAllow,
		Dependencies:     nil,
	}
	if meta.Description == "" && t.Title != "" {
		meta.Description = t.Title
	}
	if t.InputSchema != nil {
		b, err := json.Marshal(t.InputSchema)
		if err != nil {
			return runtime.Meta{}, fmt.Errorf("input schema: %w", err)
		}
		meta.ArgsSchema = b
	}
	fromAnnotations(&meta, t.Annotations)
	if o := m.overlayFor(t.Name, name); o != nil {
		applyOverlay(&meta, o)
	}
	return meta, nil
}

// fromAnnotations is export.AnnotationsOf's inverse. MCP's defaults apply
// when a hint is absent: not read-only, destructive, not idempotent.
func fromAnnotations(meta *runtime.Meta, a *mcp.ToolAnnotations) {
	readOnly, destructive, idempotent := false, true, false
	if a != nil {
		readOnly = a.ReadOnlyHint
		if a.DestructiveHint != nil {
			destructive = *a.DestructiveHint
		}
		idempotent = a.IdempotentHint
	}
	meta.HasSideEffects = !readOnly
	meta.Idempotent = idempotent || readOnly
	switch {
	case readOnly:
		meta.Risk = runtime.RiskLow
	case destructive:
		meta.Risk = runtime.RiskHigh
	default:
		meta.Risk = runtime.RiskMedium
	}
}

// applyOverlay copies what a catalog entry declares. Booleans of a catalog
// entry are always declared, so they are taken as they are; strings,
// numbers and lists only when set. The server's schema stays: the server
// validates against it.
func applyOverlay(meta *runtime.Meta, o *runtime.Meta) {
	meta.HasSideEffects = o.HasSideEffects
	meta.Idempotent = o.Idempotent
	meta.IdempotencyRequired = o.IdempotencyRequired
	meta.ReturnsUntrusted = o.ReturnsUntrusted
	if o.Risk != "" {
		meta.Risk = o.Risk
	}
	if o.Exposure != "" {
		meta.Exposure = o.Exposure
	}
	if o.Description != "" {
		meta.Description = o.Description
	}
	if o.UntrustedSource != "" {
		meta.UntrustedSource = o.UntrustedSource
	}
	if o.AdditionalArgs != "" {
		meta.AdditionalArgs = o.AdditionalArgs
	}
	setStr(&meta.Category, o.Category)
	setStr(&meta.Version, o.Version)
	setStr(&meta.Owner, o.Owner)
	setStr(&meta.CapabilityRequired, o.CapabilityRequired)
	setStr(&meta.FallbackTool, o.FallbackTool)
	if o.MinAutonomy != 0 {
		meta.MinAutonomy = o.MinAutonomy
	}
	if o.MaxRetries != 0 {
		meta.MaxRetries = o.MaxRetries
	}
	if o.SLA != 0 {
		meta.SLA = o.SLA
	}
	if o.MaxResultBytes != 0 {
		meta.MaxResultBytes = o.MaxResultBytes
	}
	if len(o.ErrorHints) > 0 {
		meta.ErrorHints = o.ErrorHints
	}
	if len(o.Queries) > 0 {
		meta.Queries = o.Queries
	}
	if len(o.Dependencies) > 0 {
		meta.Dependencies = o.Dependencies
	}
	if len(o.ResultSchema) > 0 {
		meta.ResultSchema = o.ResultSchema
	}
}

func setStr(dst *string, v string) {
	if v != "" {
		*dst = v
	}
}

// execute calls the server's tool over the current session.
func (m *Mounted) execute(remote string) runtime.Func {
	return func(ctx context.Context, args any) (any, error) {
		m.mu.Lock()
		cs, last, listed := m.cs, m.lastErr, m.listed[remote]
		m.mu.Unlock()
		if cs == nil {
			msg := fmt.Sprintf("MCP server %s is not connected", m.server)
			if last != nil {
				msg += ": " + last.Error()
			}
			return nil, runtime.NewError(runtime.CodeDependencyUnavailable, msg+"; it is being reconnected")
		}
		if !listed {
			return nil, runtime.NewError(runtime.CodeUnsupported, fmt.Sprintf(
				"MCP server %s no longer offers tool %s (its tools/list dropped it); search for another tool", m.server, remote))
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: remote, Arguments: args})
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			select {
			case m.wake <- struct{}{}:
			default:
			}
			return nil, runtime.NewError(runtime.CodeDependencyUnavailable,
				fmt.Sprintf("MCP server %s: tools/call %s failed: %v", m.server, remote, err))
		}
		data := resultData(res)
		if res.IsError {
			msg := fmt.Sprintf("MCP server %s: tool %s failed", m.server, remote)
			if s, ok := data.(string); ok && s != "" {
				msg += ": " + s
			}
			return nil, runtime.NewError(runtime.CodeExternalError, msg)
		}
		return data, nil
	}
}

// resultData is the data of a call result: its structured content when
// present, its text when all of it is text, else its content blocks.
func resultData(res *mcp.CallToolResult) any {
	if res.StructuredContent != nil {
		return res.StructuredContent
	}
	var texts []string
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			return res.Content
		}
		texts = append(texts, tc.Text)
	}
	return strings.Join(texts, "\n")
}

// snake turns getUser, get-user, files.read and HTTPRequest into get_user,
// get_user, files_read and http_request.
func snake(s string) string {
	var b strings.Builder
	isUp := func(c byte) bool { return c >= 'A' && c <= 'Z' }
	isLow := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '-' || c == '.' || c == ' ':
			c = '_'
		case isUp(c):
			if i > 0 && (isLow(s[i-1]) || isUp(s[i-1]) && i+1 < len(s) && isLow(s[i+1]) && s[i+1] > '9') {
				b.WriteByte('_')
			}
			c += 'a' - 'A'
		}
		if c == '_' && (b.Len() == 0 || strings.HasSuffix(b.String(), "_")) {
			continue
		}
		b.WriteByte(c)
	}
	return strings.TrimRight(b.String(), "_")
}
