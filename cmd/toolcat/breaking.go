package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/catalog/breaking"
	"github.com/toolcat/toolcat/catalog/lint"
	"github.com/toolcat/toolcat/catalog/lint/report"
	"github.com/toolcat/toolcat/gen"
)

const breakingDoc = `
Compare the catalog with an earlier version of it and report what breaks:
calls of models and clients (WIRE), code compiled against the generated Go
package (GO), the safety callers were told of (SAFETY), and, as notes, the
text the model reads (PROMPT, with the change in estimated tokens).

--against names the earlier version: a lock file written by toolcat lock,
a catalog directory or file, or a git revision (branch, tag, commit) of
the repository that holds the catalog, read with git show. Findings point
at the new catalog, or at the old one for what was removed.

Which categories run comes from the breaking section of toolcat.yaml
beside the catalog (use: [WIRE, GO, SAFETY, PROMPT], except, rules), or
from --config. A tool's suppress entry, or the catalog's, silences a rule
as it does in lint; renamed_from on a tool accepts its old name's removal.

Exit status: 0 nothing breaks (notes allowed), 1 findings at error
severity, 2 bad usage, an unknown revision or a catalog that does not
load.`

type breakingFlags struct {
	against string
	format  string
	config  string
	rules   bool
}

func runBreaking(e *env, args []string) int {
	var f breakingFlags
	fs := newFlags(e, "breaking", "--against <lock file|dir|git revision> [paths]", breakingDoc)
	fs.StringVar(&f.against, "against", "", "the earlier version: a lock file, a catalog directory, or a git revision (`ref`)")
	fs.StringVar(&f.format, "format", "text", "output format: "+strings.Join(report.Formats, ", "))
	fs.StringVar(&f.config, "config", "", "configuration file (default: toolcat.yaml beside the catalog, if any)")
	fs.BoolVar(&f.rules, "rules", false, "list the rules with their category, severity and purpose, then exit")
	if code := parse(e, fs, args); code >= 0 {
		return code
	}
	fail := func(err error) int {
		fmt.Fprintf(e.stderr, "toolcat breaking: %v\n", err)
		return exitUsage
	}
	if !slices.Contains(report.Formats, f.format) {
		return fail(fmt.Errorf("unknown format %q; use one of %s", f.format, strings.Join(report.Formats, ", ")))
	}
	cfg, err := loadBreakingConfig(f.config, fs.Args())
	if err != nil {
		return fail(err)
	}
	if f.rules {
		for _, r := range breaking.Rules {
			fmt.Fprintf(e.stdout, "%s (%s, %s)\n    %s\n", r.ID, r.Category, cfg.Severity(r.ID), r.Purpose)
		}
		return exitOK
	}
	if f.against == "" {
		fmt.Fprintln(e.stderr, "toolcat breaking: --against is required: a lock file, a catalog directory or a git revision")
		return exitUsage
	}
	cat, ok := loadCatalog(e, "breaking", f.format, fs.Args())
	if !ok {
		return exitUsage
	}
	old, err := loadAgainst(f.against, fs.Args())
	if err != nil {
		return fail(err)
	}
	cur := &breaking.Side{Catalog: cat}
	if old.GoAPI == nil {
		old.GoAPI, err = goAPI(old.Catalog)
		if err != nil {
			fmt.Fprintf(e.stderr, "toolcat breaking: the earlier catalog does not generate, GO rules skipped: %v\n", err)
		}
	}
	if cur.GoAPI, err = goAPI(cat); err != nil {
		fmt.Fprintf(e.stderr, "toolcat breaking: the catalog does not generate, GO rules skipped: %v\n", err)
	}
	diags := breaking.Run(old, cur, cfg)
	wd, _ := os.Getwd()
	in := report.Input{Diagnostics: diags, Version: toolcatVersion(), BaseDir: wd}
	for _, r := range breaking.Rules {
		in.Rules = append(in.Rules, report.RuleInfo{ID: r.ID, Category: r.Category, Purpose: r.Purpose, Severity: cfg.Severity(r.ID)})
	}
	if err := report.Write(e.stdout, f.format, in); err != nil {
		return fail(err)
	}
	if f.format == "text" && len(diags) > 0 {
		fmt.Fprintf(e.stderr, "%s\n", report.Count(diags))
	}
	if lint.MaxSeverity(diags) >= lint.Error {
		return exitFindings
	}
	return exitOK
}

// loadBreakingConfig reads the breaking section of the configuration
// named by --config, or of toolcat.yaml beside the first catalog path.
func loadBreakingConfig(path string, paths []string) (*breaking.Config, error) {
	if path != "" {
		return breaking.LoadConfig(path)
	}
	p := filepath.Join(catalogDir(paths), lint.ConfigFile)
	if _, err := os.Stat(p); err != nil {
		return breaking.DefaultConfig(), nil
	}
	return breaking.LoadConfig(p)
}

// catalogDir is the directory of the first catalog path.
func catalogDir(paths []string) string {
	dir := "."
	if len(paths) > 0 {
		dir = paths[0]
		if st, err := os.Stat(dir); err == nil && !st.IsDir() {
			dir = filepath.Dir(dir)
		}
	}
	return dir
}

