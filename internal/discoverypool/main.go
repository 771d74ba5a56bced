// Command discoverypool builds the tool pool that runtime/discovery's
// evaluation searches: the tool lists of public MCP servers, one JSON file
// per server, in a folder outside the repository (tool definitions written
// by others are not copied into toolcat).
//
// Each server of servers.json is installed from the npm registry at its
// pinned version into POOL/packages, started over stdio with placeholder
// credentials, and asked for its tools (tools/list, every page). Servers
// that refuse to start or do not answer within -timeout are recorded as
// failed and left out. The tool lists of a test corpus (-corpus: the
// GitHub MCP server's snapshots and the MCP reference servers' lists) are
// added as servers too. POOL/manifest.json records, per server, the
// package, its version, the number of tools or why there are none.
//
//	go run . -pool DIR [-corpus DIR] [-only name,name] [-timeout 60s] [-jobs 3]
//
// `make discovery-pool POOL=dir` runs it.
package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

//go:embed servers.json
var serversJSON []byte

// server is one entry of servers.json.
type server struct {
	// Name is the server's name as a host mounts it: the prefix of its
	// tools' qualified names (gitlab/list_commits).
	Name    string `json:"name"`
	Package string `json:"package"`
	Version string `json:"version"`
	// Bin is the package's executable to start, when it has several.
	Bin  string   `json:"bin,omitempty"`
	Args []string `json:"args,omitempty"`
	// Env holds placeholder settings that the server wants before it
	// starts (tokens, URLs); none is a real credential.
	Env map[string]string `json:"env,omitempty"`
	// Files are placeholder files written into the server's home folder
	// before it starts (a credentials file it insists on reading), by
	// name relative to that folder.
	Files map[string]json.RawMessage `json:"files,omitempty"`
}

// Tool is one tool of a pool file: what tools/list gives of it.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
}

// PoolFile is the content of POOL/<server>.json.
type PoolFile struct {
	Server  string `json:"server"`
	Package string `json:"package"`
	Version string `json:"version"`
	Tools   []Tool `json:"tools"`
}

// Entry is one line of the manifest.
type Entry struct {
	Server  string `json:"server"`
	Package string `json:"package"`
	Version string `json:"version"`
	Tools   int    `json:"tools"`
	Error   string `json:"error,omitempty"`
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("discoverypool", flag.ContinueOnError)
	fs.SetOutput(stderr)
	pool := fs.String("pool", "", "folder to write the pool to (required)")
	corpus := fs.String("corpus", "", "test corpus folder whose tool lists join the pool")
	only := fs.String("only", "", "comma-separated server names to build; others keep their files")
	timeout := fs.Duration("timeout", 60*time.Second, "time a server has to start and list its tools")
	jobs := fs.Int("jobs", 3, "servers installed and listed at once")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *pool == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: discoverypool -pool DIR [-corpus DIR] [-only a,b] [-timeout 60s]")
		return 2
	}
	var servers []server
	if err := json.Unmarshal(serversJSON, &servers); err != nil {
		fmt.Fprintf(stderr, "servers.json: %v\n", err)
		return 2
	}
	dir, err := filepath.Abs(*pool)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	if err := os.MkdirAll(filepath.Join(dir, "packages"), 0o755); err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	want := map[string]bool{}
	for _, n := range strings.Split(*only, ",") {
		if n = strings.TrimSpace(n); n != "" {
			want[n] = true
		}
	}
	manifest := readManifest(dir)
	record := func(e Entry, tools []Tool) {
		if e.Error == "" {
			f := PoolFile{Server: e.Server, Package: e.Package, Version: e.Version, Tools: tools}
			if err := writeJSON(filepath.Join(dir, e.Server+".json"), f); err != nil {
				e.Error = err.Error()
			}
		} else {
			os.Remove(filepath.Join(dir, e.Server+".json"))
		}
		manifest[e.Server] = e
		status := fmt.Sprintf("%d tools", e.Tools)
		if e.Error != "" {
			status = "failed: " + e.Error
		}
		fmt.Fprintf(stdout, "%-16s %s@%s: %s\n", e.Server, e.Package, e.Version, status)
	}
	// Servers are installed and listed *jobs at a time (installing is
	// mostly waiting for the registry); their results are recorded in
	// turn.
	type result struct {
		e     Entry
		tools []Tool
	}
	todo := make(chan server)
	done := make(chan result)
	var wg sync.WaitGroup
	for range max(*jobs, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range todo {
				tools, err := listServer(dir, s, *timeout)
				e := Entry{Server: s.Name, Package: s.Package, Version: s.Version, Tools: len(tools)}
				if err != nil {
					e.Error, e.Tools, tools = firstLine(err.Error()), 0, nil
				}
				done <- result{e, tools}
			}
		}()
	}
	go func() {
		for _, s := range servers {
			if len(want) == 0 || want[s.Name] {
				todo <- s
			}
		}
		close(todo)
		wg.Wait()
		close(done)
	}()
	for r := range done {
		record(r.e, r.tools)
	}
	if *corpus != "" {
		sets, err := corpusSets(*corpus)
		if err != nil {
			fmt.Fprintf(stderr, "corpus: %v\n", err)
			return 1
		}
		for _, cs := range sets {
			if len(want) > 0 && !want[cs.entry.Server] {
				continue
			}
			cs.entry.Tools = len(cs.tools)
			record(cs.entry, cs.tools)
		}
	}
	entries := make([]Entry, 0, len(manifest))
	total, ok := 0, 0
	known := map[string]bool{}
	for _, s := range servers {
		known[s.Name] = true
	}
	for _, e := range manifest {
		if !known[e.Server] && !strings.HasPrefix(e.Version, "corpus") {
			continue // no longer in servers.json
		}
		entries = append(entries, e)
		if e.Error == "" {
			total += e.Tools
			ok++
		}
	}
	slices.SortFunc(entries, func(a, b Entry) int { return strings.Compare(a.Server, b.Server) })
	if err := writeJSON(filepath.Join(dir, "manifest.json"), entries); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	fmt.Fprintf(stdout, "pool %s: %d tools from %d servers (manifest.json)\n", *pool, total, ok)
	return 0
}

