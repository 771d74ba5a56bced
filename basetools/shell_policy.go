package basetools

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// An ArgPolicy decides which arguments an allowed program may be given.
// An allow-list by program name is not enough: many programs run another
// one when told to (find -exec, git -c alias.x=!cmd, rg --pre, go build
// -toolexec). Every program in ShellConfig.Allow needs a policy, from
// ShellConfig.ArgPolicies or DefaultArgPolicies; AnyArgs is the host's
// explicit choice of none.
//
// Commands run without a shell while an allow-list is set (argv goes to
// execve as it is), so no ;, $(...), backquote or variable in an argument
// is ever interpreted; the environment is the host's (ShellConfig.Env),
// so GIT_EXTERNAL_DIFF, GIT_SSH_COMMAND, GIT_CONFIG_*, PAGER and the like
// are whatever the host sets there.
type ArgPolicy struct {
	// Doc says in a sentence what the policy allows and why.
	Doc string
	// Check returns nil when the arguments (argv without the program's
	// name) may run, or an error saying what is refused and why.
	Check func(args []string) error
}

// AnyArgs lets a program run with any arguments: for a program that runs
// no other (echo), or one the host lets run anything, knowingly (make, sh,
// python).
var AnyArgs = ArgPolicy{Doc: "any arguments", Check: func([]string) error { return nil }}

// DenyOptions refuses the options given and allows everything else. A
// one-letter option ("-c") is refused alone, with its value attached
// ("-cx") or in a bundle ("-qc"); a long one ("--exec-path") with its
// value ("--exec-path=x") or abbreviated ("--exec-pa", as getopt_long and
// git accept); a one-dash word ("-exec", as find's, "-toolexec", as go's)
// as it is or with its value ("-toolexec=x"). Arguments after "--" are
// operands.
func DenyOptions(opts ...string) ArgPolicy {
	opts = slices.Clone(opts)
	return ArgPolicy{
		Doc: "any arguments but " + strings.Join(opts, ", "),
		Check: func(args []string) error {
			if a, o, ok := findOption(args, opts); ok {
				return fmt.Errorf("the option %s (%s) is refused", quoteArg(a), o)
			}
			return nil
		},
	}
}

// OnlyOptions allows the options given and refuses every other one;
// operands are free. Options match as in DenyOptions; a bundle ("-nv")
// needs each of its letters listed.
func OnlyOptions(opts ...string) ArgPolicy {
	opts = slices.Clone(opts)
	return ArgPolicy{
		Doc: "only the options " + strings.Join(opts, ", "),
		Check: func(args []string) error {
			for _, a := range options(args) {
				if !allowedOption(a, opts) {
					return fmt.Errorf("the option %s is not among those allowed (%s)", quoteArg(a), strings.Join(opts, ", "))
				}
			}
			return nil
		},
	}
}

// options are the arguments that are options: those starting with "-"
// (but "-" alone) before "--".
func options(args []string) []string {
	var out []string
	for _, a := range args {
		if a == "--" {
			break
		}
		if len(a) > 1 && a[0] == '-' {
			out = append(out, a)
		}
	}
	return out
}

// findOption returns the first argument that is one of opts, and the
// option it is.
func findOption(args, opts []string) (arg, opt string, ok bool) {
	for _, a := range options(args) {
		for _, o := range opts {
			if matchOption(a, o) {
				return a, o, true
			}
		}
	}
	return "", "", false
}

// matchOption reports whether the argument a is the option o (see
// DenyOptions for the forms).
func matchOption(a, o string) bool {
	switch {
	case a == o:
		return true
	case strings.HasPrefix(o, "--"):
		name, _, _ := strings.Cut(a, "=")
		return strings.HasPrefix(name, "--") && len(name) > 3 && strings.HasPrefix(o, name)
	case len(o) == 2: // -c: alone, attached, or in a bundle
		return !strings.HasPrefix(a, "--") && strings.IndexByte(a[1:], o[1]) >= 0
	}
	return strings.HasPrefix(a, o+"=") // a one-dash word: as it is, or with a value (go's -toolexec=x)
}

// allowedOption reports whether a is one of opts, a bundle of one-letter
// options among them, or one of them with a value.
func allowedOption(a string, opts []string) bool {
	for _, o := range opts {
		if a == o {
			return true
		}
		if strings.HasPrefix(o, "--") {
			if name, _, ok := strings.Cut(a, "="); ok && name == o {
				return true
			}
		}
	}
	if strings.HasPrefix(a, "--") || len(a) < 2 {
		return false
	}
	for _, c := range a[1:] {
		if !slices.Contains(opts, "-"+string(c)) {
			return false
		}
	}
	return true
}

func quoteArg(a string) string { return fmt.Sprintf("%q", clip(a, 80)) }

// commandPolicy is a policy for a program with subcommands (git, go,
// npm): the options allowed before the subcommand, and for each allowed
// subcommand the policy of its arguments.
func commandPolicy(doc string, global []string, commands map[string]ArgPolicy) ArgPolicy {
	names := slices.Sorted(maps.Keys(commands))
	return ArgPolicy{
		Doc: doc,
		Check: func(args []string) error {
			i := 0
			for ; i < len(args) && strings.HasPrefix(args[i], "-"); i++ {
				if !allowedOption(args[i], global) {
					return fmt.Errorf("the option %s before the command is refused (allowed there: %s)", quoteArg(args[i]), strings.Join(global, ", "))
				}
			}
			if i == len(args) {
				return nil
			}
			p, ok := commands[args[i]]
			if !ok {
				return fmt.Errorf("the command %s is refused (allowed: %s)", quoteArg(args[i]), strings.Join(names, ", "))
			}
			if err := p.Check(args[i+1:]); err != nil {
				return fmt.Errorf("%s: %w", args[i], err)
			}
			return nil
		},
	}
}

// all is a policy that passes when each of ps does.
func all(doc string, ps ...ArgPolicy) ArgPolicy {
	return ArgPolicy{Doc: doc, Check: func(args []string) error {
		for _, p := range ps {
			if err := p.Check(args); err != nil {
				return err
			}
		}
		return nil
	}}
}

// operands refuses an operand for which bad returns a reason.
func operands(bad func(string) string) ArgPolicy {
	return ArgPolicy{Check: func(args []string) error {
		for _, a := range args {
			if why := bad(a); why != "" {
				return fmt.Errorf("the argument %s is refused: %s", quoteArg(a), why)
			}
		}
		return nil
	}}
}

// refuse refuses any use, saying why.
func refuse(why string) ArgPolicy {
	return ArgPolicy{Doc: why, Check: func([]string) error { return errors.New(why) }}
}

// noOperand refuses the operands listed as first operand (git bisect run).
func noFirstOperand(words ...string) ArgPolicy {
	return ArgPolicy{Check: func(args []string) error {
		for _, a := range args {
			if strings.HasPrefix(a, "-") {
				continue
			}
			if slices.Contains(words, a) {
				return fmt.Errorf("%s runs a command it is given, and is refused", quoteArg(a))
			}
			return nil
		}
		return nil
	}}
}
