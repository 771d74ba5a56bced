// Package basetools holds the everyday tools an agent starts with — files
// in a workspace, a command runner, a web reader and a clock — declared in
// the catalog in ./catalog and compiled by toolcat; the bodies are written
// by hand in this package.
//
// A host opens them over its workspace with Open, then registers them:
//
//	set, err := basetools.Open(basetools.Config{Workspace: dir})
//	if err != nil { ... }
//	defer set.Close()
//	reg, err := basetools.NewRegistry(set.Tools())
//
// or adds them to a registry of its own with set.Register(reg).
//
// The file tools are confined to the workspace (and to the extra read-only
// folders) with os.Root. run_shell_command is not a sandbox: see README.md.
package basetools

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"time"

	"github.com/toolcat/toolcat/runtime"
)

// Config is what the host decides about the base tools. Only Workspace is
// required; every limit has a default.
type Config struct {
	// Workspace is the folder the file tools read and write, and where
	// commands run. Relative paths given by the model are relative to it.
	Workspace string
	// ReadOnly are extra folders the read tools (read_file, list_dir,
	// find_files) may read, addressed by absolute path; nothing writes
	// there.
	ReadOnly []string

	// ReadHardLinks lets the read tools read a regular file that has more
	// than one hard link. Such a file may be a name in the workspace for a
	// file outside it (os.Root confines names, not the files they name),
	// so by default it is refused; set it for workspaces that pnpm, git
	// clone --local or a deduplicating tool filled with links. No write
	// tool ever changes such a file, whatever this says.
	ReadHardLinks bool

	// MaxReadBytes caps what one read_file returns (default and most
	// 1 MiB, the catalog's bound on max_bytes).
	MaxReadBytes int64
	// MaxFileBytes caps the size of a file that write_file, append_file
	// and edit_file leave behind (default 8 MiB).
	MaxFileBytes int64
	// MaxListEntries caps the entries list_dir reads from one folder
	// (default 100,000); more are reported as truncated.
	MaxListEntries int
	// MaxFindVisits caps the files and folders find_files visits in one
	// search (default 100,000); the result is truncated beyond.
	MaxFindVisits int
	// MaxUndoBytes caps the previous contents kept in memory for undo
	// (default 64 MiB); the oldest go first, and their undo then fails.
	MaxUndoBytes int64

	// Shell configures run_shell_command.
	Shell ShellConfig
	// Web configures fetch_web_page.
	Web WebConfig
	// Now is the clock of get_current_time (default time.Now).
	Now func() time.Time
}

// ShellConfig configures run_shell_command. It is not a sandbox: an
// allowed program can do anything the host's user can.
type ShellConfig struct {
	// Disabled refuses every command (permission_denied).
	Disabled bool
	// Allow, when not empty, is the only programs that may run, by name
	// as found on PATH (argv[0] without a slash), such as "go" or "git".
	// Shell mode is refused while an allow-list is set, since a script
	// cannot be checked against it. Each program needs an argument
	// policy (ArgPolicies, else DefaultArgPolicies): Open refuses one
	// without.
	Allow []string
	// ArgPolicies are the argument policies of the allowed programs, by
	// name, over DefaultArgPolicies: CodeArgPolicies for an agent that
	// runs its workspace's code, AnyArgs for a program the host lets run
	// with any arguments, DenyOptions or OnlyOptions for others.
	ArgPolicies map[string]ArgPolicy
	// Deny are regular expressions matched against the command line
	// (argv joined by spaces, or the script); a match is refused. They
	// are a second line of defence, easy to get around; nil means
	// DefaultDenyPatterns, an empty non-nil slice none.
	Deny []string
	// ShellMode lets the model run a /bin/sh script (use_shell).
	ShellMode bool
	// MaxTimeout caps the timeout of one command (default 2 minutes).
	MaxTimeout time.Duration
	// MaxOutputBytes caps stdout and stderr, each (default 64 KiB, at
	// most 256 KiB, which keeps the result within its max_result_bytes).
	MaxOutputBytes int
	// Env is the environment of the commands; nil means PATH and LANG
	// from the host, and HOME set to the workspace.
	Env []string
	// Cgroup, on Linux, is a cgroup v2 folder the host may create groups
	// in (as root, or a subtree delegated to its user). Each command then
	// runs in a new cgroup below it, and every process left in that
	// cgroup when the command ends — those that left its process group
	// with setsid included — is killed, and the cgroup removed. Without
	// it, the process group is killed, which a process that called setsid
	// has left. Needs Linux 5.14 or later (cgroup.kill).
	Cgroup string
}

// DefaultDenyPatterns are the deny patterns used when ShellConfig.Deny is
// nil: destruction of the file system or the machine, and piping a
// download into a shell.
var DefaultDenyPatterns = []string{
	`\brm\s+(-[a-zA-Z]*[rf][a-zA-Z]*\s+)+(/|~|\*|\$HOME)(\s|$)`,
	`\bmkfs(\.|\s)`,
	`\bdd\s+.*\bof=/dev/`,
	`\b(shutdown|reboot|poweroff|halt)\b`,
	`:\(\)\s*\{`,
	`\b(curl|wget)\b.*\|\s*(ba|z|da)?sh\b`,
	`>\s*/dev/sd[a-z]`,
}

