package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/gen"
)

// planSplit plans gen --split=category: one package per category in a
// subdirectory of out, and in out a root package that combines them. The
// root's manifest lists the packages, so that the package of a category
// that disappears is removed.
func planSplit(cat *catalog.Catalog, out string, open func(dir string) (*genCache, *stager), extra ...gen.Option) ([]*genPlan, error) {
	parts, err := gen.SplitByCategory(cat)
	if err != nil {
		return nil, err
	}
	imp, err := importPathOf(out)
	if err != nil {
		return nil, err
	}
	rootFiles, err := gen.GenerateRoot(cat, imp, parts)
	if err != nil {
		return nil, err
	}
	moved := map[string]string{} // tool → the directory of its package
	keep := map[string]bool{}
	for _, p := range parts {
		keep[p.Package] = true
		for _, t := range p.Catalog.Tools {
			moved[t.Name] = filepath.Join(out, p.Package)
		}
	}
	if err := checkUnsplitLeftovers(out, moved); err != nil {
		return nil, err
	}
	root, err := planDir(cat, out, rootFiles, nil, nil, nil)
	if err != nil {
		return nil, err
	}
	var pkgs bytes.Buffer
	for _, p := range parts {
		fmt.Fprintf(&pkgs, "package %s\n", p.Package)
	}
	root.manifest = append(root.manifest, pkgs.Bytes()...)
	plans := []*genPlan{root}
	for _, p := range parts {
		dir := filepath.Join(out, p.Package)
		cache, st := open(dir)
		plan, err := planPackage(p.Catalog, dir, cache, st, moved, extra)
		if err != nil {
			return nil, fmt.Errorf("package %s: %w", p.Package, err)
		}
		plans = append(plans, plan)
	}
	gone, err := planGonePackages(out, root.oldMan, keep)
	if err != nil {
		return nil, err
	}
	return append(plans, gone...), nil
}

// checkUnsplitLeftovers fails when out holds the implementation files of
// an earlier run without --split: the root package no longer declares
// their interfaces, and each category's package would get a copy of its
// own, so the user moves them first.
func checkUnsplitLeftovers(out string, moved map[string]string) error {
	var raw []byte
	oldGen, oldScaffolds := readManifest(filepath.Join(out, manifestFile), &raw)
	if !slices.Contains(oldGen, gen.ConformanceFile) {
		return nil // not the manifest of one whole package
	}
	var lines []string
	for _, s := range oldScaffolds {
		src, err := os.ReadFile(filepath.Join(out, s[0]))
		if err != nil || isGenerated(src) {
			continue
		}
		if to, ok := moved[s[1]]; ok {
			lines = append(lines, fmt.Sprintf("  %s (tool %s): move it to %s and change its package clause to package %s", s[0], s[1], to, filepath.Base(to)))
		} else {
			lines = append(lines, fmt.Sprintf("  %s (tool %s, no longer in the catalog): delete it", s[0], s[1]))
		}
	}
	if src, err := os.ReadFile(filepath.Join(out, gen.ConformanceToolsFile)); err == nil && !isGenerated(src) {
		lines = append(lines, fmt.Sprintf("  %s: each package gets one of its own; move what it sets up into them, then delete it", gen.ConformanceToolsFile))
	}
	if len(lines) == 0 {
		return nil
	}
	return fmt.Errorf("%s was generated as one package; with --split=category the implementation of each tool lives in the package of its category, and these files would no longer compile:\n%s\nmove them, then run toolcat gen --split=category again", out, strings.Join(lines, "\n"))
}

// planGonePackages plans the removal of the packages the manifest raw of
// out lists (see planSplit) but keep does not: their generated files and
// manifest, and their directory once empty. Implementation files stay,
// and are reported.
func planGonePackages(out string, raw []byte, keep map[string]bool) ([]*genPlan, error) {
	var plans []*genPlan
	for _, pkg := range manifestPackages(raw) {
		if keep[pkg] || !filepath.IsLocal(pkg) || strings.ContainsAny(pkg, `/\`) {
			continue
		}
		dir := filepath.Join(out, pkg)
		p := &genPlan{dir: dir, added: map[string][]string{}, gone: true}
		oldGen, _ := readManifest(filepath.Join(dir, manifestFile), &p.oldMan)
		if p.oldMan == nil {
			continue // removed by hand
		}
		for _, name := range oldGen {
			if old, err := os.ReadFile(filepath.Join(dir, name)); err == nil && isGenerated(old) {
				p.removes = append(p.removes, name)
			}
		}
		user, err := userFiles(dir, nil)
		if err != nil {
			return nil, err
		}
		if len(user) > 0 {
			p.warnings = append(p.warnings, fmt.Sprintf("the package in %s is no longer generated (no tool of the catalog is in it); its files %s are kept: delete them, or move their code, when you are done with them", dir, strings.Join(slicesSorted(user), ", ")))
		}
		plans = append(plans, p)
	}
	return plans, nil
}

func slicesSorted(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// manifestPackages returns the packages a root manifest lists.
func manifestPackages(raw []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) == 2 && fields[0] == "package" {
			out = append(out, fields[1])
		}
	}
	return out
}

// importPathOf returns the import path of the package in dir, from the
// module path of the nearest go.mod in dir or above it.
func importPathOf(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; {
		data, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil {
			mod, err := modulePathOf(data)
			if err != nil {
				return "", fmt.Errorf("%s: %w", filepath.Join(d, "go.mod"), err)
			}
			rel, err := filepath.Rel(d, abs)
			if err != nil {
				return "", err
			}
			if rel == "." {
				return mod, nil
			}
			return path.Join(mod, filepath.ToSlash(rel)), nil
		}
		if !os.IsNotExist(err) {
			return "", err
		}
		up := filepath.Dir(d)
		if up == d {
			return "", fmt.Errorf("--split=category: %s is in no Go module (no go.mod in it or above it), so its packages cannot import each other: run go mod init first", dir)
		}
		d = up
	}
}

// modulePathOf reads the module directive of a go.mod file.
func modulePathOf(gomod []byte) (string, error) {
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, "//"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		rest, ok := strings.CutPrefix(line, "module")
		if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t' && rest[0] != '"') {
			continue
		}
		rest = strings.TrimSpace(rest)
		if strings.HasPrefix(rest, `"`) {
			if u, err := strconv.Unquote(rest); err == nil {
				rest = u
			}
		}
		if rest == "" || strings.ContainsAny(rest, " \t\"") {
			break
		}
		return rest, nil
	}
	return "", fmt.Errorf("no module directive")
}
