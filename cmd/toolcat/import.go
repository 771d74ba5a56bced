package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcat/toolcat/catalog/importer"
)

const importDoc = `
Write a toolcat catalog (YAML) from tool definitions made elsewhere, for
toolcat lint to review and toolcat gen to compile:

  MCP             a tools/list result (or its JSON-RPC response), a
                  one-tool snapshot, or a live server: --mcp-command
                  "cmd args" over stdio, --mcp-url over streamable HTTP
  OpenAI          Chat ({"type":"function","function":{...}}) and
                  Responses ({"type":"function","name",...}) tools
  Anthropic       tools with input_schema (input_examples become examples)
  Gemini          functionDeclarations
  JSON Schema     one schema per file: the tool is named by its title or
                  the file

Paths are files or directories (their .json and .snap files, sorted).
Names become snake_case, the wire name kept as original_name; schemas
are converted to JSON Schema 2020-12; MCP annotations set side effects,
idempotency, risk and untrusted output. Every value a human must confirm
carries "# TODO(toolcat import): decide", what has no place in the
catalog is kept as a comment, and the report on stderr lists it all.`

func runImport(e *env, args []string) int {
	fs := newFlags(e, "import", "[files or directories]", importDoc)
	out := fs.String("out", "", "catalog file to write (default: standard output)")
	force := fs.Bool("force", false, "overwrite --out if it exists")
	pkg := fs.String("package", "tools", "Go package name of the catalog")
	mcpCommand := fs.String("mcp-command", "", "run this MCP server (\"cmd args\") and import its tools over stdio")
	mcpURL := fs.String("mcp-url", "", "import the tools of the MCP server at this streamable HTTP URL")
	timeout := fs.Duration("timeout", time.Minute, "how long a live MCP server may take to list its tools")
	headers := headerFlags{}
	fs.Var(headers, "header", "an HTTP header for --mcp-url, as \"Name: value\" (repeatable)")
	quiet := fs.Bool("quiet", false, "print only the summary, not every note")
	if code := parse(e, fs, args); code >= 0 {
		return code
	}
	if len(fs.Args()) == 0 && *mcpCommand == "" && *mcpURL == "" {
		fmt.Fprintln(e.stderr, "toolcat import: give files or directories of tool definitions, --mcp-command or --mcp-url")
		return exitUsage
	}
	var tools []importer.Tool
	files, err := importFiles(fs.Args())
	if err != nil {
		fmt.Fprintf(e.stderr, "toolcat import: %v\n", err)
		return exitUsage
	}
	for _, f := range files {
		ts, err := parseFile(f)
		if err != nil {
			fmt.Fprintf(e.stderr, "toolcat import: %v\n", err)
			return exitUsage
		}
		tools = append(tools, ts...)
	}
	if *mcpCommand != "" || *mcpURL != "" {
		ctx, cancel := context.WithTimeout(context.Background(), *timeout)
		defer cancel()
		for _, live := range []struct{ kind, target string }{{"command", *mcpCommand}, {"url", *mcpURL}} {
			if live.target == "" {
				continue
			}
			ts, err := listLive(ctx, live.kind, live.target, http.Header(headers))
			if err != nil {
				fmt.Fprintf(e.stderr, "toolcat import: %v\n", err)
				return exitUsage
			}
			tools = append(tools, ts...)
		}
	}
	res, err := importer.Build(tools, importer.Options{Package: *pkg})
	if err != nil {
		fmt.Fprintf(e.stderr, "toolcat import: %v\n", err)
		return exitUsage
	}
	if !*quiet {
		for _, n := range res.Notes {
			fmt.Fprintf(e.stderr, "  %s\n", n)
		}
	}
	poison, poisoned := scanImported(tools)
	for _, l := range poison {
		fmt.Fprintf(e.stderr, "  %s\n", l)
	}
	dest := "standard output"
	if *out == "" {
		e.stdout.Write(res.YAML)
	} else {
		if _, err := os.Stat(*out); err == nil && !*force {
			fmt.Fprintf(e.stderr, "toolcat import: %s exists; --force overwrites it\n", *out)
			return exitUsage
		}
		if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
			fmt.Fprintf(e.stderr, "toolcat import: %v\n", err)
			return exitUsage
		}
		if err := os.WriteFile(*out, res.YAML, 0o644); err != nil {
			fmt.Fprintf(e.stderr, "toolcat import: %v\n", err)
			return exitUsage
		}
		dest = *out
	}
	fmt.Fprintf(e.stderr, "toolcat import: %d tools (%d renamed, %d duplicates merged), %d values to decide; written to %s\n",
		res.Tools, res.Renamed, res.Merged, res.Decide, dest)
	if poisoned > 0 {
		fmt.Fprintf(e.stderr, "toolcat import: %d tools hold text aimed at the model (possible tool poisoning); toolcat lint reports it as SECURITY_* errors\n", poisoned)
	}
	return exitOK
}

