package admin

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/toolcat/toolcat/runtime"
)

// apiError is the body of every error answer.
type apiError struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"code":"internal","message":"the answer cannot be encoded"}}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	var e apiError
	e.Error.Code, e.Error.Message = code, msg
	writeJSON(w, status, e)
}

func methodNotAllowed(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", "this path answers "+allow)
}

// routes is the API's handler: the token first, then the path, then the
// method.
func (s *Server) routes() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="toolcat-admin"`)
			writeError(w, http.StatusUnauthorized, "unauthorized", "a valid bearer token is required")
			return
		}
		path := r.URL.Path
		get := r.Method == http.MethodGet || r.Method == http.MethodHead
		switch {
		case path == "/api/tools":
			if !get {
				methodNotAllowed(w, "GET, HEAD")
				return
			}
			s.listTools(w, r)
		case strings.HasPrefix(path, "/api/tools/"):
			rest := path[len("/api/tools/"):]
			name, state := strings.CutSuffix(rest, "/state")
			if _, ok := s.reg.ToolStatus(name); !ok || strings.Contains(name, "/") {
				writeError(w, http.StatusNotFound, "not_found", "no tool is named "+quote(name))
				return
			}
			switch {
			case state && r.Method == http.MethodPut:
				s.putState(w, r, name)
			case state && get:
				st, _ := s.reg.ToolStatus(name)
				writeJSON(w, http.StatusOK, stateJSON(st))
			case state:
				methodNotAllowed(w, "GET, HEAD, PUT")
			case get:
				s.getTool(w, r, name)
			default:
				methodNotAllowed(w, "GET, HEAD")
			}
		case path == "/api/holds":
			if !get {
				methodNotAllowed(w, "GET, HEAD")
				return
			}
			s.listHolds(w, r)
		case path == "/api/metrics":
			if !get {
				methodNotAllowed(w, "GET, HEAD")
				return
			}
			s.getMetrics(w, r)
		case path == "/metrics":
			if !get {
				methodNotAllowed(w, "GET, HEAD")
				return
			}
			w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			_ = s.metrics.writePrometheus(w, s.reg.ToolStatuses())
		default:
			writeError(w, http.StatusNotFound, "not_found", "no such path; see /api/tools, /api/holds, /api/metrics and /metrics")
		}
	})
}

// quote quotes a name for an error message, at most 64 bytes of it.
func quote(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// State is a tool's state in the API.
type State struct {
	State              runtime.ToolState `json:"state"`
	Reason             string            `json:"reason,omitempty"`
	Since              *time.Time        `json:"since,omitempty"`
	DisabledDependency string            `json:"disabled_dependency,omitempty"`
	// Hold is why the host holds the tool for review (a mounted MCP
	// server's tool flagged as poisoned, changed since it was approved,
	// or new): enabling the tool approves it.
	Hold *runtime.ToolHold `json:"hold,omitempty"`
}

func stateJSON(st runtime.ToolStatus) State {
	out := State{State: st.State, Reason: st.Reason, DisabledDependency: st.DisabledDependency, Hold: st.Hold}
	if !st.Since.IsZero() {
		t := st.Since.UTC()
		out.Since = &t
	}
	return out
}

// ToolSummary is one tool in GET /api/tools.
type ToolSummary struct {
	Name           string           `json:"name"`
	Category       string           `json:"category,omitempty"`
	Risk           runtime.Risk     `json:"risk"`
	Exposure       runtime.Exposure `json:"exposure"`
	HasSideEffects bool             `json:"has_side_effects"`
	State
}

func riskOf(m *runtime.Meta) runtime.Risk {
	if m.Risk == "" {
		return runtime.RiskLow
	}
	return m.Risk
}

func exposureOf(m *runtime.Meta) runtime.Exposure {
	if m.Exposure == "" {
		return runtime.ExposureCore
	}
	return m.Exposure
}

func (s *Server) listTools(w http.ResponseWriter, _ *http.Request) {
	statuses := s.reg.ToolStatuses()
	out := struct {
		Tools []ToolSummary `json:"tools"`
	}{Tools: make([]ToolSummary, 0, len(statuses))}
	for _, st := range statuses {
		t, ok := s.reg.Get(st.Tool)
		if !ok {
			continue
		}
		m := &t.Meta
		out.Tools = append(out.Tools, ToolSummary{Name: m.Name, Category: m.Category, Risk: riskOf(m),
			Exposure: exposureOf(m), HasSideEffects: m.HasSideEffects, State: stateJSON(st)})
	}
	writeJSON(w, http.StatusOK, out)
}

// HeldTool is one tool in GET /api/holds.
type HeldTool struct {
	Name  string    `json:"name"`
	Since time.Time `json:"since"`
	// Reason is what a model calling the tool reads.
	Reason string           `json:"reason"`
	Hold   runtime.ToolHold `json:"hold"`
}

// listHolds answers the tools the host holds for review, sorted by name:
// the operator's queue.
func (s *Server) listHolds(w http.ResponseWriter, _ *http.Request) {
	out := struct {
		Tools []HeldTool `json:"tools"`
	}{Tools: []HeldTool{}}
	for _, st := range s.reg.ToolStatuses() {
		if st.State == runtime.ToolDisabled && st.Hold != nil {
			out.Tools = append(out.Tools, HeldTool{Name: st.Tool, Since: st.Since.UTC(), Reason: st.Reason, Hold: *st.Hold})
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// ToolDetail is GET /api/tools/{name}: the catalog entry as the registry
// holds it, and the state.
type ToolDetail struct {
	Name                string                  `json:"name"`
	Description         string                  `json:"description"`
	Category            string                  `json:"category,omitempty"`
	Version             string                  `json:"version,omitempty"`
	Owner               string                  `json:"owner,omitempty"`
	Risk                runtime.Risk            `json:"risk"`
	HasSideEffects      bool                    `json:"has_side_effects"`
	Idempotent          bool                    `json:"idempotent"`
	IdempotencyRequired bool                    `json:"idempotency_required"`
	IdempotencyKeyArg   bool                    `json:"idempotency_key_arg"`
	SupportsDryRun      bool                    `json:"supports_dry_run"`
	Revertible          bool                    `json:"revertible"`
	ReturnsUntrusted    bool                    `json:"returns_untrusted"`
	CapabilityRequired  string                  `json:"capability_required,omitempty"`
	Exposure            runtime.Exposure        `json:"exposure"`
	MinAutonomy         string                  `json:"min_autonomy,omitempty"`
	MaxRetries          int                     `json:"max_retries"`
	SLAMillis           int64                   `json:"sla_ms,omitempty"`
	Dependencies        []string                `json:"dependencies,omitempty"`
	FallbackTool        string                  `json:"fallback_tool,omitempty"`
	AdditionalArgs      runtime.AdditionalArgs  `json:"additional_args"`
	MaxResultBytes      int                     `json:"max_result_bytes,omitempty"`
	Args                json.RawMessage         `json:"args"`
	Result              json.RawMessage         `json:"result,omitempty"`
	Errors              map[runtime.Code]string `json:"errors,omitempty"`
	Queries             []string                `json:"queries,omitempty"`
	State               State                   `json:"state"`
}

func (s *Server) getTool(w http.ResponseWriter, _ *http.Request, name string) {
	t, _ := s.reg.Get(name)
	st, _ := s.reg.ToolStatus(name)
	m := &t.Meta
	d := ToolDetail{Name: m.Name, Description: m.Description, Category: m.Category, Version: m.Version, Owner: m.Owner,
		Risk: riskOf(m), HasSideEffects: m.HasSideEffects, Idempotent: m.Idempotent, IdempotencyRequired: m.IdempotencyRequired,
		IdempotencyKeyArg: m.IdempotencyKeyArg, SupportsDryRun: m.SupportsDryRun, Revertible: m.Revertible,
		ReturnsUntrusted: m.ReturnsUntrusted, CapabilityRequired: m.CapabilityRequired, Exposure: exposureOf(m),
		MaxRetries: m.MaxRetries, SLAMillis: m.SLA.Milliseconds(), Dependencies: m.Dependencies, FallbackTool: m.FallbackTool,
		AdditionalArgs: m.AdditionalArgs, MaxResultBytes: m.MaxResultBytes, Args: schema(m.ArgsSchema), Result: schema(m.ResultSchema),
		Errors: m.ErrorHints, Queries: m.Queries, State: stateJSON(st)}
	if d.AdditionalArgs == "" {
		d.AdditionalArgs = runtime.AdditionalArgsReject
	}
	if m.MinAutonomy != runtime.AutonomyDefault {
		d.MinAutonomy = m.MinAutonomy.String()
	}
	writeJSON(w, http.StatusOK, d)
}

// schema returns a schema to embed, or nil when it is empty or not JSON
// (encoding it would fail the whole answer).
func schema(raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 || !json.Valid(raw) {
		return nil
	}
	return raw
}

// StateRequest is the body of PUT /api/tools/{name}/state.
type StateRequest struct {
	Enabled *bool  `json:"enabled"`
	Reason  string `json:"reason"`
	// Approve, with enabled true, is the hash of the held definition the
	// operator reviewed (hold.hash): when the tool is held for another
	// definition now (its server changed it again), nothing changes and
	// the answer is 409.
	Approve string `json:"approve,omitempty"`
}

func (s *Server) putState(w http.ResponseWriter, r *http.Request, name string) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, "unsupported_media_type", "the body must be application/json")
		return
	}
	if r.ContentLength > s.maxBody {
		writeError(w, http.StatusRequestEntityTooLarge, "payload_too_large", "the body is larger than the limit")
		return
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, s.maxBody))
	dec.DisallowUnknownFields()
	var req StateRequest
	if err := dec.Decode(&req); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeError(w, http.StatusRequestEntityTooLarge, "payload_too_large", "the body is larger than the limit")
			return
		}
		writeError(w, http.StatusBadRequest, "bad_request", `the body must be {"enabled": true|false, "reason": "..."}: `+clipErr(err))
		return
	}
	if _, err := dec.Token(); err != io.EOF {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeError(w, http.StatusRequestEntityTooLarge, "payload_too_large", "the body is larger than the limit")
			return
		}
		writeError(w, http.StatusBadRequest, "bad_request", "the body must hold one JSON object and nothing after it")
		return
	}
	if req.Enabled == nil {
		writeError(w, http.StatusBadRequest, "bad_request", `"enabled" is required: true or false`)
		return
	}
	if req.Approve != "" {
		st, _ := s.reg.ToolStatus(name)
		switch {
		case !*req.Enabled:
			writeError(w, http.StatusBadRequest, "bad_request", `"approve" goes with "enabled": true`)
			return
		case st.Hold == nil || st.State != runtime.ToolDisabled:
			writeError(w, http.StatusConflict, "conflict", "tool "+quote(name)+" is not held for review")
			return
		case st.Hold.Hash != req.Approve:
			writeError(w, http.StatusConflict, "conflict", "tool "+quote(name)+" is held for another definition now (hash "+st.Hold.Hash+"); review it again")
			return
		}
	}
	if *req.Enabled {
		err = s.reg.EnableTool(r.Context(), name)
	} else {
		err = s.reg.DisableTool(r.Context(), name, req.Reason)
	}
	switch {
	case errors.Is(err, runtime.ErrUnknownTool):
		writeError(w, http.StatusNotFound, "not_found", "no tool is named "+quote(name))
		return
	case errors.Is(err, runtime.ErrToolStateStore):
		s.log.LogAttrs(r.Context(), slog.LevelError, "toolcat admin: saving a tool state", slog.String("tool", name), slog.Any("err", err))
		writeError(w, http.StatusServiceUnavailable, "unavailable", "the tool state store cannot be written now; nothing changed")
		return
	case err != nil:
		writeError(w, http.StatusBadRequest, "bad_request", err.Error())
		return
	}
	s.log.LogAttrs(r.Context(), slog.LevelInfo, "toolcat admin: tool state set", slog.String("tool", name),
		slog.Bool("enabled", *req.Enabled), slog.String("reason", req.Reason), slog.String("remote", r.RemoteAddr))
	st, _ := s.reg.ToolStatus(name)
	writeJSON(w, http.StatusOK, stateJSON(st))
}

func clipErr(err error) string {
	msg := err.Error()
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	return msg
}

func (s *Server) getMetrics(w http.ResponseWriter, _ *http.Request) {
	out := struct {
		WindowSeconds    float64       `json:"latency_window_seconds"`
		UnknownToolCalls uint64        `json:"unknown_tool_calls"`
		Tools            []ToolMetrics `json:"tools"`
	}{WindowSeconds: s.metrics.Window().Seconds(), UnknownToolCalls: s.metrics.UnknownToolCalls(), Tools: s.metrics.Snapshot(s.metrics.withSessionTools(s.reg.Names()))}
	writeJSON(w, http.StatusOK, out)
}
