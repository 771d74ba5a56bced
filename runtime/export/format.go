package export

import (
	"errors"
	"slices"

	"github.com/toolcat/toolcat/runtime"
)

// Exporter is the signature every exporter of this package has: Anthropic,
// OpenAIChat, OpenAIResponses, Gemini and MCP.
type Exporter func(metas []runtime.Meta, opts ...Option) ([]byte, error)

// Format adapts an exporter, with fixed options, to a runtime.Format, what
// a session renders its tool definitions with:
//
//	b, err := sess.Definitions(export.Format(export.Anthropic))
//	b, err := sess.Definitions(export.Format(export.OpenAIResponses, export.DeferHidden()))
//
// The options are copied: changing the slice afterwards does not change the
// Format. A nil exporter gives a Format that returns an error.
func Format(fn Exporter, opts ...Option) runtime.Format {
	if fn == nil {
		return func([]runtime.Meta) ([]byte, error) { return nil, errNoExporter }
	}
	opts = slices.Clone(opts)
	return func(tools []runtime.Meta) ([]byte, error) { return fn(tools, opts...) }
}

var errNoExporter = errors.New("export.Format: no exporter given")
