package basetools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolcat/toolcat/runtime"
)

// runShellCommand implements the tool run_shell_command. It is not a
// sandbox: the allow-list and the deny patterns decide what may start,
// not what a started program does.
type runShellCommand struct{ sh *shellRunner }

var _ RunShellCommand = (*runShellCommand)(nil)

// shellRunner is ShellConfig, checked, over the workspace folder.
type shellRunner struct {
	cfg    ShellConfig
	dir    string
	deny   []*regexp.Regexp
	env    []string
	cgroup *cgroupParent // nil: none
	// policies are the argument policies of the allowed programs.
	policies map[string]ArgPolicy
}

func newShellRunner(cfg ShellConfig, dir string) (*shellRunner, error) {
	s := &shellRunner{cfg: cfg, dir: dir, env: cfg.Env}
	for _, p := range cfg.Deny {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("basetools: Shell.Deny: %w", err)
		}
		s.deny = append(s.deny, re)
	}
	s.policies = map[string]ArgPolicy{}
	for _, a := range cfg.Allow {
		if a == "" || strings.ContainsRune(a, '/') {
			return nil, fmt.Errorf("basetools: Shell.Allow: %q is not a program name", a)
		}
		p, ok := cfg.ArgPolicies[a]
		if !ok {
			p, ok = DefaultArgPolicies[a]
		}
		if !ok || p.Check == nil {
			return nil, fmt.Errorf("basetools: Shell.Allow: %q has no argument policy, and an allowed program may run others through its arguments: give one in Shell.ArgPolicies (basetools.DenyOptions, basetools.OnlyOptions), or basetools.AnyArgs to allow any arguments knowingly", a)
		}
		s.policies[a] = p
	}
	if s.env == nil {
		s.env = defaultEnv(dir)
	}
	if cfg.Cgroup != "" {
		c, err := openCgroup(cfg.Cgroup)
		if err != nil {
			return nil, err
		}
		s.cgroup = c
	}
	return s, nil
}

// command checks argv against the host's rules and builds the command,
// without starting it.
func (s *shellRunner) command(ctx context.Context, args *RunShellCommandArgs) (*exec.Cmd, string, error) {
	if s.cfg.Disabled {
		return nil, "", RunShellCommandPermissionDenied("the host has turned commands off")
	}
	line := strings.Join(args.Argv, " ")
	for _, a := range args.Argv {
		if strings.IndexByte(a, 0) >= 0 {
			return nil, "", runtime.NewError(runtime.CodeInvalidArgs, "an argv item holds a NUL byte")
		}
	}
	var name string
	var argv []string
	if args.UseShell {
		switch {
		case !s.cfg.ShellMode:
			return nil, "", RunShellCommandUnsupported("shell mode is off on this host")
		case len(s.cfg.Allow) > 0:
			return nil, "", RunShellCommandPermissionDenied("shell mode cannot be checked against the host's allow-list of programs")
		case len(args.Argv) != 1:
			return nil, "", runtime.NewError(runtime.CodeInvalidArgs, fmt.Sprintf("with use_shell, argv holds one item, the script; got %d", len(args.Argv)))
		}
		name, argv = "/bin/sh", []string{"-c", args.Argv[0]}
	} else {
		name, argv = args.Argv[0], args.Argv[1:]
		if len(s.cfg.Allow) > 0 && (strings.ContainsRune(name, '/') || !slices.Contains(s.cfg.Allow, name)) {
			return nil, "", RunShellCommandPermissionDenied(fmt.Sprintf("%s is not among the programs the host allows (%s)", quote(name), strings.Join(s.cfg.Allow, ", ")))
		}
		if p, ok := s.policies[name]; ok {
			if err := p.Check(argv); err != nil {
				return nil, "", RunShellCommandPermissionDenied(fmt.Sprintf("the host's argument policy for %s refuses this command: %v", name, err))
			}
		}
	}
	for _, re := range s.deny {
		if re.MatchString(line) {
			return nil, "", RunShellCommandPermissionDenied(fmt.Sprintf("the command matches the host's deny pattern %q", re.String()))
		}
	}
	path, err := lookPath(name, s.env)
	if err != nil {
		return nil, "", RunShellCommandNotFound(fmt.Sprintf("%s: no such program on PATH", quote(name)))
	}
	cmd := exec.CommandContext(ctx, path, argv...)
	cmd.Args[0] = name
	cmd.Dir = s.dir
	cmd.Env = s.env
	cmd.Stdin = nil
	return cmd, line, nil
}

// defaultEnv is the commands' environment when the host sets none: PATH
// and LANG, HOME the workspace, and what keeps programs from taking
// settings the model can write there for their own (which can name
// programs they run): git reads no global settings file
// (GIT_CONFIG_GLOBAL: $HOME/.gitconfig and $HOME/.config/git/config are
// in the workspace) and takes no folder for a bare repository unless told
// (safe.bareRepository=explicit, given as command-line settings, which a
// repository cannot override); go reads no settings file
// ($HOME/.config/go/env); python imports nothing from the user's site
// folder ($HOME/.local).
func defaultEnv(workspace string) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + workspace, "LANG=C.UTF-8",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=safe.bareRepository", "GIT_CONFIG_VALUE_0=explicit",
		"GOENV=off",
		"PYTHONNOUSERSITE=1",
	}
}