// goAPI generates the catalog's Go code and reads each tool's exported
// API from it.
func goAPI(cat *catalog.Catalog) (map[string]breaking.API, error) {
	files, err := gen.Generate(cat)
	if err != nil {
		return nil, err
	}
	return breaking.GoAPI(files, gen.ToolFiles(cat), gen.CommonFile)
}

// maxLockSize bounds a lock file read.
const maxLockSize = 256 << 20

// loadAgainst loads the earlier version: a lock file, a catalog path, or
// a git revision of the repository holding paths.
func loadAgainst(against string, paths []string) (*breaking.Side, error) {
	if st, err := os.Stat(against); err == nil {
		if !st.IsDir() {
			data, err := lint.ReadLimited(against, maxLockSize, "lock")
			if err != nil {
				return nil, err
			}
			if breaking.IsLock(data) {
				return breaking.ReadLock(against, data)
			}
		}
		cat, err := catalog.Load(against)
		if err != nil {
			return nil, fmt.Errorf("--against %s: the earlier catalog does not load:\n%w", against, err)
		}
		return &breaking.Side{Catalog: cat}, nil
	}
	files, err := gitFiles(against, paths)
	if err != nil {
		return nil, err
	}
	cat, err := catalog.LoadFiles(files...)
	if err != nil {
		return nil, fmt.Errorf("--against %s: the catalog at that revision does not load:\n%w", against, err)
	}
	return &breaking.Side{Catalog: cat}, nil
}

// revisionPattern is what a git revision may look like here: no option
// (a leading -) and no whitespace.
var revisionPattern = regexp.MustCompile(`^[^-\s][^\s]*$`)

// gitFiles reads the catalog files at paths as they were at revision rev,
// with git show, named rev:path (relative to the repository's top) so
// that findings say where they come from.
func gitFiles(rev string, paths []string) ([]catalog.File, error) {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	if !revisionPattern.MatchString(rev) {
		return nil, fmt.Errorf("--against %q: no such file or directory, and not a git revision", rev)
	}
	dir := catalogDir(paths)
	top, err := git(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("--against %s: no such file or directory, and %s is not in a git repository to read a revision from", rev, dir)
	}
	top = strings.TrimSpace(top)
	if _, err := git(top, "rev-parse", "--verify", "--quiet", rev+"^{commit}"); err != nil {
		if out, _ := git(top, "rev-parse", "--is-shallow-repository"); strings.TrimSpace(out) == "true" {
			return nil, fmt.Errorf("--against %s: unknown git revision, and this clone is shallow: fetch the history first (git fetch --unshallow, or fetch-depth: 0 in actions/checkout)", rev)
		}
		return nil, fmt.Errorf("--against %s: unknown git revision, and no such file or directory; name a branch, tag or commit, a catalog directory, or a lock file", rev)
	}
	realTop, _ := filepath.EvalSymlinks(top)
	var files []catalog.File
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			abs = r
		}
		rel, err := filepath.Rel(realTop, abs)
		if err != nil || strings.HasPrefix(rel, "..") {
			return nil, fmt.Errorf("%s is outside the git repository at %s", p, top)
		}
		rel = filepath.ToSlash(rel)
		spec := rev + ":" + rel
		if rel == "." {
			spec = rev + ":" // the top of the tree
		}
		typ, err := git(top, "cat-file", "-t", spec)
		if err != nil {
			return nil, fmt.Errorf("--against %s: %s does not exist at that revision", rev, rel)
		}
		names := []string{rel}
		if strings.TrimSpace(typ) == "tree" {
			out, err := git(top, "ls-tree", "--name-only", "-z", spec)
			if err != nil {
				return nil, err
			}
			names = nil
			for _, n := range strings.Split(strings.TrimRight(out, "\x00"), "\x00") {
				if catalogFile(n) {
					names = append(names, pathJoin(rel, n))
				}
			}
			if len(names) == 0 {
				return nil, fmt.Errorf("--against %s: no catalog files in %s at that revision", rev, rel)
			}
		}
		for _, n := range names {
			data, err := git(top, "show", rev+":"+n)
			if err != nil {
				return nil, fmt.Errorf("--against %s: reading %s: %w", rev, n, err)
			}
			files = append(files, catalog.File{Name: rev + ":" + n, Data: []byte(data)})
		}
	}
	return files, nil
}

func pathJoin(dir, name string) string {
	if dir == "." || dir == "" {
		return name
	}
	return dir + "/" + name
}

// catalogFile reports whether a directory entry is read as part of a
// catalog, as catalog.Load decides for a directory.
func catalogFile(name string) bool {
	if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || slices.Contains([]string{lint.ConfigFile, "toolcat.yml", breaking.LockFile}, name) {
		return false
	}
	return slices.Contains(catalog.Extensions, filepath.Ext(name))
}

// git runs git in dir and returns its standard output.
func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", errors.New(msg)
	}
	return out.String(), nil
}
