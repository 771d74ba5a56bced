package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/catalog/lint"
	"github.com/toolcat/toolcat/catalog/lint/report"
)

const lintDoc = `
Check a tool catalog for everything that makes a model misuse tools:
names, descriptions, schemas, side-effect safety, the fallback and
dependency graph, and the size of the catalog.

Paths are catalog files or directories (default: the current directory).
Settings come from toolcat.yaml beside the catalog, or from --config.

Exit status: 0 clean (warnings and notes allowed), 1 findings at error
severity, 2 bad usage or a catalog that does not load.`

type lintFlags struct {
	format string
	config string
	rules  bool
}

func runLint(e *env, args []string) int {
	var f lintFlags
	fs := newFlags(e, "lint", "[paths]", lintDoc)
	fs.StringVar(&f.format, "format", "text", "output format: "+strings.Join(report.Formats, ", "))
	fs.StringVar(&f.config, "config", "", "configuration file (default: toolcat.yaml beside the catalog, if any)")
	fs.BoolVar(&f.rules, "rules", false, "list the rules with their default severity and purpose, then exit")
	if code := parse(e, fs, args); code >= 0 {
		return code
	}
	if !slices.Contains(report.Formats, f.format) {
		fmt.Fprintf(e.stderr, "toolcat lint: unknown format %q; use one of %s\n", f.format, strings.Join(report.Formats, ", "))
		return exitUsage
	}
	cfg, err := loadConfig(f.config, fs.Args())
	if err != nil {
		fmt.Fprintf(e.stderr, "toolcat lint: %v\n", err)
		return exitUsage
	}
	if f.rules {
		listRules(e, cfg)
		return exitOK
	}
	cat, err := catalog.Load(fs.Args()...)
	if err != nil {
		reportLoadError(e, "lint", f.format, err)
		return exitUsage
	}
	diags := lint.Run(cat, cfg)
	wd, _ := os.Getwd()
	in := report.Input{Diagnostics: diags, Rules: ruleInfos(cfg), Version: toolcatVersion(), BaseDir: wd}
	if err := report.Write(e.stdout, f.format, in); err != nil {
		fmt.Fprintf(e.stderr, "toolcat lint: %v\n", err)
		return exitUsage
	}
	if f.format == "text" && len(diags) > 0 {
		fmt.Fprintf(e.stderr, "%s\n", report.Count(diags))
	}
	if lint.MaxSeverity(diags) >= lint.Error {
		return exitFindings
	}
	return exitOK
}

// loadConfig reads the configuration named by --config, or toolcat.yaml
// beside the first catalog path, or the defaults.
func loadConfig(path string, paths []string) (*lint.Config, error) {
	if path != "" {
		return lint.LoadConfig(path)
	}
	dir := "."
	if len(paths) > 0 {
		dir = paths[0]
		if st, err := os.Stat(dir); err == nil && !st.IsDir() {
			dir = filepath.Dir(dir)
		}
	}
	p := filepath.Join(dir, lint.ConfigFile)
	if _, err := os.Stat(p); err != nil {
		return lint.DefaultConfig(), nil
	}
	return lint.LoadConfig(p)
}

// reportLoadError prints why a catalog did not load: every problem, one
// per line, or as annotations for GitHub.
func reportLoadError(e *env, cmd, format string, err error) {
	var list catalog.ErrorList
	if !errors.As(err, &list) {
		if format == "github" {
			report.GitHubError(e.stdout, "", 0, 0, err.Error())
		}
		fmt.Fprintf(e.stderr, "toolcat %s: %v\n", cmd, err)
		return
	}
	for _, x := range list {
		if format == "github" {
			report.GitHubError(e.stdout, x.Pos.File, x.Pos.Line, x.Pos.Col, x.Msg)
		}
		fmt.Fprintln(e.stderr, x.Error())
	}
	fmt.Fprintf(e.stderr, "toolcat %s: the catalog does not load: %d %s\n", cmd, len(list), plural(len(list), "problem", "problems"))
}

func ruleInfos(cfg *lint.Config) []report.RuleInfo {
	out := make([]report.RuleInfo, 0, len(lint.Rules))
	for _, r := range lint.Rules {
		out = append(out, report.RuleInfo{ID: r.ID, Category: r.Category, Purpose: r.Purpose, Severity: cfg.Severity(r.ID)})
	}
	return out
}

func listRules(e *env, cfg *lint.Config) {
	for _, r := range lint.Rules {
		fmt.Fprintf(e.stdout, "%s (%s, %s)\n    %s\n", r.ID, r.Category, cfg.Severity(r.ID), r.Purpose)
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
