package mcpclient

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Pins are the tool definitions an operator approved, per server and tool,
// by hash: what a mount compares each listing with to catch a definition
// that changed after approval (a "rug pull"). A host keeps them in a pin
// file (LoadPins) so that the approval outlives the process; mounts of
// several servers may share one Pins.
//
// The file is JSON, written whole through a temporary file renamed into
// place, one entry per tool with its definition (so that a change found
// after a restart can be shown as a diff):
//
//	{"version": 1,
//	 "servers": {"notes": {"get_note": {"sha256": "…", "approved_at": "…",
//	   "definition": {"name": "get_note", "description": "…", "inputSchema": {…}}}}}}
//
// Servers are keyed by the name of their initialize result, tools by their
// name on the wire.
type Pins struct {
	path string // "": kept in memory only

	mu      sync.Mutex
	servers map[string]map[string]Pin
}

// Pin is one approved tool definition.
type Pin struct {
	SHA256     string          `json:"sha256"`
	ApprovedAt time.Time       `json:"approved_at"`
	Definition json.RawMessage `json:"definition"`
}

type pinFile struct {
	Version int                       `json:"version"`
	Servers map[string]map[string]Pin `json:"servers"`
}

const pinVersion = 1

// maxPinFile bounds a pin file: some ten thousand definitions.
const maxPinFile = 64 << 20

// NewPins returns pins kept in memory only: approvals last as long as the
// process.
func NewPins() *Pins { return &Pins{servers: map[string]map[string]Pin{}} }

// LoadPins reads the pin file at path, or starts an empty one when there
// is none; every approval is written back to it.
func LoadPins(path string) (*Pins, error) {
	p := &Pins{path: path, servers: map[string]map[string]Pin{}}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mcpclient: pin file: %w", err)
	}
	defer f.Close()
	var b bytes.Buffer
	if n, err := b.ReadFrom(io.LimitReader(f, maxPinFile+1)); err != nil {
		return nil, fmt.Errorf("mcpclient: pin file %s: %w", path, err)
	} else if n > maxPinFile {
		return nil, fmt.Errorf("mcpclient: pin file %s is larger than %d bytes", path, maxPinFile)
	}
	var pf pinFile
	dec := json.NewDecoder(&b)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&pf); err != nil {
		return nil, fmt.Errorf("mcpclient: pin file %s: %w", path, err)
	}
	if pf.Version != pinVersion {
		return nil, fmt.Errorf("mcpclient: pin file %s: version %d is not %d", path, pf.Version, pinVersion)
	}
	for s, tools := range pf.Servers {
		for name, pin := range tools {
			if len(pin.SHA256) != 64 {
				return nil, fmt.Errorf("mcpclient: pin file %s: server %s, tool %s: sha256 is not 64 hex digits", path, s, name)
			}
		}
		if tools != nil {
			p.servers[s] = tools
		}
	}
	return p, nil
}

// Path is the pin file, or "" for pins kept in memory.
func (p *Pins) Path() string { return p.path }

// Lookup returns the pin of a server's tool.
func (p *Pins) Lookup(server, tool string) (Pin, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pin, ok := p.servers[server][tool]
	return pin, ok
}

// HasServer reports whether any tool of server is pinned: the server is
// pinned, and its new tools wait for approval.
func (p *Pins) HasServer(server string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.servers[server]) > 0
}

// Approve pins a definition and writes the pin file.
func (p *Pins) Approve(server, tool string, def json.RawMessage, at time.Time) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	tools := p.servers[server]
	if tools == nil {
		tools = map[string]Pin{}
		p.servers[server] = tools
	}
	prev, had := tools[tool]
	tools[tool] = Pin{SHA256: hashOf(def), ApprovedAt: at.UTC(), Definition: def}
	if err := p.writeLocked(); err != nil {
		if had {
			tools[tool] = prev
		} else {
			delete(tools, tool)
		}
		return err
	}
	return nil
}

func (p *Pins) writeLocked() error {
	if p.path == "" {
		return nil
	}
	b, err := json.MarshalIndent(pinFile{Version: pinVersion, Servers: p.servers}, "", "  ")
	if err != nil {
		return fmt.Errorf("mcpclient: pin file: %w", err)
	}
	dir := filepath.Dir(p.path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(p.path)+".*")
	if err != nil {
		return fmt.Errorf("mcpclient: pin file: %w", err)
	}
	_, werr := tmp.Write(append(b, '\n'))
	serr := tmp.Sync()
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("mcpclient: pin file: %w", err)
	}
	if err := os.Rename(tmp.Name(), p.path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("mcpclient: pin file: %w", err)
	}
	return nil
}

// definition is the part of a listed tool that is pinned: name, title,
// description, schemas and annotations, as canonical JSON (keys sorted,
// no insignificant space), so that the same definition always hashes
// alike whatever the server's key order.
func definition(t *mcp.Tool) (json.RawMessage, error) {
	b, err := json.Marshal(struct {
		Name         string               `json:"name"`
		Title        string               `json:"title,omitempty"`
		Description  string               `json:"description,omitempty"`
		InputSchema  any                  `json:"inputSchema,omitempty"`
		OutputSchema any                  `json:"outputSchema,omitempty"`
		Annotations  *mcp.ToolAnnotations `json:"annotations,omitempty"`
	}{t.Name, t.Title, t.Description, t.InputSchema, t.OutputSchema, t.Annotations})
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	return json.Marshal(v) // maps marshal with sorted keys
}

func hashOf(def json.RawMessage) string {
	h := sha256.Sum256(def)
	return hex.EncodeToString(h[:])
}

// diffDefinitions says field by field what changed from old to new, each
// value as JSON, for the operator who approves the change.
func diffDefinitions(old, new json.RawMessage) string {
	var a, b map[string]json.RawMessage
	_ = json.Unmarshal(old, &a)
	_ = json.Unmarshal(new, &b)
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	var names []string
	for k := range keys {
		names = append(names, k)
	}
	slices.Sort(names)
	var out strings.Builder
	for _, k := range names {
		x, y := a[k], b[k]
		if bytes.Equal(x, y) {
			continue
		}
		fmt.Fprintf(&out, "%s:\n- %s\n+ %s\n", k, orNone(x), orNone(y))
	}
	return out.String()
}

func orNone(v json.RawMessage) string {
	if len(v) == 0 {
		return "(none)"
	}
	return string(v)
}
