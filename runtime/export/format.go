package export

import (
	"errors"
	"fmt"

	"github.com/toolcat/toolcat/runtime"
)

// Exporter is the signature every exporter of this package has: Anthropic,
// OpenAIChat, OpenAIResponses, Gemini and MCP.
type Exporter func(metas []runtime.Meta, opts ...Option) ([]byte, error)

// Format adapts an exporter, with fixed options, to a runtime.Format, what
// a session renders its tool definitions with:
//
//	b, err := sess.Definitions(ctx, export.Format(export.Anthropic))
//	b, err := sess.Definitions(ctx, export.Format(export.OpenAIResponses, export.DeferHidden()))
//
// A Format keeps the order of the tools it is given (KeepOrder), which is
// the session's: a newly promoted tool comes last, so the definitions before
// it, and a provider's cached prompt prefix, stay the same. Tools given with
// Exposure hidden (a session with runtime.SessionProviderSearch) need
// DeferHidden or IncludeHidden; without either the Format answers an error
// rather than drop them. The options are copied: changing the slice
// afterwards does not change the Format. A nil exporter gives a Format that
// returns an error.
func Format(fn Exporter, opts ...Option) runtime.Format {
	if fn == nil {
		return func([]runtime.Meta) ([]byte, error) { return nil, errNoExporter }
	}
	opts = append([]Option{KeepOrder()}, opts...)
	var o options
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	showsHidden := o.includeHidden || o.deferHidden
	return func(tools []runtime.Meta) ([]byte, error) {
		if !showsHidden {
			for i := range tools {
				if tools[i].Exposure == runtime.ExposureHidden {
					return nil, fmt.Errorf("export.Format: tool %s is hidden and would be left out: "+
						"render a session with provider-side search with export.DeferHidden()", tools[i].Name)
				}
			}
		}
		return fn(tools, opts...)
	}
}

var errNoExporter = errors.New("export.Format: no exporter given")