// listServer installs s if it is not yet, starts it and lists its tools.
func listServer(dir string, s server, timeout time.Duration) ([]Tool, error) {
	pkgDir := filepath.Join(dir, "packages", slug(s.Package))
	if err := install(pkgDir, s, timeout*3); err != nil {
		return nil, err
	}
	bin, err := binPath(pkgDir, s)
	if err != nil {
		return nil, err
	}
	home := filepath.Join(dir, "home", s.Name)
	if err := os.MkdirAll(home, 0o755); err != nil {
		return nil, err
	}
	for name, content := range s.Files {
		if !filepath.IsLocal(name) {
			return nil, fmt.Errorf("file %q: not a path inside the server's home", name)
		}
		if err := os.WriteFile(filepath.Join(home, name), content, 0o600); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append([]string{bin}, s.Args...)...)
	cmd.Dir = home
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "NODE_ENV=production",
		"NO_UPDATE_NOTIFIER=1", "NPM_CONFIG_UPDATE_NOTIFIER=false", "DO_NOT_TRACK=1"}
	for k, v := range s.Env {
		cmd.Env = append(cmd.Env, k+"="+strings.ReplaceAll(v, "$HOME", home))
	}
	return listTools(ctx, cmd)
}

// listTools starts cmd, an MCP server over stdio, and lists its tools.
func listTools(ctx context.Context, cmd *exec.Cmd) ([]Tool, error) {
	var errOut bytes.Buffer
	cmd.Stderr = &limitedWriter{w: &errOut, n: 4096}
	client := mcp.NewClient(&mcp.Implementation{Name: "toolcat-discoverypool", Version: "1"}, nil)
	sess, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		return nil, withStderr(fmt.Errorf("start: %w", err), &errOut)
	}
	defer sess.Close()
	var tools []Tool
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return nil, withStderr(fmt.Errorf("tools/list: %w", err), &errOut)
		}
		schema, err := json.Marshal(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		tools = append(tools, Tool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	if len(tools) == 0 {
		return nil, withStderr(errors.New("no tools listed"), &errOut)
	}
	return tools, nil
}

// install runs npm install of the pinned package into pkgDir, unless a
// previous run did.
func install(pkgDir string, s server, timeout time.Duration) error {
	spec := s.Package + "@" + s.Version
	if installedVersion(pkgDir, s.Package) == s.Version {
		return nil
	}
	if err := os.MkdirAll(pkgDir, 0o755); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	// Scripts are not run: no server needs its install scripts to list
	// its tools, and some download browsers.
	cmd := exec.CommandContext(ctx, "npm", "install", "--prefix", pkgDir, "--no-save", "--ignore-scripts",
		"--no-audit", "--no-fund", "--loglevel=error", spec)
	cmd.Env = append(os.Environ(), "PUPPETEER_SKIP_DOWNLOAD=1", "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm install %s: %w: %s", spec, err, firstLine(string(out)))
	}
	if v := installedVersion(pkgDir, s.Package); v != s.Version {
		return fmt.Errorf("npm install %s installed version %q", spec, v)
	}
	return nil
}

