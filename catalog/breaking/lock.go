package breaking

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/toolcat/toolcat/catalog"
)

// LockFile is the name toolcat lock writes beside the catalog; catalog
// loading skips it.
const LockFile = "toolcat.lock.json"

// LockVersion is the version of the lock file format, its toolcat_lock
// field.
const LockVersion = 1

// lockFile is the lock: the catalog in the catalog format, every field
// written out with its defaults applied, and the generated Go API. The
// go_api member comes last, so that the rest is a catalog toolcat loads
// with its own positions (see ReadLock).
type lockFile struct {
	ToolcatLock    int                       `json:"toolcat_lock"`
	Package        string                    `json:"package"`
	IdempotencyKey string                    `json:"idempotency_key,omitempty"`
	Services       map[string]map[string]any `json:"services,omitempty"`
	Tools          map[string]map[string]any `json:"tools"`
	GoAPI          map[string]API            `json:"go_api,omitempty"`
}

// WriteLock renders the lock of a catalog and its Go API (nil: none):
// deterministic, keys sorted, one member per line.
func WriteLock(cat *catalog.Catalog, api map[string]API) ([]byte, error) {
	lf := lockFile{ToolcatLock: LockVersion, Package: cat.Package, IdempotencyKey: cat.IdempotencyKey, Tools: map[string]map[string]any{}, GoAPI: api}
	if len(cat.Services) > 0 {
		lf.Services = map[string]map[string]any{}
		for _, s := range cat.Services {
			m := map[string]any{}
			if s.Description != "" {
				m["description"] = s.Description
			}
			if s.URL != "" {
				m["url"] = s.URL
			}
			lf.Services[s.Name] = m
		}
	}
	for _, t := range cat.Tools {
		lf.Tools[t.Name] = lockTool(t)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(lf); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// lockTool writes what the model, the runtime and the Go API see of a
// tool, its defaults applied. Examples, queries and suppressions are left
// out: they change no call.
func lockTool(t *catalog.Tool) map[string]any {
	m := map[string]any{
		"description":          t.Description,
		"risk":                 string(t.Risk),
		"has_side_effects":     t.HasSideEffects,
		"idempotent":           t.Idempotent,
		"idempotency_required": t.IdempotencyRequired,
		"supports_dry_run":     t.SupportsDryRun,
		"revertible":           t.Revertible,
		"returns_untrusted":    t.ReturnsUntrusted,
		"exposure":             t.Exposure,
		"autonomy":             string(t.Autonomy),
		"max_retries":          t.MaxRetries,
		"additional_args":      t.AdditionalArgs,
		"args":                 t.Args.Interface(),
	}
	set := func(key string, v any, ok bool) {
		if ok {
			m[key] = v
		}
	}
	set("category", t.Category, t.Category != "")
	set("side_effect", t.SideEffect, t.SideEffect != "")
	set("version", t.Version, t.Version != "")
	set("owner", t.Owner, t.Owner != "")
	set("capability_required", t.CapabilityRequired, t.CapabilityRequired != "")
	set("sla_ms", t.SLAms, t.SLAms > 0)
	set("max_result_bytes", t.MaxResultBytes, t.MaxResultBytes > 0)
	set("fallback_tool", t.FallbackTool, t.FallbackTool != "")
	set("dependencies", t.Dependencies, len(t.Dependencies) > 0)
	set("renamed_from", t.RenamedFrom, len(t.RenamedFrom) > 0)
	set("idempotency_key", t.IdempotencyKey, t.Has("idempotency_key"))
	if t.Result != nil {
		m["result"] = t.Result.Interface()
	}
	if len(t.Errors) > 0 {
		errs := map[string]any{}
		for _, e := range t.Errors {
			h := map[string]any{}
			if e.Suggestion != "" {
				h["suggestion"] = e.Suggestion
			}
			if e.RetryAllowed != nil {
				h["retry_allowed"] = *e.RetryAllowed
			}
			errs[e.Code] = h
		}
		m["errors"] = errs
	}
	return m
}

// IsLock reports whether data looks like a lock file: a JSON object whose
// first member is toolcat_lock.
func IsLock(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	t, err := dec.Token()
	return err == nil && t == "toolcat_lock"
}

// ReadLock reads a lock file. Positions point into it, file name as
// given.
func ReadLock(name string, data []byte) (*Side, error) {
	var head struct {
		ToolcatLock int `json:"toolcat_lock"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("%s: not a lock file: %w", name, err)
	}
	if head.ToolcatLock != LockVersion {
		return nil, fmt.Errorf("%s: lock file version %d; this toolcat reads version %d; write it again with toolcat lock", name, head.ToolcatLock, LockVersion)
	}
	api, start, end, err := goAPIMember(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	// Blank out go_api, keeping every line where it is, so that the rest
	// loads as a catalog with positions in the lock file itself; the
	// version field loads as catalog metadata.
	cat := bytes.Clone(data)
	for i := start; i < end; i++ {
		if cat[i] != '\n' {
			cat[i] = ' '
		}
	}
	c, err := catalog.LoadFiles(catalog.File{Name: name, Data: cat})
	if err != nil {
		return nil, fmt.Errorf("%s: the lock file does not load as a catalog; write it again with toolcat lock: %w", name, err)
	}
	return &Side{Catalog: c, GoAPI: api}, nil
}

// goAPIMember decodes the top-level go_api member and returns the byte
// range to blank out: from the end of the member before it (its comma
// included) to the end of its value.
func goAPIMember(data []byte) (map[string]API, int, int, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return nil, 0, 0, err
	}
	for dec.More() {
		start := int(dec.InputOffset())
		key, err := dec.Token()
		if err != nil {
			return nil, 0, 0, err
		}
		if key != "go_api" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, 0, 0, err
			}
			continue
		}
		var api map[string]API
		if err := dec.Decode(&api); err != nil {
			return nil, 0, 0, fmt.Errorf("go_api: %w", err)
		}
		if api == nil {
			api = map[string]API{}
		}
		return api, start, int(dec.InputOffset()), nil
	}
	if _, err := dec.Token(); err != nil && !errors.Is(err, io.EOF) {
		return nil, 0, 0, err
	}
	return nil, 0, 0, nil
}