// importFiles expands directories into their .json and .snap files.
func importFiles(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		var in []string
		err = filepath.WalkDir(p, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if ext := filepath.Ext(path); !d.IsDir() && (ext == ".json" || ext == ".snap") {
				in = append(in, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(in) == 0 {
			return nil, fmt.Errorf("%s: no .json or .snap files", p)
		}
		slices.Sort(in)
		files = append(files, in...)
	}
	return files, nil
}

func parseFile(path string) ([]importer.Tool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return importer.Parse(path, f)
}

// listLive asks a running MCP server for its tools, through the go-sdk
// client: kind "command" starts target over stdio, "url" connects to it
// over streamable HTTP.
func listLive(ctx context.Context, kind, target string, headers http.Header) ([]importer.Tool, error) {
	var transport mcp.Transport
	var stderr tailBuffer
	source := "mcp " + kind + " " + target
	switch kind {
	case "command":
		argv, err := splitCommand(target)
		if err != nil {
			return nil, fmt.Errorf("--mcp-command: %w", err)
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Stderr = &stderr
		transport = &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
	default:
		client := &http.Client{Transport: withHeaders{headers, http.DefaultTransport}}
		transport = &mcp.StreamableClientTransport{Endpoint: target, HTTPClient: client, MaxRetries: -1}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "toolcat-import", Version: toolcatVersion()}, nil)
	sess, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: connect: %w%s", source, err, stderrTail(&stderr))
	}
	defer sess.Close()
	var list []*mcp.Tool
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("%s: tools/list: %w%s", source, err, stderrTail(&stderr))
		}
		list = append(list, t)
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("%s: the server lists no tools", source)
	}
	data, err := json.Marshal(map[string]any{"tools": list})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return importer.Parse(source, bytes.NewReader(data))
}

// tailBuffer keeps the last 2,000 bytes written to it: what a server
// wrote last on stderr, however much it writes.
type tailBuffer struct {
	mu   sync.Mutex
	buf  []byte
	lost bool
}

const tailMax = 2000

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > tailMax {
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-tailMax:]...)
		b.lost = true
	}
	return len(p), nil
}

func stderrTail(b *tailBuffer) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := strings.TrimSpace(string(b.buf))
	if s == "" {
		return ""
	}
	if b.lost {
		s = "..." + s
	}
	return "\nthe server wrote:\n" + s
}

// headerFlags collects --header values.
type headerFlags http.Header

func (h headerFlags) String() string { return fmt.Sprint(http.Header(h)) }

func (h headerFlags) Set(v string) error {
	name, value, ok := strings.Cut(v, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.ContainsAny(name, " \t\r\n") || strings.ContainsAny(value, "\r\n") {
		return fmt.Errorf("want \"Name: value\", got %q", v)
	}
	http.Header(h).Add(name, strings.TrimSpace(value))
	return nil
}

// withHeaders adds headers to every request.
type withHeaders struct {
	h    http.Header
	next http.RoundTripper
}

func (w withHeaders) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(w.h) > 0 {
		r = r.Clone(r.Context())
		for k, vs := range w.h {
			for _, v := range vs {
				r.Header.Add(k, v)
			}
		}
	}
	return w.next.RoundTrip(r)
}

// splitCommand splits a command line into words: spaces separate them,
// single or double quotes group them, a backslash escapes one character.
func splitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	esc := false
	for _, r := range s {
		switch {
		case esc:
			cur.WriteRune(r)
			esc = false
		case r == '\\' && quote != '\'':
			esc, inWord = true, true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 || esc {
		return nil, errors.New("unterminated quote or escape")
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("empty command")
	}
	return words, nil
}