// WebConfig configures fetch_web_page.
type WebConfig struct {
	// AllowedHosts, when not empty, is the only hosts that may be
	// fetched: exact names, or ".example.com" for a domain and its
	// subdomains.
	AllowedHosts []string
	// AllowAddresses are address ranges fetched even though they are
	// loopback, private, link-local or otherwise not public, such as
	// 127.0.0.1/32 for a local test server. Every other such address is
	// refused, after DNS resolution and on every redirect.
	AllowAddresses []netip.Prefix
	// MaxBytes caps the bytes read of one response (default 2 MiB).
	MaxBytes int64
	// Timeout bounds one fetch, redirects included (default 15s).
	Timeout time.Duration
	// MaxRedirects bounds the redirects followed (default 5).
	MaxRedirects int
	// UserAgent is sent with every request (default "toolcat-basetools/1").
	UserAgent string
	// RootCAs are the certificate authorities trusted (default the
	// system's).
	RootCAs *x509.CertPool
	// LookupIP resolves a host name (default net.DefaultResolver); the
	// addresses it returns are the ones checked and dialled.
	LookupIP func(ctx context.Context, host string) ([]netip.Addr, error)
	// DialContext connects to an address already checked, "ip:port"
	// (default a net.Dialer). Tests point it at an httptest server.
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
}

// Set is the base tools opened over one workspace. Close releases the
// workspace's file descriptors.
type Set struct {
	cfg   Config
	ws    *workspace
	shell *shellRunner
	web   *webFetcher
}

// Open checks cfg, opens its folders and returns the tools.
func Open(cfg Config) (*Set, error) {
	if cfg.Workspace == "" {
		return nil, errors.New("basetools: Config.Workspace is required")
	}
	setDefaults(&cfg)
	ws, err := openWorkspace(cfg)
	if err != nil {
		return nil, err
	}
	sh, err := newShellRunner(cfg.Shell, ws.dir)
	if err != nil {
		ws.close()
		return nil, err
	}
	return &Set{cfg: cfg, ws: ws, shell: sh, web: newWebFetcher(cfg.Web)}, nil
}

func setDefaults(cfg *Config) {
	def := func(v *int64, d int64) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&cfg.MaxReadBytes, 1<<20)
	def(&cfg.MaxFileBytes, 8<<20)
	def(&cfg.MaxUndoBytes, 64<<20)
	def(&cfg.Web.MaxBytes, 2<<20)
	if cfg.MaxListEntries <= 0 {
		cfg.MaxListEntries = 100_000
	}
	if cfg.MaxFindVisits <= 0 {
		cfg.MaxFindVisits = 100_000
	}
	if cfg.Shell.MaxTimeout <= 0 {
		cfg.Shell.MaxTimeout = 2 * time.Minute
	}
	if cfg.Shell.MaxOutputBytes <= 0 {
		cfg.Shell.MaxOutputBytes = 64 << 10
	}
	cfg.Shell.MaxOutputBytes = min(cfg.Shell.MaxOutputBytes, 256<<10)
	if cfg.Shell.Deny == nil {
		cfg.Shell.Deny = DefaultDenyPatterns
	}
	if cfg.Web.Timeout <= 0 {
		cfg.Web.Timeout = 15 * time.Second
	}
	if cfg.Web.MaxRedirects <= 0 {
		cfg.Web.MaxRedirects = 5
	}
	if cfg.Web.UserAgent == "" {
		cfg.Web.UserAgent = "toolcat-basetools/1"
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
}

// Tools returns the implementations of every base tool, for NewRegistry.
func (s *Set) Tools() Tools {
	return Tools{
		ReadFile:        &readFile{ws: s.ws},
		WriteFile:       &writeFile{ws: s.ws},
		AppendFile:      &appendFile{ws: s.ws},
		EditFile:        &editFile{ws: s.ws},
		ListDir:         &listDir{ws: s.ws},
		FindFiles:       &findFiles{ws: s.ws},
		RunShellCommand: &runShellCommand{sh: s.shell},
		FetchWebPage:    &fetchWebPage{web: s.web},
		GetCurrentTime:  &getCurrentTime{now: s.cfg.Now},
	}
}

// Register adds every base tool to reg, a registry that may hold other
// tools too (a host's own catalog, say); a name already taken is an error.
func (s *Set) Register(reg *runtime.Registry) error {
	own, err := NewRegistry(s.Tools())
	if err != nil {
		return err
	}
	for _, t := range own.List() {
		if err := reg.Register(t); err != nil {
			return fmt.Errorf("basetools: %w", err)
		}
	}
	return nil
}

// Workspace is the workspace folder, absolute.
func (s *Set) Workspace() string { return s.ws.dir }

// Close releases the folders opened.
func (s *Set) Close() error { return s.ws.close() }

// absDir makes dir absolute and checks that it is a folder.
func absDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a folder", abs)
	}
	return abs, nil
}
