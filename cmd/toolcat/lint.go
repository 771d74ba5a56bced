package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/catalog/breaking"
	"github.com/toolcat/toolcat/catalog/lint"
	"github.com/toolcat/toolcat/catalog/lint/report"
)

const lintDoc = `
Check a tool catalog for everything that makes a model misuse tools:
names, descriptions, schemas, side-effect safety, the fallback and
dependency graph, and the size of the catalog.

Paths are catalog files or directories (default: the current directory).
Settings, among them the rule set (use: [MINIMAL], [BASIC] or the default
[STANDARD]), come from toolcat.yaml beside the catalog, or from --config.

--write-baseline FILE records every finding as accepted; --baseline FILE
then reports only findings that are not in it, and counts the entries
that no longer match (fixed findings). Both at once rewrite the baseline
without the fixed ones, accepting nothing new.

Exit status: 0 clean (warnings and notes allowed), 1 findings at error
severity, 2 bad usage or a catalog that does not load.`

type lintFlags struct {
	format        string
	config        string
	rules         bool
	baseline      string
	writeBaseline string
}

func runLint(e *env, args []string) int {
	var f lintFlags
	fs := newFlags(e, "lint", "[paths]", lintDoc)
	fs.StringVar(&f.format, "format", "text", "output format: "+strings.Join(report.Formats, ", "))
	fs.StringVar(&f.config, "config", "", "configuration file (default: toolcat.yaml beside the catalog, if any)")
	fs.BoolVar(&f.rules, "rules", false, "list the rules with their set, severity and purpose, then exit (--format markdown for a document)")
	fs.StringVar(&f.baseline, "baseline", "", "report only findings not accepted in this baseline `file`")
	fs.StringVar(&f.writeBaseline, "write-baseline", "", "write the findings to this baseline `file` as accepted, then exit 0")
	if code := parse(e, fs, args); code >= 0 {
		return code
	}
	if f.rules && f.format == "markdown" {
		cfg, err := loadConfig(f.config, fs.Args())
		if err != nil {
			fmt.Fprintf(e.stderr, "toolcat lint: %v\n", err)
			return exitUsage
		}
		rulesMarkdown(e, cfg)
		return exitOK
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
	cfg.Foreign = breaking.IsRule
	if f.rules {
		listRules(e, cfg)
		return exitOK
	}
	var base *lint.Baseline
	if f.baseline != "" {
		if base, err = lint.LoadBaseline(f.baseline); err != nil {
			fmt.Fprintf(e.stderr, "toolcat lint: %v\n", err)
			return exitUsage
		}
	}
	cat, ok := loadCatalog(e, "lint", f.format, fs.Args())
	if !ok {
		return exitUsage
	}
	diags := lint.Run(cat, cfg)
	if f.writeBaseline != "" {
		return writeBaseline(e, f, base, diags)
	}
	wd, _ := os.Getwd()
	in := report.Input{Rules: ruleInfos(cfg), Version: toolcatVersion(), BaseDir: wd}
	if base != nil {
		var accepted []lint.Diagnostic
		var stale *lint.Baseline
		diags, accepted, stale = base.Apply(diags)
		in.Baseline = &report.BaselineCounts{Accepted: len(accepted), Stale: stale.Len()}
	}
	in.Diagnostics = diags
	if err := report.Write(e.stdout, f.format, in); err != nil {
		fmt.Fprintf(e.stderr, "toolcat lint: %v\n", err)
		return exitUsage
	}
	if f.format == "text" && len(diags) > 0 {
		fmt.Fprintf(e.stderr, "%s\n", report.Count(diags))
	}
	if in.Baseline != nil {
		baselineSummary(e, f.baseline, *in.Baseline)
	}
	if lint.MaxSeverity(diags) >= lint.Error {
		return exitFindings
	}
	return exitOK
}

// writeBaseline writes the findings to the baseline file: all of them, or
// with --baseline only those the old baseline accepted.
func writeBaseline(e *env, f lintFlags, old *lint.Baseline, diags []lint.Diagnostic) int {
	var dropped int
	if old != nil {
		_, accepted, stale := old.Apply(diags)
		diags, dropped = accepted, stale.Len()
	}
	data, err := lint.NewBaseline(diags).Marshal()
	if err == nil {
		err = os.WriteFile(f.writeBaseline, data, 0o666)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "toolcat lint: %v\n", err)
		return exitUsage
	}
	msg := fmt.Sprintf("toolcat lint: wrote %d %s to %s", len(diags), plural(len(diags), "accepted finding", "accepted findings"), f.writeBaseline)
	if old != nil {
		msg += fmt.Sprintf(" (%d fixed %s dropped)", dropped, plural(dropped, "finding", "findings"))
	}
	fmt.Fprintln(e.stderr, msg)
	return exitOK
}

