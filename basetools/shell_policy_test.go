package basetools

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolcat/toolcat/runtime"
)

// TestArgPoliciesStopPrograms runs, with find and git allowed, the
// arguments that make them run another program: each is refused, and the
// program it names never runs (it would leave a file behind).
func TestArgPoliciesStopPrograms(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed: install it")
	}
	j := newShellJail(t, ShellConfig{Allow: []string{"find", "git"}})
	git := exec.Command("git", "init", "-q", j.ws)
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	// A folder outside the workspace with a program git would run.
	execPath := t.TempDir()
	if err := os.WriteFile(filepath.Join(execPath, "git-pwn"), []byte("#!/bin/sh\ntouch \"$PWD/pwned\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, argv := range [][]string{
		{"find", ".", "-maxdepth", "0", "-exec", "touch", "pwned", ";"},
		{"find", ".", "-maxdepth", "0", "-execdir", "touch", "pwned", "+"},
		{"find", ".", "-maxdepth", "0", "-ok", "touch", "pwned", ";"},
		{"find", ".", "-maxdepth", "0", "-okdir", "touch", "pwned", ";"},
		{"find", ".", "-maxdepth", "0", "-fprint", "pwned"},
		{"find", ".", "-maxdepth", "0", "-fprintf", "pwned", "%p"},
		{"find", ".", "-maxdepth", "0", "-fls", "pwned"},
		{"find", "--", ".", "-maxdepth", "0", "-exec", "touch", "pwned", ";"},
		{"git", "-c", "alias.x=!touch pwned", "x"},
		{"git", "-calias.x=!touch pwned", "x"},
		{"git", "--config-env=alias.x=HOME", "x"},
		{"git", "-c", "diff.external=touch pwned #", "diff", "--no-index", "a.txt", "big.txt"},
		{"git", "--exec-path=" + execPath, "pwn"},
		{"git", "--exec-path", execPath, "pwn"},
		{"git", "-c", "protocol.ext.allow=always", "clone", "ext::sh -c touch% pwned", "dst"},
		{"git", "clone", "ext::sh -c touch% pwned", "dst"},
		{"git", "clone", "-c", "core.fsmonitor=touch pwned", ".", "dst"},
		{"git", "ls-remote", "--upload-pack=touch pwned; git-upload-pack", "."},
		{"git", "ls-remote", "--upload=touch pwned; git-upload-pack", "."},
		{"git", "fetch", "-u", "touch pwned; git-upload-pack", "."},
		{"git", "fetch", "--upload-pack", "touch pwned; git-upload-pack", "."},
		{"git", "push", "--receive-pack=touch pwned; git-receive-pack", ".", "HEAD:x"},
		{"git", "config", "core.fsmonitor", "touch pwned"},
		{"git", "config", "alias.x", "!touch pwned"},
		{"git", "rebase", "--exec", "touch pwned", "HEAD"},
		{"git", "rebase", "-xtouch pwned", "HEAD"},
		{"git", "bisect", "run", "touch", "pwned"},
		{"git", "submodule", "foreach", "touch pwned"},
		{"git", "grep", "-Otouch pwned", "x"},
		{"git", "grep", "--open-files-in-pager=touch pwned", "x"},
		{"git", "difftool", "-x", "touch pwned", "--no-index", "a.txt", "big.txt"},
		{"git", "-C", "/", "status"},
		{"git", "--git-dir=/etc", "status"},
		{"git", "diff", "--no-index", "--output=pwned", "a.txt", "big.txt"},
		{"git", "maintenance", "start"},
	} {
		res := j.call(t, "run_shell_command", map[string]any{"argv": argv})
		if res.Success || res.Error.Code != runtime.CodePermissionDenied || !strings.Contains(res.Error.Message, "argument policy") {
			t.Errorf("%q: %.400s", argv, res.JSON())
		}
		for _, p := range []string{filepath.Join(j.ws, "pwned"), filepath.Join(j.ws, "dst"), filepath.Join(execPath, "pwned")} {
			if _, err := os.Lstat(p); err == nil {
				t.Errorf("%q ran a program: %s exists", argv, p)
				os.RemoveAll(p)
			}
		}
	}
	// What an agent needs still runs.
	for _, argv := range [][]string{
		{"find", ".", "-name", "*.md", "-type", "f"},
		{"git", "status", "--short"},
		{"git", "--no-pager", "log", "--oneline", "-n", "1"},
		{"git", "diff", "--no-index", "--stat", "a.txt", "big.txt"},
		{"git", "add", "-u"},
		{"git", "--version"},
	} {
		res := j.call(t, "run_shell_command", map[string]any{"argv": argv})
		if !res.Success {
			t.Errorf("%q: %s", argv, res.JSON())
		}
	}
}

