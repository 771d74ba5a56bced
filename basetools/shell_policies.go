package basetools

import (
	"fmt"
	"regexp"
	"strings"
)

// DefaultArgPolicies are the policies shipped for the programs a coding
// agent needs, used for a program of ShellConfig.Allow that
// ShellConfig.ArgPolicies does not name. None of them lets the program
// run code of the workspace or a program named in its arguments; see
// CodeArgPolicies for hosts that want their agent to run its code.
// README.md says what each allows and why.
var DefaultArgPolicies = map[string]ArgPolicy{
	// Programs that start no other program, whatever their arguments.
	"echo": AnyArgs, "pwd": AnyArgs, "true": AnyArgs, "false": AnyArgs,
	"ls": AnyArgs, "cat": AnyArgs, "head": AnyArgs, "tail": AnyArgs, "wc": AnyArgs,
	"grep": AnyArgs, "egrep": AnyArgs, "fgrep": AnyArgs,
	"diff": AnyArgs, "cmp": AnyArgs, "uniq": AnyArgs, "cut": AnyArgs, "tr": AnyArgs,
	"basename": AnyArgs, "dirname": AnyArgs, "realpath": AnyArgs, "stat": AnyArgs,
	"du": AnyArgs, "file": AnyArgs, "tree": AnyArgs, "gofmt": AnyArgs,

	// sort compresses its temporary files with any program named.
	"sort": DenyOptions("--compress-program", "-o", "--output"),
	// rg's preprocessor is any command, run on each file.
	"rg": DenyOptions("--pre", "--pre-glob"),
	// find runs commands and writes files named in its expression, which
	// "--" does not end (find -- . -exec cmd ; runs cmd).
	"find": denyWords("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"),

	"git":     gitPolicy,
	"go":      goPolicy(false),
	"npm":     npmPolicy(false),
	"python":  versionOnly("python", "-V"),
	"python3": versionOnly("python3", "-V"),
	"node":    versionOnly("node", "-v"),
}

// CodeArgPolicies are policies for hosts that let their agent run the
// workspace's code, which a coding agent usually must: go test, go run and
// go generate; npm install (with lifecycle scripts), npm run and npm
// test; make; python and node. Each of those runs whatever the workspace
// holds, which the model can write: allowing them allows any code, as the
// host's user. The options that name another program (-toolexec, -exec,
// -vettool, --script-shell) stay refused, since they add nothing a host
// would want. Use them as ShellConfig.ArgPolicies.
var CodeArgPolicies = map[string]ArgPolicy{
	"go":      goPolicy(true),
	"npm":     npmPolicy(true),
	"make":    {Doc: "any arguments: make runs the recipes of a Makefile the model can write", Check: AnyArgs.Check},
	"python":  {Doc: "any arguments: python runs any code", Check: AnyArgs.Check},
	"python3": {Doc: "any arguments: python runs any code", Check: AnyArgs.Check},
	"node":    {Doc: "any arguments: node runs any code", Check: AnyArgs.Check},
}

func versionOnly(name, short string) ArgPolicy {
	p := OnlyOptions("--version", short)
	return ArgPolicy{
		Doc: "only --version: " + name + " runs any code it is given (a file, -c, -m); CodeArgPolicies allows it",
		Check: func(args []string) error {
			if len(args) == 0 {
				return fmt.Errorf("%s with no argument reads a program from its input", name)
			}
			for _, a := range args {
				if a != "--version" && a != short {
					return fmt.Errorf("only %s --version is allowed: %s runs any code it is given", name, name)
				}
			}
			return p.Check(args)
		},
	}
}

