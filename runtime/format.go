package runtime

// Format renders tool definitions for a model provider, from the tools a
// session shows (Session.Definitions). runtime/export makes one per
// provider: export.Format(export.Anthropic), and so on.
type Format func(tools []Meta) ([]byte, error)
