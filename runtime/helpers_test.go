package runtime_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/toolcat/toolcat/runtime"
)

const searchSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["query"],
  "properties": {
    "query": {"type": "string", "minLength": 2, "maxLength": 200, "description": "Keywords"},
    "max_results": {"type": "integer", "minimum": 1, "maximum": 20, "default": 5},
    "sort": {"type": "string", "enum": ["relevance", "date"], "default": "relevance"}
  }
}`

func searchMeta() runtime.Meta {
	return runtime.Meta{
		Name:        "search_articles",
		Description: "Full-text search on article titles and tags.",
		Risk:        runtime.RiskLow,
		Idempotent:  true,
		MaxRetries:  2,
		SLA:         200 * time.Millisecond,
		ArgsSchema:  json.RawMessage(searchSchema),
		ErrorHints: map[runtime.Code]string{
			runtime.CodeNotFound: "No article matched. Try broader keywords.",
		},
	}
}

// logBuffer is a concurrency-safe log sink.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func quietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// envelope decodes a result's JSON into a generic map, as a model host
// would see it.
func envelope(t testing.TB, res runtime.Result) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(res.JSON(), &m); err != nil {
		t.Fatalf("envelope is not JSON: %v\n%s", err, res.JSON())
	}
	return m
}

func mustRegister(t testing.TB, r *runtime.Registry, tools ...runtime.Tool) {
	t.Helper()
	for _, tool := range tools {
		if err := r.Register(tool); err != nil {
			t.Fatalf("Register(%s): %v", tool.Meta.Name, err)
		}
	}
}

func echo(_ context.Context, args any) (any, error) { return args, nil }
