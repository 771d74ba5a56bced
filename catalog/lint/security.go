package lint

import (
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/runtime/toolscan"
)

// The security rules run runtime/toolscan, the check runtime/mcpclient
// runs on mounted servers, over every text of a tool a model reads: its
// name, description, error suggestions, and the descriptions, titles, enum
// values, defaults, constants and examples of its schemas. They know more
// than a mounted server's check: a description may send the model to its
// declared dependencies and fallback tool and to the other tools of the
// catalog, and to nothing else.

// securityFinding is a toolscan finding at a position in the catalog.
type securityFinding struct {
	toolscan.Finding
	Pos catalog.Pos
}

// securityFindings returns the findings of tool t. The first call of a
// run checks every tool, on one worker per CPU; the security rules share
// the result.
func securityFindings(p *Pass, t *catalog.Tool) []securityFinding {
	if p.shared == nil {
		return scanTool(securityContext(p), t)
	}
	if p.shared.security == nil {
		base := securityContext(p)
		tools := p.Catalog.Tools
		found := make([][]securityFinding, len(tools))
		workers := min(runtime.GOMAXPROCS(0), len(tools)/20+1)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for i := w; i < len(tools); i += workers {
					found[i] = scanTool(base, tools[i])
				}
			})
		}
		wg.Wait()
		p.shared.security = make(map[*catalog.Tool][]securityFinding, len(tools))
		for i, tl := range tools {
			p.shared.security[tl] = found[i]
		}
	}
	if fs, ok := p.shared.security[t]; ok {
		return fs
	}
	return scanTool(securityContext(p), t)
}

// securityContext is what every tool's check shares: the catalog's tool
// names (and wire names) as siblings, its services as allowed, prepared
// once per run.
func securityContext(p *Pass) *toolscan.Context {
	if p.shared != nil && p.shared.securityCtx != nil {
		return p.shared.securityCtx
	}
	c := &toolscan.Context{}
	for _, o := range p.Catalog.Tools {
		c.Siblings = append(c.Siblings, o.Name)
		if o.OriginalName != "" {
			c.Siblings = append(c.Siblings, o.OriginalName)
		}
	}
	for _, s := range p.Catalog.Services {
		c.Allowed = append(c.Allowed, s.Name)
	}
	c.Prepare()
	if p.shared != nil {
		p.shared.securityCtx = c
	}
	return c
}

func scanTool(base *toolscan.Context, t *catalog.Tool) []securityFinding {
	cc := *base
	c := &cc
	c.Self, c.OriginalName = t.Name, t.OriginalName
	c.Allowed = append(append(slices.Clip(base.Allowed), t.Dependencies...), t.FallbackTool)
	var texts []posText
	collectTexts(&texts, "args", t.Args, false)
	collectTexts(&texts, "result", t.Result, false)
	for _, x := range texts {
		if strings.HasSuffix(x.field, "#name") {
			c.Arguments = append(c.Arguments, x.text)
		}
	}
	var out []securityFinding
	add := func(pos catalog.Pos, fs []toolscan.Finding) {
		for _, f := range fs {
			out = append(out, securityFinding{f, pos})
		}
	}
	add(t.Pos, toolscan.ScanName("name", t.Name, c))
	if t.OriginalName != "" {
		add(t.PosOf("original_name"), toolscan.ScanName("original_name", t.OriginalName, c))
	}
	add(t.PosOf("description"), toolscan.ScanText("description", t.Description, c))
	for _, e := range t.Errors {
		add(e.Pos, toolscan.ScanText("errors/"+e.Code+"/suggestion", e.Suggestion, c))
	}
	for _, x := range texts {
		add(x.pos, toolscan.ScanText(x.field, x.text, c))
	}
	return out
}

type posText struct {
	field, text string
	pos         catalog.Pos
}

// schemaTextKeys are the keywords of a schema whose strings a model reads.
var schemaTextKeys = map[string]bool{
	"description": true, "title": true, "enum": true, "default": true, "const": true,
	"examples": true, "example": true, "$comment": true,
}

// collectTexts lists the strings of schema n a model reads, with their
// positions: under a text keyword at any depth, and property names.
func collectTexts(out *[]posText, path string, n *catalog.Node, texts bool) {
	if n == nil {
		return
	}
	switch n.Kind {
	case catalog.String:
		if texts {
			*out = append(*out, posText{path, n.Str, n.Pos})
		}
	case catalog.Array:
		for i, it := range n.Items {
			collectTexts(out, path+"/"+itoa(i), it, texts)
		}
	case catalog.Object:
		for _, f := range n.Fields {
			p := path + "/" + f.Key
			if f.Key == "properties" && f.Value.Kind == catalog.Object {
				for _, pf := range f.Value.Fields {
					*out = append(*out, posText{p + "/" + pf.Key + "#name", pf.Key, pf.KeyPos})
				}
			}
			collectTexts(out, p, f.Value, texts || schemaTextKeys[f.Key])
		}
	}
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}

// forEachSecurityFinding adapts a check of one class of findings into a
// rule's Check.
func forEachSecurityFinding(class toolscan.Class, fix string) func(*Pass) {
	return forEachTool(func(p *Pass, t *catalog.Tool) {
		for _, f := range securityFindings(p, t) {
			if f.Class != class {
				continue
			}
			where := strings.TrimSuffix(f.Field, "#name")
			if where != f.Field {
				where = "property name " + where
			}
			p.Reportf(t, f.Pos, "%s, bytes %d-%d: %s %s; %s", where, f.Start, f.End, f.Message, f.Excerpt, fix)
		}
	})
}