// remoteHelper matches git's <transport>::<address>, which runs a remote
// helper (ext:: runs any command, fd:: uses the host's descriptors).
var remoteHelper = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*::`)

// gitDenied are refused in every git command: they run a program named
// in their value, or write a file anywhere.
var gitDenied = []string{
	"--upload-pack", "--receive-pack", "--exec", "--config", "--template",
	"--output", "--output-directory", "--open-files-in-pager", "--extcmd",
	"--unsafe-paths", "--separate-git-dir",
}

func gitCommand(short ...string) ArgPolicy {
	return all("", DenyOptions(append(short, gitDenied...)...), operands(func(a string) string {
		if remoteHelper.MatchString(a) {
			return "a remote helper (ext::, fd:: and the like) can run any command"
		}
		return ""
	}))
}

// gitPolicy allows the git commands of everyday work, refusing git's own
// -c, -C, --exec-path, --git-dir, --work-tree and --config-env, and in
// each command the options that run a program or write outside the
// repository. git config, git submodule, git worktree, git difftool and
// the like are refused: they set or run what git runs.
var gitPolicy = commandPolicy(
	"the git commands of everyday work, without the options that run another program",
	[]string{"--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--glob-pathspecs",
		"--noglob-pathspecs", "--icase-pathspecs", "--no-replace-objects", "--version", "--bare"},
	func() map[string]ArgPolicy {
		m := map[string]ArgPolicy{}
		for _, c := range strings.Fields(`add am apply blame branch cat-file checkout cherry cherry-pick
			clean commit count-objects describe diff diff-files diff-index diff-tree fsck gc grep
			hash-object init log ls-files ls-tree merge merge-base mv name-rev notes push range-diff
			reflog remote reset restore rev-list rev-parse revert rm shortlog show show-branch show-ref
			stash status switch symbolic-ref tag version whatchanged`) {
			m[c] = gitCommand()
		}
		m["clone"] = gitCommand("-u", "-c")
		m["fetch"] = gitCommand("-u")
		m["pull"] = gitCommand("-u")
		m["ls-remote"] = gitCommand("-u")
		m["grep"] = gitCommand("-O")
		m["rebase"] = gitCommand("-x")
		m["format-patch"] = gitCommand("-o")
		m["bisect"] = all("", gitCommand(), noFirstOperand("run"))
		return m
	}(),
)

// goDenied name a program go would run, or its linker would.
var goDenied = []string{"-toolexec", "-exec", "-vettool", "--toolexec", "--exec", "--vettool"}

func goCommand() ArgPolicy {
	deny := DenyOptions(goDenied...)
	return ArgPolicy{Check: func(args []string) error {
		if err := deny.Check(args); err != nil {
			return err
		}
		for i, a := range args {
			if a == "--" {
				break
			}
			name, value, hasValue := strings.Cut(strings.TrimPrefix(a, "-"), "=")
			if name != "ldflags" && name != "-ldflags" {
				continue
			}
			if !hasValue && i+1 < len(args) {
				value = args[i+1]
			}
			if strings.Contains(value, "extld") || strings.Contains(value, "extar") {
				return fmt.Errorf("-ldflags naming an external linker or archiver (-extld, -extar) is refused: it runs that program")
			}
		}
		return nil
	}}
}

// goPolicy allows building, vetting and reading with go; with code, also
// the commands that run the workspace's code.
func goPolicy(code bool) ArgPolicy {
	m := map[string]ArgPolicy{}
	for _, c := range strings.Fields("build vet list fmt mod work version doc fix clean help") {
		m[c] = goCommand()
	}
	m["env"] = all("", goCommand(), DenyOptions("-w", "-u"))
	doc := "go build, vet, list, fmt, mod, env (reading) and the like, which run no code of the workspace; not -toolexec, -exec, -vettool nor an external linker"
	if code {
		for _, c := range strings.Fields("test run generate tool install get") {
			m[c] = goCommand()
		}
		doc = "every go command, test, run and generate included, which run the workspace's code; not -toolexec, -exec, -vettool nor an external linker, nor go env -w"
	}
	return commandPolicy(doc, nil, m)
}

// npmDenied name a program npm would run, or a configuration file.
var npmDenied = []string{"--script-shell", "--node-options", "--git", "--shell", "--editor", "--browser",
	"--viewer", "--userconfig", "--globalconfig", "--call", "-c"}

// npmPolicy allows npm's reading commands; with code, also installs
// (with their lifecycle scripts) and scripts.
func npmPolicy(code bool) ArgPolicy {
	m := map[string]ArgPolicy{}
	for _, c := range strings.Fields("ls list ll la view info show v outdated search audit explain why fund doctor ping prefix root bin") {
		m[c] = DenyOptions(npmDenied...)
	}
	m["config"] = all("", DenyOptions(npmDenied...), noFirstOperand("set", "delete", "edit", "fix"))
	m["audit"] = all("", DenyOptions(npmDenied...), noFirstOperand("fix"))
	doc := "npm's reading commands (ls, view, outdated, audit, ...): installs run the packages' lifecycle scripts and the programs the workspace's .npmrc names, so they are left to CodeArgPolicies"
	if code {
		for _, c := range strings.Fields("install i ci add update up uninstall rm rebuild dedupe prune run run-script test t start stop restart exec x pack init") {
			m[c] = DenyOptions(npmDenied...)
		}
		m["audit"] = DenyOptions(npmDenied...)
		doc = "npm's commands, installs and scripts included, which run any code of the packages and the workspace"
	}
	return commandPolicy(doc, []string{"--no-color", "--prefix", "--silent", "-s", "--json", "--version", "-v"}, m)
}

// denyWords refuses the words given wherever they stand, "--" or not.
func denyWords(words ...string) ArgPolicy {
	return ArgPolicy{
		Doc: "any arguments but " + strings.Join(words, ", "),
		Check: func(args []string) error {
			for _, a := range args {
				for _, w := range words {
					if a == w {
						return fmt.Errorf("%s is refused: it runs a command, deletes or writes files", quoteArg(a))
					}
				}
			}
			return nil
		},
	}
}