// baselineSummary says on stderr how many findings the baseline hid and
// how many of its entries match nothing any more, so it can shrink.
func baselineSummary(e *env, path string, c report.BaselineCounts) {
	fmt.Fprintf(e.stderr, "baseline %s: %d %s accepted", path, c.Accepted, plural(c.Accepted, "finding", "findings"))
	if n := c.Stale; n > 0 {
		fmt.Fprintf(e.stderr, "; %d no longer %s: drop %s with toolcat lint --baseline %s --write-baseline %s",
			n, plural(n, "occurs", "occur"), plural(n, "it", "them"), path, path)
	}
	fmt.Fprintln(e.stderr)
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
// loadCatalog loads the catalog at paths for the command cmd and sets the
// GC pace for what follows (see loadedGC). A catalog that does not load is
// reported in the command's output format.
func loadCatalog(e *env, cmd, format string, paths []string) (*catalog.Catalog, bool) {
	loadingGC(paths)
	cat, err := catalog.Load(paths...)
	loadedGC()
	if err != nil {
		reportLoadError(e, cmd, format, err)
		return nil, false
	}
	return cat, true
}

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

// rulesMarkdown writes the rule reference, docs/lint-rules.md.
func rulesMarkdown(e *env, cfg *lint.Config) {
	w := e.stdout
	fmt.Fprintln(w, "# toolcat lint rules")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Generated by `toolcat lint --rules --format markdown`; do not edit.")
	fmt.Fprintln(w, "Sets and severities are the defaults; `toolcat.yaml` chooses others (see docs/lint.md).")
	fmt.Fprintln(w, "\n## Rule sets\n\nEach set runs every rule of the sets above it; each rule is listed under the smallest set that runs it.")
	fmt.Fprintln(w, "\n| set | rules | purpose |\n|---|---|---|")
	for _, s := range lint.Sets {
		n := 0
		for _, r := range lint.Rules {
			if s.Has(r.ID) {
				n++
			}
		}
		def := ""
		if s == lint.DefaultSet {
			def = " (default)"
		}
		fmt.Fprintf(w, "| `%s`%s | %d | %s |\n", s.Name, def, n, mdCell(s.Purpose))
	}
	category := ""
	for _, r := range lint.Rules {
		if r.Category != category {
			category = r.Category
			fmt.Fprintf(w, "\n## %s\n\n| rule | set | severity | purpose |\n|---|---|---|---|\n", category)
		}
		fmt.Fprintf(w, "| `%s` | %s | %s | %s |\n", r.ID, setName(r.ID), cfg.Severity(r.ID), mdCell(r.Purpose))
	}
}

func mdCell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

// setName names the smallest set that runs rule id.
func setName(id string) string {
	if s := lint.SetOf(id); s != nil {
		return s.Name
	}
	return "none"
}

// listRules prints every rule with its set, category, the severity it
// runs at under cfg (off: cfg does not run it) and its purpose.
func listRules(e *env, cfg *lint.Config) {
	for _, r := range lint.Rules {
		fmt.Fprintf(e.stdout, "%s (%s, %s, %s)\n    %s\n", r.ID, setName(r.ID), r.Category, cfg.Severity(r.ID), r.Purpose)
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
