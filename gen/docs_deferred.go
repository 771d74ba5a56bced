package gen

import (
	"fmt"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/runtime/export"
)

// deferredProviders are the definitions DeferredDefinitions writes: the
// providers that search hidden tools server-side (export.DeferHidden).
var deferredProviders = []struct {
	file     string
	provider string // as export.CheckName names it
	export   export.Exporter
}{
	{"anthropic-deferred.json", "anthropic", export.Anthropic},
	{"openai-responses-deferred.json", "openai", export.OpenAIResponses},
}

// DeferredDefinitions returns the tool definitions of the providers that
// search hidden tools themselves, hidden tools marked as deferred and the
// provider's tool-search tool added (export.DeferHidden):
// anthropic-deferred.json and openai-responses-deferred.json, for a host
// that picks provider-side search. toolcat docs --defer-hidden writes them
// beside Docs' files. A provider that refuses a tool's name gets no file,
// as in Docs.
func DeferredDefinitions(cat *catalog.Catalog) (map[string][]byte, error) {
	metas := Metas(cat)
	files := map[string][]byte{}
	for _, p := range deferredProviders {
		if refusedName(p.provider, cat) != "" {
			continue
		}
		b, err := p.export(metas, export.DeferHidden())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.file, err)
		}
		files[p.file] = b
	}
	return files, nil
}