// TestArgPolicyTable checks the shipped policies argument by argument.
func TestArgPolicyTable(t *testing.T) {
	for _, c := range []struct {
		argv []string
		ok   bool
	}{
		{[]string{"rg", "-n", "TODO", "src"}, true},
		{[]string{"rg", "--pre", "touch pwned", "x"}, false},
		{[]string{"rg", "--pre=sh", "x"}, false},
		{[]string{"rg", "--pre-glob=*", "x"}, false},
		{[]string{"grep", "-rn", "x", "."}, true},
		{[]string{"ls", "-la"}, true},
		{[]string{"cat", "a.txt"}, true},
		{[]string{"head", "-n", "3", "a.txt"}, true},
		{[]string{"tail", "-n", "3", "a.txt"}, true},
		{[]string{"wc", "-l", "a.txt"}, true},
		{[]string{"sort", "-u", "a.txt"}, true},
		{[]string{"sort", "--compress-program=sh", "a.txt"}, false},
		{[]string{"sort", "-o", "/tmp/x", "a.txt"}, false},
		{[]string{"go", "build", "./..."}, true},
		{[]string{"go", "vet", "./..."}, true},
		{[]string{"go", "list", "-m", "all"}, true},
		{[]string{"go", "env", "GOPATH"}, true},
		{[]string{"go", "env", "-w", "GOFLAGS=-toolexec=sh"}, false},
		{[]string{"go", "build", "-toolexec=sh", "."}, false},
		{[]string{"go", "build", "-ldflags=-extld=sh", "."}, false},
		{[]string{"go", "build", "-ldflags", "-linkmode=external -extld=sh", "."}, false},
		{[]string{"go", "build", "-ldflags=-X main.v=1", "."}, true},
		{[]string{"go", "vet", "-vettool=/bin/sh", "."}, false},
		{[]string{"go", "test", "./..."}, false},
		{[]string{"go", "run", "."}, false},
		{[]string{"go", "generate", "./..."}, false},
		{[]string{"go", "tool", "pprof"}, false},
		{[]string{"npm", "ls"}, true},
		{[]string{"npm", "view", "left-pad"}, true},
		{[]string{"npm", "install"}, false},
		{[]string{"npm", "run", "build"}, false},
		{[]string{"npm", "exec", "x"}, false},
		{[]string{"npm", "ls", "--script-shell=sh"}, false},
		{[]string{"python3", "--version"}, true},
		{[]string{"python3", "-c", "print(1)"}, false},
		{[]string{"python3", "x.py"}, false},
		{[]string{"node", "--version"}, true},
		{[]string{"node", "-e", "1"}, false},
	} {
		p, ok := DefaultArgPolicies[c.argv[0]]
		if !ok {
			t.Errorf("%s has no shipped policy", c.argv[0])
			continue
		}
		if err := p.Check(c.argv[1:]); (err == nil) != c.ok {
			t.Errorf("%q: allowed %v, want %v (%v)", c.argv, err == nil, c.ok, err)
		}
	}
	// The policies for hosts whose agent runs the workspace's code.
	for _, argv := range [][]string{{"go", "test", "./..."}, {"go", "run", "."}, {"npm", "run", "test"}, {"npm", "install"}, {"make", "all"}, {"python3", "x.py"}} {
		if err := CodeArgPolicies[argv[0]].Check(argv[1:]); err != nil {
			t.Errorf("%q with CodeArgPolicies: %v", argv, err)
		}
	}
	if err := CodeArgPolicies["go"].Check([]string{"test", "-toolexec=sh"}); err == nil {
		t.Error("go test -toolexec allowed by CodeArgPolicies")
	}
}