// installedVersion is the version of pkg installed in pkgDir, or "".
func installedVersion(pkgDir, pkg string) string {
	b, err := os.ReadFile(filepath.Join(pkgDir, "node_modules", filepath.FromSlash(pkg), "package.json"))
	if err != nil {
		return ""
	}
	var pj struct {
		Version string `json:"version"`
	}
	json.Unmarshal(b, &pj)
	return pj.Version
}

// binPath finds the executable of the installed package: s.Bin, or its
// only bin entry, or the one named after the package.
func binPath(pkgDir string, s server) (string, error) {
	root := filepath.Join(pkgDir, "node_modules", filepath.FromSlash(s.Package))
	b, err := os.ReadFile(filepath.Join(root, "package.json"))
	if err != nil {
		return "", err
	}
	var pj struct {
		Name string          `json:"name"`
		Bin  json.RawMessage `json:"bin"`
		Main string          `json:"main"`
	}
	if err := json.Unmarshal(b, &pj); err != nil {
		return "", fmt.Errorf("%s package.json: %w", s.Package, err)
	}
	var one string
	bins := map[string]string{}
	if json.Unmarshal(pj.Bin, &one) == nil && one != "" {
		return filepath.Join(root, one), nil
	}
	_ = json.Unmarshal(pj.Bin, &bins)
	if s.Bin != "" {
		if p, ok := bins[s.Bin]; ok {
			return filepath.Join(root, p), nil
		}
		return filepath.Join(root, filepath.FromSlash(s.Bin)), nil
	}
	if len(bins) == 1 {
		for _, p := range bins {
			return filepath.Join(root, p), nil
		}
	}
	base := s.Package[strings.LastIndex(s.Package, "/")+1:]
	if p, ok := bins[base]; ok {
		return filepath.Join(root, p), nil
	}
	if len(bins) == 0 && pj.Main != "" {
		return filepath.Join(root, pj.Main), nil
	}
	names := make([]string, 0, len(bins))
	for n := range bins {
		names = append(names, n)
	}
	slices.Sort(names)
	return "", fmt.Errorf("%s has executables %v: say which in servers.json (bin)", s.Package, names)
}

type corpusSet struct {
	entry Entry
	tools []Tool
}

// corpusSets reads the test corpus: the GitHub MCP server's tool
// snapshots as server "github", and each reference server's list as a
// server named after its file.
func corpusSets(dir string) ([]corpusSet, error) {
	var sets []corpusSet
	snaps, _ := filepath.Glob(filepath.Join(dir, "github-mcp-server", "__toolsnaps__", "*.snap"))
	if len(snaps) > 0 {
		cs := corpusSet{entry: Entry{Server: "github", Package: "github/github-mcp-server (corpus)", Version: "corpus"}}
		for _, f := range snaps {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			var t Tool
			if err := json.Unmarshal(b, &t); err != nil {
				return nil, fmt.Errorf("%s: %w", filepath.Base(f), err)
			}
			cs.tools = append(cs.tools, t)
		}
		sets = append(sets, cs)
	}
	lists, _ := filepath.Glob(filepath.Join(dir, "mcp-reference-servers", "*.tools.json"))
	for _, f := range lists {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var l struct {
			Commit string `json:"commit"`
			Tools  []Tool `json:"tools"`
		}
		if err := json.Unmarshal(b, &l); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Base(f), err)
		}
		name := strings.TrimSuffix(filepath.Base(f), ".tools.json")
		v := "corpus"
		if len(l.Commit) >= 8 {
			v = "corpus " + l.Commit[:8]
		}
		sets = append(sets, corpusSet{entry: Entry{Server: name, Package: "modelcontextprotocol/servers " + name + " (corpus)", Version: v}, tools: l.Tools})
	}
	if len(sets) == 0 {
		return nil, fmt.Errorf("no tool lists in %s", dir)
	}
	return sets, nil
}

func readManifest(dir string) map[string]Entry {
	m := map[string]Entry{}
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return m
	}
	var entries []Entry
	if json.Unmarshal(b, &entries) == nil {
		for _, e := range entries {
			m[e.Server] = e
		}
	}
	return m
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// slug turns a package name into a folder name: @scope/name → scope__name.
func slug(pkg string) string {
	return strings.ReplaceAll(strings.TrimPrefix(pkg, "@"), "/", "__")
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

func withStderr(err error, buf *bytes.Buffer) error {
	if s := strings.TrimSpace(buf.String()); s != "" {
		lines := strings.Split(s, "\n")
		return fmt.Errorf("%w (stderr: %s)", err, strings.TrimSpace(lines[len(lines)-1]))
	}
	return err
}

// limitedWriter keeps the first n bytes written to it.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		q := p
		if len(q) > l.n {
			q = q[:l.n]
		}
		l.w.Write(q)
		l.n -= len(q)
	}
	return len(p), nil
}
