// Package admin is an HTTP API for the operators of an agent host: the
// tools of a runtime.Registry with their state, switching a tool off and on
// (for every replica sharing the registry's ToolStateStore), and per-tool
// metrics as JSON and in the Prometheus text format.
//
//	srv, err := admin.New(reg, admin.WithToken(os.Getenv("TOOLCAT_ADMIN_TOKEN")))
//	if err != nil { ... }
//	defer srv.Close()
//	go srv.ListenAndServe(ctx, "127.0.0.1:9091") // its own listener, never the agent's
//
// Nothing listens unless the host starts it. Every request needs the
// bearer token (Authorization: Bearer TOKEN), compared in constant time;
// a request without it, or with another, gets 401 and changes nothing.
//
//	GET  /api/tools               the tools: name, category, risk, exposure, state and reason
//	GET  /api/tools/{name}        one tool's metadata, schemas and state
//	GET  /api/tools/{name}/state  its state
//	PUT  /api/tools/{name}/state  {"enabled": false, "reason": "..."} switches it off; {"enabled": true} on
//	GET  /api/holds               the tools the host holds for review (runtime/mcpclient: poisoned, changed, new)
//	GET  /api/metrics             per-tool metrics, JSON
//	GET  /metrics                 the same in the Prometheus text format (0.0.4)
//
// Errors are JSON, {"error": {"code": "...", "message": "..."}}, with the
// status: 400 for a body that is not the object above, 401, 404 for an
// unknown path or tool, 405 (with Allow), 409 for an approval ("approve":
// a hash) of a definition the tool is not held for, 413 for a body over
// the limit (WithMaxBodyBytes, 64 KiB), 415 for a body that is not
// application/json, 503 when the state store cannot be written.
package admin

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/toolcat/toolcat/internal/httpserve"
	"github.com/toolcat/toolcat/runtime"
)

// MinTokenBytes is the shortest token New accepts.
const MinTokenBytes = 16

// DefaultMaxBodyBytes bounds a request's body unless WithMaxBodyBytes says
// otherwise.
const DefaultMaxBodyBytes = 64 << 10

// Server serves the admin API of one registry.
type Server struct {
	reg     *runtime.Registry
	token   [sha256.Size]byte
	metrics *Metrics
	stop    func()
	maxBody int64
	log     *slog.Logger
	handler http.Handler
}

// Option configures a Server.
type Option func(*Server) error

// WithToken sets the bearer token requests must carry: required, at
// least MinTokenBytes long (use random bytes, such as 32 from crypto/rand
// in hex).
func WithToken(token string) Option {
	return func(s *Server) error {
		if len(token) < MinTokenBytes {
			return errors.New("admin: the token must be at least 16 bytes long; use random bytes")
		}
		s.token = sha256.Sum256([]byte(token))
		return nil
	}
}

// WithMetrics serves m, which the host feeds itself (for example with
// runtime.WithObserver(m.Observe), so that no call made before New is
// missed), instead of Metrics of the Server's own.
func WithMetrics(m *Metrics) Option {
	return func(s *Server) error { s.metrics = m; return nil }
}

// WithMaxBodyBytes bounds a request's body (default DefaultMaxBodyBytes);
// a larger one gets 413.
func WithMaxBodyBytes(n int64) Option {
	return func(s *Server) error {
		if n <= 0 {
			return errors.New("admin: the body limit must be positive")
		}
		s.maxBody = n
		return nil
	}
}

// WithLogger sets where state changes are logged, with the address that
// asked (default, and for nil, slog.Default()).
func WithLogger(l *slog.Logger) Option {
	return func(s *Server) error {
		if l != nil {
			s.log = l
		}
		return nil
	}
}

// New returns the admin API of reg. Unless WithMetrics is given it makes
// Metrics and observes reg's calls into them until Close.
func New(reg *runtime.Registry, opts ...Option) (*Server, error) {
	if reg == nil {
		return nil, errors.New("admin: no registry")
	}
	s := &Server{reg: reg, maxBody: DefaultMaxBodyBytes, log: slog.Default()}
	tokenSet := false
	for _, o := range opts {
		if err := o(s); err != nil {
			return nil, err
		}
		tokenSet = tokenSet || s.token != [sha256.Size]byte{}
	}
	if !tokenSet {
		return nil, errors.New("admin: no token: give one with WithToken")
	}
	if s.metrics == nil {
		s.metrics = NewMetrics()
		s.stop = reg.Observe(s.metrics.Observe)
	}
	s.handler = s.routes()
	return s, nil
}

// Metrics returns the metrics the Server serves.
func (s *Server) Metrics() *Metrics { return s.metrics }

// Close stops observing the registry's calls into the Server's own
// Metrics. It does not stop ListenAndServe: cancel its context.
func (s *Server) Close() {
	if s.stop != nil {
		s.stop()
		s.stop = nil
	}
}

// Handler returns the API as an http.Handler, for a host that runs its own
// http.Server. Serve it on a listener of its own, not the agent's.
func (s *Server) Handler() http.Handler { return s.handler }

// ListenAndServe serves the API on addr until ctx ends, then shuts down,
// giving requests in flight 5 seconds. The server bounds headers to 64
// KiB and the time to read them to 10 seconds.
func (s *Server) ListenAndServe(ctx context.Context, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return s.Serve(ctx, ln)
}

// Serve is ListenAndServe on a listener.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	return httpserve.Serve(ctx, hs, ln, 5*time.Second)
}

// authorized reports whether r carries the token.
func (s *Server) authorized(r *http.Request) bool {
	h := r.Header.Get("Authorization")
	const scheme = "bearer "
	if len(h) <= len(scheme) || !equalFold(h[:len(scheme)], scheme) {
		return false
	}
	got := sha256.Sum256([]byte(h[len(scheme):]))
	return subtle.ConstantTimeCompare(got[:], s.token[:]) == 1
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		c := a[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != b[i] {
			return false
		}
	}
	return true
}