// TestArgPolicyRequired: an allowed program without a policy is refused
// at Open, unless the host gives one, AnyArgs included.
func TestArgPolicyRequired(t *testing.T) {
	ws := t.TempDir()
	if _, err := Open(Config{Workspace: ws, Shell: ShellConfig{Allow: []string{"sh"}}}); err == nil || !strings.Contains(err.Error(), "AnyArgs") {
		t.Errorf("sh allowed without a policy: %v", err)
	}
	set, err := Open(Config{Workspace: ws, Shell: ShellConfig{Allow: []string{"sh"}, ArgPolicies: map[string]ArgPolicy{"sh": AnyArgs}}})
	if err != nil {
		t.Fatal(err)
	}
	set.Close()
	// Host policies: options denied, or only the options listed.
	deny := DenyOptions("-x", "--danger", "-word")
	only := OnlyOptions("-n", "--count", "-v")
	for _, c := range []struct {
		p    ArgPolicy
		args []string
		ok   bool
	}{
		{deny, []string{"-a", "file"}, true},
		{deny, []string{"-ax"}, false},
		{deny, []string{"-xvalue"}, false},
		{deny, []string{"--danger=1"}, false},
		{deny, []string{"--dang"}, false}, // an abbreviation
		{deny, []string{"-word"}, false},
		{deny, []string{"--", "-x"}, true}, // an operand after --
		{only, []string{"-n", "--count=3", "file"}, true},
		{only, []string{"-nv"}, true},
		{only, []string{"-nz"}, false},
		{only, []string{"--other"}, false},
		{only, []string{"--", "--other"}, true},
	} {
		if err := c.p.Check(c.args); (err == nil) != c.ok {
			t.Errorf("%s %q: allowed %v, want %v (%v)", c.p.Doc, c.args, err == nil, c.ok, err)
		}
	}
}

// TestGitSettingsOutOfReach: what git reads its settings from is out of
// the model's reach — the file tools do not write a repository's .git
// folder, and with the default environment git reads no settings from the
// workspace as its home, nor takes a folder the model made for a
// repository — so git status, git diff and the like run no program the
// model named.
func TestGitSettingsOutOfReach(t *testing.T) {
	j := newShellJail(t, ShellConfig{Allow: []string{"git"}})
	if out, err := exec.Command("git", "init", "-q", j.ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	if err := os.Symlink(".git", filepath.Join(j.ws, "dotgit")); err != nil {
		t.Fatal(err)
	}
	hook := "[core]\n\tfsmonitor = touch pwned #\n[diff]\n\texternal = touch pwned #\n"
	before, _ := os.ReadFile(filepath.Join(j.ws, ".git/config"))
	for _, p := range []string{".git/config", ".git/hooks/pre-commit", ".GIT/config", "sub/.git/config", "sub/.git", "dotgit/config", ".git"} {
		for _, tool := range writeTools {
			args := map[string]any{"path": p, "content": hook}
			if tool == "edit_file" {
				args = map[string]any{"path": p, "old_text": "[core]", "new_text": hook}
			}
			if res := j.call(t, tool, args); res.Success || res.Error.Code != runtime.CodePermissionDenied {
				t.Errorf("%s %s: %.300s", tool, p, res.JSON())
			}
		}
	}
	if after, _ := os.ReadFile(filepath.Join(j.ws, ".git/config")); string(after) != string(before) {
		t.Errorf(".git/config changed:\n%s", after)
	}
	// Settings in the workspace as git's home folder.
	for _, p := range []string{".gitconfig", ".config/git/config"} {
		if res := j.call(t, "write_file", map[string]any{"path": p, "content": hook}); !res.Success {
			t.Fatalf("write_file %s: %s", p, res.JSON())
		}
	}
	for _, argv := range [][]string{{"git", "status"}, {"git", "diff", "--no-index", "a.txt", "big.txt"}} {
		j.call(t, "run_shell_command", map[string]any{"argv": argv})
		if _, err := os.Lstat(filepath.Join(j.ws, "pwned")); err == nil {
			t.Errorf("%q ran the program a settings file in the workspace named", argv)
			os.Remove(filepath.Join(j.ws, "pwned"))
		}
	}

	// A folder made to look like a bare repository, in a workspace that
	// is none.
	b := newShellJail(t, ShellConfig{Allow: []string{"git"}})
	for p, content := range map[string]string{"HEAD": "ref: refs/heads/main\n", "config": hook, "objects/keep": "", "refs/keep": ""} {
		if res := b.call(t, "write_file", map[string]any{"path": p, "content": content}); !res.Success {
			t.Fatalf("write_file %s: %s", p, res.JSON())
		}
	}
	b.call(t, "run_shell_command", map[string]any{"argv": []string{"git", "diff", "--no-index", "a.txt", "big.txt"}})
	if _, err := os.Lstat(filepath.Join(b.ws, "pwned")); err == nil {
		t.Error("git took the workspace for a bare repository and ran the program its config named")
	}
}
