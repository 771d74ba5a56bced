package catalog

import (
	"bytes"
	"errors"
	"io"
	"sync"

	"go.yaml.in/yaml/v3"
)

// A YAML file of thousands of tools is parsed in parallel: go-yaml reads
// one file on one CPU, and a large catalog spends seconds there. The
// tools mapping's entries are split by their key lines into chunks, each
// chunk parsed on its own, and the rest of the file parsed with the tools
// lines left blank; the trees are joined with their lines re-based. The
// split is made only where it is exact, and any doubt (a chunk that does
// not parse alone, an alias, an odd layout) falls back to one pass over
// the whole file, which also gives the errors.

// minSplitBytes and minSplitTools are the sizes below which a YAML file,
// and a chunk of its tools, are parsed in one pass.
const (
	minSplitBytes = 1 << 20
	minSplitTools = 100
)

// yamlLayout is where a YAML catalog's tools are written.
type yamlLayout struct {
	toolsLine  int   // the line of "tools:", 1-based
	start, end int   // byte offsets of the tools' entries
	entries    []int // byte offset of each entry's key line
	lines      []int // and its line, 1-based
}

// isKeyStart reports whether c may start an entry's key line: a plain
// key such as a tool name, never an indicator (quotes, "?", "-", "<<",
// anchors, tags, flow collections).
func isKeyStart(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// layoutYAML finds the tools of a YAML file written in block style as
//
//	tools:
//	  name_one:
//	    ...
//	  name_two:
//
// every entry's key at one indentation, and reports false for any other
// layout, or one it cannot split exactly.
func layoutYAML(data []byte) (yamlLayout, bool) {
	var lay yamlLayout
	// go-yaml breaks lines at NEL, LS and PS and at a lone CR too.
	if bytes.Contains(data, []byte("\u0085")) || bytes.Contains(data, []byte("\u2028")) || bytes.Contains(data, []byte("\u2029")) {
		return lay, false
	}
	for i := bytes.IndexByte(data, '\r'); i >= 0; {
		if i+1 >= len(data) || data[i+1] != '\n' {
			return lay, false
		}
		j := bytes.IndexByte(data[i+1:], '\r')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	const (
		seekTools = iota
		seekFirst
		inTools
		after
	)
	state := seekTools
	indent := 0
	line := 0
	for off := 0; off < len(data); {
		line++
		end := bytes.IndexByte(data[off:], '\n')
		next := len(data)
		if end >= 0 {
			next = off + end + 1
			end += off
		} else {
			end = len(data)
		}
		text := bytes.TrimRight(data[off:end], "\r")
		sp := 0
		for sp < len(text) && text[sp] == ' ' {
			sp++
		}
		rest := text[sp:]
		blank := len(bytes.TrimLeft(rest, " \t")) == 0
		comment := !blank && rest[0] == '#'
		switch state {
		case seekTools, after:
			if sp == 0 && bytes.HasPrefix(rest, []byte("tools:")) {
				value := rest[len("tools:"):]
				tail := bytes.TrimLeft(value, " \t")
				empty := len(tail) == 0 || tail[0] == '#' && len(tail) < len(value)
				if state == after || !empty {
					return lay, false // tools written twice, or with a value on its line
				}
				lay.toolsLine = line
				state = seekFirst
			}
		case seekFirst:
			if blank || comment {
				break
			}
			if sp == 0 || !isKeyStart(rest[0]) {
				return lay, false
			}
			indent = sp
			lay.start = off
			lay.entries = append(lay.entries, off)
			lay.lines = append(lay.lines, line)
			state = inTools
		case inTools:
			switch {
			case blank || comment || sp > indent:
			case sp == 0:
				lay.end = off
				state = after
			case sp < indent || !isKeyStart(rest[0]):
				return lay, false
			default:
				lay.entries = append(lay.entries, off)
				lay.lines = append(lay.lines, line)
			}
		}
		off = next
	}
	switch state {
	case inTools:
		lay.end = len(data)
	case after:
	default:
		return lay, false
	}
	return lay, true
}

// splitYAML parses data as parseYAMLWhole does, the tools in chunks of at
// least minTools on up to workers goroutines. It reports false when the
// file's layout does not allow it, or when a part does not parse alone
// without errors and aliases: parseYAMLWhole then parses it (and reports
// its errors).
func splitYAML(name string, data []byte, workers, minTools int) (*Node, bool) {
	lay, ok := layoutYAML(data)
	if !ok || workers < 2 || len(lay.entries) < 2*max(minTools, 1) {
		return nil, false
	}
	chunks := min(2*workers, len(lay.entries)/max(minTools, 1))

	// The rest of the file, with the tools' lines left empty.
	skel := make([]byte, 0, lay.start+(len(data)-lay.end)+bytes.Count(data[lay.start:lay.end], []byte("\n")))
	skel = append(skel, data[:lay.start]...)
	for range bytes.Count(data[lay.start:lay.end], []byte("\n")) {
		skel = append(skel, '\n')
	}
	skel = append(skel, data[lay.end:]...)

	type result struct {
		pos    Pos
		fields []*Field
		ok     bool
	}
	results := make([]result, chunks)
	var root *Node
	var rootErrs ErrorList
	var wg sync.WaitGroup
	wg.Go(func() { root, rootErrs = parseYAMLWhole(name, skel) })
	work := make(chan int)
	for range min(workers, chunks) {
		wg.Go(func() {
			for i := range work {
				a, b := i*len(lay.entries)/chunks, (i+1)*len(lay.entries)/chunks
				end := lay.end
				if b < len(lay.entries) {
					end = lay.entries[b]
				}
				pos, fields, ok := parseChunk(name, data[lay.entries[a]:end], lay.lines[a]-1, b-a)
				results[i] = result{pos, fields, ok}
			}
		})
	}
	for i := range chunks {
		work <- i
	}
	close(work)
	wg.Wait()
	if len(rootErrs) > 0 || root == nil || root.Kind != Object {
		return nil, false
	}
	var tools *Field
	for _, f := range root.Fields {
		if f.Key != "tools" {
			continue
		}
		if tools != nil {
			return nil, false
		}
		tools = f
	}
	if tools == nil || tools.KeyPos.Line != lay.toolsLine || tools.KeyPos.Col != 1 || tools.Value.Kind != Null {
		return nil, false
	}
	n := 0
	for _, r := range results {
		if !r.ok {
			return nil, false
		}
		n += len(r.fields)
	}
	m := &Node{Kind: Object, Pos: results[0].pos, Fields: make([]*Field, 0, n)}
	for _, r := range results {
		m.Fields = append(m.Fields, r.fields...)
	}
	tools.Value = m
	return root, true
}

// parseChunk parses the key lines of count tools, lineOff lines into the
// file, and returns the position of their mapping and its fields. It
// reports false unless the chunk is one mapping of count keys, without
// errors or aliases.
func parseChunk(name string, chunk []byte, lineOff, count int) (Pos, []*Field, bool) {
	dec := yaml.NewDecoder(bytes.NewReader(chunk))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		return Pos{}, nil, false
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return Pos{}, nil, false
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode ||
		len(doc.Content[0].Content) != 2*count || doc.Content[0].Line != 1 {
		return Pos{}, nil, false
	}
	c := yamlConv{name: name, lineOff: lineOff}
	// The tools mapping is at depth 1 in the file, as parseYAMLWhole
	// counts.
	m := c.node(doc.Content[0], 1)
	if len(c.errs) > 0 || c.sawAlias || m.Kind != Object || len(m.Fields) != count {
		return Pos{}, nil, false
	}
	return m.Pos, m.Fields, true
}
