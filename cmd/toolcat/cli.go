package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Exit codes, as CI reads them.
const (
	exitOK       = 0 // clean
	exitFindings = 1 // findings at error severity, or stale output
	exitUsage    = 2 // bad usage, or a catalog that does not load
)

// env is what a command runs with.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer

	// The profiles --cpuprofile and --memprofile ask for (see profile.go).
	cpuProfile, memProfile string
	stopCPU                func() error
}

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(e *env, args []string) int
}

func commands() []command {
	return []command{
		{"lint", "check a catalog for what makes models misuse tools", runLint},
		{"gen", "compile a catalog into typed Go code", runGen},
		{"docs", "write the catalog as Markdown, with the prompt size of every tool", runDocs},
		{"import", "write a catalog from MCP, OpenAI, Anthropic or JSON Schema tool definitions", runImport},
		{"breaking", "report changes that break callers, compiled code or safety", runBreaking},
		{"lock", "write toolcat.lock.json, the snapshot toolcat breaking compares with", runLock},
		{"init", "start a tool package: a starter catalog and its go:generate line", runInit},
		{"schema", "print the JSON Schema of the catalog format", runSchema},
		{"version", "print toolcat's version", runVersion},
	}
}

// Main runs toolcat with args (without the program name) and returns the
// exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			return Main([]string{args[1], "--help"}, stdin, stdout, stderr)
		}
		usage(stdout)
		return exitOK
	case "-version", "--version":
		name = "version"
	}
	for _, c := range commands() {
		if c.name == name {
			return e.profiled(c.run(e, args[1:]))
		}
	}
	fmt.Fprintf(stderr, "toolcat: unknown command %q\n\n", name)
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "toolcat compiles a declarative tool catalog for LLM agents.")
	fmt.Fprintln(w, "\nUsage:\n  toolcat <command> [flags] [catalog paths]\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun \"toolcat <command> --help\" for a command's flags.")
}

// newFlags makes a command's flag set, writing its usage to stderr.
func newFlags(e *env, name, argsUsage, doc string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.StringVar(&e.cpuProfile, "cpuprofile", "", "write a CPU profile of the command to `file` (go tool pprof reads it)")
	fs.StringVar(&e.memProfile, "memprofile", "", "write a memory profile of the command to `file`: allocations, and the heap at its end")
	fs.Usage = func() {
		out := fs.Output()
		fmt.Fprintf(out, "Usage: toolcat %s [flags] %s\n\n%s\n", name, argsUsage, strings.TrimSpace(doc))
		hasFlags := false
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprintln(out, "\nFlags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parse parses flags; it returns the exit code to stop with, or -1 to go on.
// --help prints the usage on stdout and exits 0.
func parse(e *env, fs *flag.FlagSet, args []string) int {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "-help" || a == "--help" {
			fs.SetOutput(e.stdout)
			fs.Usage()
			return exitOK
		}
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if err := e.startProfile(); err != nil {
		fmt.Fprintf(e.stderr, "toolcat %s: %v\n", fs.Name(), err)
		return exitUsage
	}
	return -1
}