// lookPath finds name on the PATH of env.
func lookPath(name string, env []string) (string, error) {
	if strings.ContainsRune(name, '/') {
		return exec.LookPath(name)
	}
	for _, kv := range env {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			for _, dir := range strings.Split(p, ":") {
				if dir == "" || !strings.HasPrefix(dir, "/") {
					continue // never the current folder
				}
				full := dir + "/" + name
				if fi, err := os.Stat(full); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
					return full, nil
				}
			}
		}
	}
	return "", exec.ErrNotFound
}

// Execute runs the program and returns its status and output.
func (t *runShellCommand) Execute(ctx context.Context, args *RunShellCommandArgs) (*RunShellCommandResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	timeout := time.Duration(args.TimeoutMs) * time.Millisecond
	if timeout <= 0 || timeout > t.sh.cfg.MaxTimeout {
		timeout = t.sh.cfg.MaxTimeout
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd, _, err := t.sh.command(runCtx, args)
	if err != nil {
		return nil, err
	}
	stdout := &capped{max: t.sh.cfg.MaxOutputBytes}
	stderr := &capped{max: t.sh.cfg.MaxOutputBytes}
	err = t.sh.run(cmd, stdout, stderr)
	if cerr := ctx.Err(); cerr != nil {
		return nil, cerr
	}
	res := &RunShellCommandResult{
		Stdout:    stdout.String(),
		Stderr:    stderr.String(),
		Truncated: stdout.cut || stderr.cut,
		TimedOut:  runCtx.Err() != nil,
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		res.ExitCode = int64(exit.ExitCode())
	case res.TimedOut:
		res.ExitCode = -1
	default:
		return nil, fmt.Errorf("running %s: %w", quote(args.Argv[0]), err)
	}
	if res.TimedOut {
		res.ExitCode = -1
	}
	return res, nil
}

// outputWait is how long the output of a command is read after it ended:
// a process that left its process group can hold its streams open.
const outputWait = time.Second

// run runs cmd with its output to stdout and stderr. When the program
// ends — by itself, or killed at the timeout — every process it left
// behind is killed: its process group, and with a cgroup every process of
// the cgroup. The output is then read to its end, for outputWait at most.
func (s *shellRunner) run(cmd *exec.Cmd, stdout, stderr *capped) error {
	outR, outW, err := os.Pipe()
	if err != nil {
		return err
	}
	defer outR.Close()
	errR, errW, err := os.Pipe()
	if err != nil {
		outW.Close()
		return err
	}
	defer errR.Close()
	cmd.Stdout, cmd.Stderr = outW, errW
	startGroup(cmd)
	started, end := func() {}, func() {}
	if s.cgroup != nil {
		if started, end, err = s.cgroup.enter(cmd); err != nil {
			outW.Close()
			errW.Close()
			return fmt.Errorf("creating the command's cgroup: %w", err)
		}
	}
	err = cmd.Start()
	started()
	outW.Close()
	errW.Close()
	if err != nil {
		end()
		return err
	}
	var wg sync.WaitGroup
	wg.Go(func() { io.Copy(stdout, outR) })
	wg.Go(func() { io.Copy(stderr, errR) })
	err = cmd.Wait()
	_ = killGroup(cmd.Process.Pid)
	end()
	read := make(chan struct{})
	go func() { wg.Wait(); close(read) }()
	select {
	case <-read:
	case <-time.After(outputWait):
		outR.SetReadDeadline(time.Now())
		errR.SetReadDeadline(time.Now())
		<-read
	}
	return err
}

// DryRun checks the command against the host's rules and says what would
// run, starting nothing.
func (t *runShellCommand) DryRun(ctx context.Context, args *RunShellCommandArgs) (*runtime.Preview, error) {
	cmd, line, err := t.sh.command(ctx, args)
	if err != nil {
		return nil, err
	}
	mode := "argv"
	if args.UseShell {
		mode = "/bin/sh -c"
	}
	return &runtime.Preview{
		Summary: fmt.Sprintf("would run %s in the workspace", quote(clip(line, 200))),
		Effects: []string{fmt.Sprintf("program %s (%s), in %s; whatever it does is not undone", cmd.Path, mode, t.sh.dir)},
	}, nil
}

// capped keeps the first max bytes written to it.
type capped struct {
	buf bytes.Buffer
	max int
	cut bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room < len(p) {
		c.buf.Write(p[:max(room, 0)])
		c.cut = true
		return len(p), nil
	}
	return c.buf.Write(p)
}

func (c *capped) String() string { return strings.ToValidUTF8(c.buf.String(), "\uFFFD") }
