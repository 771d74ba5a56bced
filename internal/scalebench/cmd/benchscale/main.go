// Command benchscale measures toolcat on synthetic catalogs of thousands
// of tools and compares its generator with oapi-codegen; `make
// bench-scale` runs it. docs/gen.md ("Scale") says what each figure means.
//
//	go run ./cmd/benchscale [-sizes 1000,3000,10000] [-big] [-md FILE]
//
// Every measured step is a child process: its wall time, and its peak
// resident set from the rusage wait4 returns. Tables are printed in
// markdown on stdout and, with -md (or $BENCH_SCALE_OUT), written to a
// file.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/internal/scalebench"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Subcommands run in a child process, so that what they measure is theirs
// alone: "load DIR" (catalog.Load) and "synth N DIR" (scalebench.Synth).
func subcommand(args []string, stderr io.Writer) (int, bool) {
	if len(args) == 0 || (args[0] != "load" && args[0] != "synth") {
		return 0, false
	}
	var err error
	switch {
	case args[0] == "load" && len(args) == 2:
		var cat *catalog.Catalog
		if cat, err = catalog.Load(args[1]); err == nil && len(cat.Tools) == 0 {
			err = fmt.Errorf("no tools")
		}
	case args[0] == "synth" && len(args) == 3:
		var n int
		if n, err = strconv.Atoi(args[1]); err == nil {
			_, err = scalebench.Synth(n, args[2])
		}
	default:
		err = fmt.Errorf("usage: benchscale load DIR | benchscale synth N DIR")
	}
	if err != nil {
		fmt.Fprintf(stderr, "benchscale %s: %v\n", args[0], err)
		return 1, true
	}
	return 0, true
}

type flags struct {
	sizes     []int
	runs      int
	genN      int
	genRuns   int
	buildRuns int
	big       bool
	bigN      int
	bigSplit  bool
	md        string
	work      string
	keep      bool
	parts     []string
}

func run(args []string, stdout, stderr io.Writer) int {
	if code, ok := subcommand(args, stderr); ok {
		return code
	}
	var f flags
	fs := flag.NewFlagSet("benchscale", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sizes := fs.String("sizes", "1000,3000,10000", "catalog sizes for lint, load and gen (the first is the base of the ratios)")
	fs.IntVar(&f.runs, "runs", 3, "runs of lint, load and gen at each size (the median is reported)")
	fs.IntVar(&f.genN, "gen-n", 1000, "tools in the toolcat gen / oapi-codegen comparison and its builds")
	fs.IntVar(&f.genRuns, "gen-runs", 5, "interleaved runs of each generator")
	fs.IntVar(&f.buildRuns, "build-runs", 3, "interleaved cold builds of each generated package")
	fs.BoolVar(&f.big, "big", os.Getenv("BIG") == "1", "also build and run the conformance test of a -big-n catalog's package (default: $BIG=1)")
	fs.IntVar(&f.bigN, "big-n", 5000, "tools in the -big measurement")
	fs.BoolVar(&f.bigSplit, "big-split", true, "generate the -big catalog with --split=category (one package per category)")
	fs.StringVar(&f.md, "md", os.Getenv("BENCH_SCALE_OUT"), "also write the tables as markdown to this file (default: $BENCH_SCALE_OUT)")
	fs.StringVar(&f.work, "work", "", "working directory (default: a temporary one, removed at the end)")
	fs.BoolVar(&f.keep, "keep", false, "keep the working directory")
	parts := fs.String("parts", "lint,gen,build", "which measurements: lint (lint, load and gen by size), gen (toolcat gen vs oapi-codegen), build (go build of both); \"\" for none (with -big)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "benchscale: unexpected arguments %q\n", fs.Args())
		return 2
	}
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			fmt.Fprintf(stderr, "benchscale: -sizes: %q is not a number of tools\n", s)
			return 2
		}
		f.sizes = append(f.sizes, n)
	}
	for _, p := range strings.Split(*parts, ",") {
		if p = strings.TrimSpace(p); p == "" && strings.TrimSpace(*parts) == "" {
			continue // -parts "": none, as with -big alone
		}
		if !slices.Contains([]string{"lint", "gen", "build"}, p) {
			fmt.Fprintf(stderr, "benchscale: -parts: unknown part %q (lint, gen, build)\n", p)
			return 2
		}
		f.parts = append(f.parts, p)
	}
	if f.runs < 1 || f.genRuns < 1 || f.buildRuns < 1 || f.genN < 1 || f.bigN < 1 {
		fmt.Fprintln(stderr, "benchscale: runs and sizes must be at least 1")
		return 2
	}
	b := &bench{flags: f, stdout: stdout, stderr: stderr}
	if err := b.run(); err != nil {
		fmt.Fprintln(stderr, "benchscale:", err)
		return 1
	}
	return 0
}

// flush prints the tables written since the last flush, and writes all of
// them to the -md file, so that a long run shows each part as it ends.
func (b *bench) flush() error {
	all := b.out.String()
	fmt.Fprint(b.stdout, all[b.flushed:])
	b.flushed = len(all)
	if b.md == "" {
		return nil
	}
	return os.WriteFile(b.md, []byte(all), 0o644)
}

type bench struct {
	flags
	stdout       io.Writer
	stderr       io.Writer
	out          strings.Builder
	flushed      int
	root, module string
	self         string
	bin          *scalebench.Binaries
	cache        string // the warmed build cache copied for each cold build
	seq          int
}

func (b *bench) logf(format string, args ...any) {
	fmt.Fprintf(b.stderr, "benchscale: "+format+"\n", args...)
}

// logSample logs one measured run, so that a long run shows its figures
// before its table.
func (b *bench) logSample(what string, s scalebench.Sample) {
	b.logf("  %s: %s, %s", what, scalebench.Seconds(s.Wall), scalebench.MiB(s.MaxRSS))
}

func (b *bench) run() error {
	var err error
	if b.root, b.module, err = scalebench.Dirs(); err != nil {
		return err
	}
	if b.self, err = os.Executable(); err != nil {
		return err
	}
	if b.work == "" {
		if b.work, err = os.MkdirTemp("", "benchscale-"); err != nil {
			return err
		}
		if !b.keep {
			defer os.RemoveAll(b.work)
		}
	} else if b.work, err = filepath.Abs(b.work); err != nil {
		return err
	}
	if b.keep {
		b.logf("working directory %s", b.work)
	}
	b.logf("building toolcat and oapi-codegen")
	if b.bin, err = scalebench.BuildBinaries(b.root, b.module, filepath.Join(b.work, "bin")); err != nil {
		return err
	}
	commit, _ := exec.Command("git", "-C", b.root, "log", "-1", "--format=%h %cs").Output()
	fmt.Fprintf(&b.out, "# toolcat at scale\n\nMeasured %s, toolcat %s, %s, oapi-codegen v2.8.2.\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), strings.TrimSpace(string(commit)), goVersion())
	steps := []struct {
		on  bool
		run func() error
	}{
		{slices.Contains(b.parts, "lint"), b.bySize},
		{slices.Contains(b.parts, "gen"), b.generators},
		{slices.Contains(b.parts, "build") || b.big, b.warm},
		{slices.Contains(b.parts, "build"), b.builds},
		{b.big, b.bigPackage},
	}
	for _, s := range steps {
		if !s.on {
			continue
		}
		if err := s.run(); err != nil {
			return err
		}
		if err := b.flush(); err != nil {
			return err
		}
	}
	return nil
}

func goVersion() string {
	out, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		return "go (unknown version)"
	}
	return strings.TrimSpace(string(out))
}

// synth writes the synthetic catalog of n tools (once) and returns its
// directory.
func (b *bench) synth(n int) (string, error) {
	dir := filepath.Join(b.work, fmt.Sprintf("synth-%d", n))
	if _, err := os.Stat(filepath.Join(dir, "openapi.yaml")); err == nil {
		return dir, nil
	}
	b.logf("writing the synthetic catalog of %d tools", n)
	_, err := scalebench.Run(exec.Command(b.self, "synth", strconv.Itoa(n), dir))
	return dir, err
}

// fresh returns a new empty directory under the working directory.
func (b *bench) fresh(what string) (string, error) {
	b.seq++
	dir := filepath.Join(b.work, fmt.Sprintf("%s-%d", what, b.seq))
	return dir, os.MkdirAll(dir, 0o755)
}

// cell is one step at one size: its runs, or why it failed.
type cell struct {
	runs   scalebench.Samples
	failed string
}

func (c *cell) String() string {
	if c.failed != "" {
		return "failed"
	}
	return scalebench.Seconds(c.runs.Median())
}

// bySize measures toolcat lint, catalog.Load and toolcat gen at each
// size. A step that fails at a size (a catalog beyond a budget of
// toolcat's) is reported in the table, and the others go on.
func (b *bench) bySize() error {
	type row struct{ lint, load, gen cell }
	rows := make([]row, len(b.sizes))
	for i, n := range b.sizes {
		synth, err := b.synth(n)
		if err != nil {
			return err
		}
		cat := filepath.Join(synth, "catalog")
		steps := []struct {
			c   *cell
			ok  []int // exit codes besides 0 that succeed: lint's findings
			cmd func() (*exec.Cmd, func(), error)
		}{
			{&rows[i].lint, []int{1}, func() (*exec.Cmd, func(), error) {
				return scalebench.Command(synth, "", b.bin.Toolcat, "lint", cat), func() {}, nil
			}},
			{&rows[i].load, nil, func() (*exec.Cmd, func(), error) { return exec.Command(b.self, "load", cat), func() {}, nil }},
			{&rows[i].gen, nil, func() (*exec.Cmd, func(), error) {
				out, err := b.fresh("gen")
				return b.bin.GenToolcat(synth, out), func() { os.RemoveAll(out) }, err
			}},
		}
		for r := range b.runs {
			b.logf("%d tools: lint, load, gen (run %d of %d)", n, r+1, b.runs)
			for _, st := range steps {
				if st.c.failed != "" {
					continue
				}
				cmd, done, err := st.cmd()
				if err != nil {
					return err
				}
				s, err := scalebench.Run(cmd, st.ok...)
				done()
				if err != nil {
					st.c.failed = err.Error()
					b.logf("%v", err)
					continue
				}
				st.c.runs = append(st.c.runs, s)
				b.logSample(filepath.Base(cmd.Args[0])+" "+cmd.Args[1], s)
			}
		}
	}
	w := &b.out
	fmt.Fprintf(w, "\n## Lint, load and gen by catalog size\n\nMedian wall time of %d runs; peak RSS is the largest of the runs. `toolcat lint`, `catalog.Load` alone, `toolcat gen --cache=false` into an empty directory; the catalog in files of %d tools.\n\n", b.runs, scalebench.ToolsPerFile)
	fmt.Fprintln(w, "| tools | lint | lint RSS | load | load RSS | gen | gen RSS |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|---:|")
	var failures []string
	for i, n := range b.sizes {
		r := &rows[i]
		fmt.Fprintf(w, "| %d | %s | %s | %s | %s | %s | %s |\n", n,
			&r.lint, scalebench.MiB(r.lint.runs.MaxRSS()), &r.load, scalebench.MiB(r.load.runs.MaxRSS()),
			&r.gen, scalebench.MiB(r.gen.runs.MaxRSS()))
		for _, c := range []struct {
			name string
			c    *cell
		}{{"lint", &r.lint}, {"load", &r.load}, {"gen", &r.gen}} {
			if c.c.failed != "" {
				failures = append(failures, fmt.Sprintf("- %s of %d tools failed: %s", c.name, n, firstLines(c.c.failed, 3)))
			}
		}
	}
	ratio := func(a, base *cell) string {
		if a.failed != "" || base.failed != "" {
			return "-"
		}
		return scalebench.Ratio(a.runs.Median(), base.runs.Median())
	}
	for i := 1; i < len(b.sizes); i++ {
		r, base := &rows[i], &rows[0]
		fmt.Fprintf(w, "| ratio %d/%d | %s | | %s | | %s | |\n", b.sizes[i], b.sizes[0],
			ratio(&r.lint, &base.lint), ratio(&r.load, &base.load), ratio(&r.gen, &base.gen))
	}
	if len(failures) > 0 {
		fmt.Fprintf(w, "\n%s\n", strings.Join(failures, "\n"))
	}
	return nil
}

// firstLines returns up to n lines of s, joined by " / ".
func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[:min(n, len(lines))], " / ")
}

// contender is one generator of the comparison.
type contender struct {
	name string
	gen  func(synth, out string) (*exec.Cmd, error)
}

func (b *bench) contenders() []contender {
	return []contender{
		{"toolcat gen", func(synth, out string) (*exec.Cmd, error) { return b.bin.GenToolcat(synth, out), nil }},
		{"oapi-codegen models+client", func(synth, out string) (*exec.Cmd, error) {
			return b.bin.GenOapi(synth, out, scalebench.ModelsClient)
		}},
		{"oapi-codegen models", func(synth, out string) (*exec.Cmd, error) {
			return b.bin.GenOapi(synth, out, scalebench.Models)
		}},
	}
}

// generators compares toolcat gen with oapi-codegen on genN tools, each
// into an empty directory, interleaved. After each run of toolcat gen it
// measures regenerations of its output with nothing changed (see
// regenerate).
func (b *bench) generators() error {
	synth, err := b.synth(b.genN)
	if err != nil {
		return err
	}
	cs := b.contenders()
	samples := make([]scalebench.Samples, len(cs))
	size := make([]outputSize, len(cs))
	var regenWrite, regenCache, regenStamp scalebench.Samples
	loadStart := loadAverage()
	for r := range b.genRuns {
		b.logf("%d tools: toolcat gen and oapi-codegen (run %d of %d)", b.genN, r+1, b.genRuns)
		for i, c := range cs {
			out, err := b.fresh("cmp")
			if err != nil {
				return err
			}
			cmd, err := c.gen(synth, out)
			if err != nil {
				return err
			}
			s, err := scalebench.Run(cmd)
			b.logSample(c.name, s)
			if err != nil {
				return err
			}
			samples[i] = append(samples[i], s)
			if size[i], err = goSize(out); err != nil {
				return err
			}
			if i == 0 {
				w, c, st, err := b.regenerate(synth, out)
				if err != nil {
					return err
				}
				regenWrite, regenCache, regenStamp = append(regenWrite, w), append(regenCache, c), append(regenStamp, st)
			}
			os.RemoveAll(out)
		}
	}
	loadEnd := loadAverage()
	w := &b.out
	fmt.Fprintf(w, "\n## Generating %d tools: toolcat gen and oapi-codegen\n\nInto an empty directory; runs interleaved (toolcat, oapi-codegen models+client, models, and again), %d of each; median wall time, median CPU time (user + system, the process and the children it waited for). The ratios are to oapi-codegen models+client. Go output counts every `.go` file written (toolcat's includes the scaffolded implementations and the conformance test). Load average %s at the start, %s at the end.\n\n", b.genN, b.genRuns, loadStart, loadEnd)
	fmt.Fprintln(w, "| generator | wall | ratio | CPU user + sys | CPU ratio | peak RSS | Go files | Go output |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|")
	_, _, baseCPU := userSys(samples[1])
	for i, c := range cs {
		u, k, cpu := userSys(samples[i])
		fmt.Fprintf(w, "| %s | %s | %s | %s + %s | %s | %s | %d | %.1f MiB |\n", c.name, scalebench.Seconds(samples[i].Median()),
			scalebench.Ratio(samples[i].Median(), samples[1].Median()), scalebench.Seconds(u), scalebench.Seconds(k),
			scalebench.Ratio(cpu, baseCPU), scalebench.MiB(samples[i].MaxRSS()), size[i].files, float64(size[i].bytes)/(1<<20))
	}
	fmt.Fprintf(w, "\n`toolcat gen` again on each output of the row above, nothing changed, with its cache (its files 2 s old, then one removed and written again): %d runs of each, median.\n\n", b.genRuns)
	fmt.Fprintln(w, "| regeneration | wall | CPU user + sys | peak RSS |")
	fmt.Fprintln(w, "|---|---:|---:|---:|")
	for _, row := range []struct {
		name string
		s    scalebench.Samples
	}{
		{"after a run that wrote one file: the stamp it kept", regenWrite},
		{"each tool's file from the cache (no stamp)", regenCache},
		{"the stamp of a run that changed nothing", regenStamp},
	} {
		u, k, _ := userSys(row.s)
		fmt.Fprintf(w, "| %s | %s | %s + %s | %s |\n", row.name, scalebench.Seconds(row.s.Median()), scalebench.Seconds(u), scalebench.Seconds(k), scalebench.MiB(row.s.MaxRSS()))
	}
	return nil
}

// regenerate runs toolcat gen with its cache on out, which toolcat gen
// --cache=false just wrote, and measures three runs that change nothing:
// after a run that wrote one file (with the stamp that run kept), with
// every tool's file from the cache (that stamp removed first), and with
// the stamp of a run that changed nothing.
func (b *bench) regenerate(synth, out string) (afterWrite, cached, stamped scalebench.Sample, err error) {
	cache, err := b.fresh("usercache")
	if err != nil {
		return
	}
	defer os.RemoveAll(cache)
	// A run that wrote files keeps a stamp only when the files it read
	// are 2 s old (docs/gen.md): the ones written just now must age.
	time.Sleep(2100 * time.Millisecond)
	files, err := filepath.Glob(filepath.Join(out, "*_gen.go"))
	if err != nil || len(files) < 2 {
		return afterWrite, cached, stamped, fmt.Errorf("%s holds %d generated files (%v)", out, len(files), err)
	}
	slices.Sort(files)
	if err = os.Remove(files[0]); err != nil {
		return
	}
	if _, err = scalebench.Run(b.bin.RegenToolcat(synth, out, cache)); err != nil {
		return
	}
	stamps, err := filepath.Glob(filepath.Join(cache, "toolcat", "gen", "*.run.json"))
	if err != nil || len(stamps) != 1 {
		return afterWrite, cached, stamped, fmt.Errorf("toolcat gen wrote %s again and kept %d stamps in %s (%v), want 1", files[0], len(stamps), cache, err)
	}
	steps := []struct {
		what string
		s    *scalebench.Sample
	}{
		{"after a run that wrote a file", &afterWrite},
		{"tools from the cache", &cached},
		{"the stamp of a run that changed nothing", &stamped},
	}
	for i, st := range steps {
		if i == 1 {
			os.Remove(stamps[0])
		}
		if *st.s, err = scalebench.Run(b.bin.RegenToolcat(synth, out, cache)); err != nil {
			return
		}
		b.logSample("toolcat gen, nothing changed, "+st.what, *st.s)
	}
	return afterWrite, cached, stamped, nil
}

// userSys returns the median user and system CPU time of s, and their sum.
func userSys(s scalebench.Samples) (user, sys, cpu time.Duration) {
	user, sys = s.MedianUserSys()
	return user, sys, user + sys
}

// loadAverage returns the system's load averages over 1, 5 and 15
// minutes, or "unknown" where /proc/loadavg is not.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " / ")
	}
	return "unknown"
}

type outputSize struct {
	files int
	bytes int64
}

func goSize(dir string) (outputSize, error) {
	var s outputSize
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".go" {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		s.files++
		s.bytes += info.Size()
		return nil
	})
	return s, err
}

// warm fills the build cache that every cold build starts from: it builds
// and tests a 20-tool package of each generator, so that the standard
// library, toolcat's runtime and conformance packages (and what the
// oapi-codegen output imports) are compiled and vetted, and only the
// measured package is not.
func (b *bench) warm() error {
	b.logf("warming the build cache with 20-tool packages")
	b.cache = filepath.Join(b.work, "gocache-warm")
	synth, err := b.synth(20)
	if err != nil {
		return err
	}
	tc := filepath.Join(b.work, "warm-toolcat")
	if err := b.bin.ToolcatProject(synth, tc, b.root); err != nil {
		return err
	}
	if _, err := scalebench.Run(scalebench.Build(tc, b.cache)); err != nil {
		return err
	}
	if _, _, err := scalebench.RunConformance(scalebench.Conformance(tc, b.cache)); err != nil {
		return err
	}
	for _, cfg := range []scalebench.OapiConfig{scalebench.ModelsClient, scalebench.Models} {
		dir := filepath.Join(b.work, "warm-oapi-"+strings.ReplaceAll(string(cfg), "+", "-"))
		if err := b.bin.OapiProject(synth, dir, b.module, cfg); err != nil {
			return err
		}
		if _, err := scalebench.Run(scalebench.Build(dir, b.cache)); err != nil {
			return err
		}
	}
	return nil
}

// coldCache returns a fresh copy of the warmed build cache.
func (b *bench) coldCache() (string, error) {
	dir, err := b.fresh("gocache")
	if err != nil {
		return "", err
	}
	return dir, scalebench.CopyDir(b.cache, dir)
}

// builds measures go build of each generator's package for genN tools,
// each from a fresh copy of the warmed cache, interleaved.
func (b *bench) builds() error {
	synth, err := b.synth(b.genN)
	if err != nil {
		return err
	}
	b.logf("%d tools: generating the packages to build", b.genN)
	projects := []struct{ name, dir string }{
		{"toolcat gen", filepath.Join(b.work, "build-toolcat")},
		{"oapi-codegen models+client", filepath.Join(b.work, "build-oapi-models-client")},
		{"oapi-codegen models", filepath.Join(b.work, "build-oapi-models")},
	}
	if err := b.bin.ToolcatProject(synth, projects[0].dir, b.root); err != nil {
		return err
	}
	if err := b.bin.OapiProject(synth, projects[1].dir, b.module, scalebench.ModelsClient); err != nil {
		return err
	}
	if err := b.bin.OapiProject(synth, projects[2].dir, b.module, scalebench.Models); err != nil {
		return err
	}
	samples := make([]scalebench.Samples, len(projects))
	for r := range b.buildRuns {
		for i, p := range projects {
			b.logf("%d tools: go build of the %s package (run %d of %d)", b.genN, p.name, r+1, b.buildRuns)
			cache, err := b.coldCache()
			if err != nil {
				return err
			}
			s, err := scalebench.Run(scalebench.Build(p.dir, cache))
			b.logSample("go build", s)
			if err != nil {
				return err
			}
			samples[i] = append(samples[i], s)
			os.RemoveAll(cache)
		}
	}
	w := &b.out
	fmt.Fprintf(w, "\n## Building the generated package of %d tools\n\n`go build ./...` of a module holding only the generated package (toolcat's with its scaffolded implementations). Each build starts from a fresh copy of a build cache warmed with a 20-tool package of the same generator: the standard library and toolcat's runtime are compiled, the measured package is not. Runs interleaved, %d of each; median wall time; peak RSS of the largest process (the compiler). The ratio is to oapi-codegen models+client.\n\n", b.genN, b.buildRuns)
	fmt.Fprintln(w, "| package | go build | ratio | peak RSS |")
	fmt.Fprintln(w, "|---|---:|---:|---:|")
	for i, p := range projects {
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", p.name, scalebench.Seconds(samples[i].Median()),
			scalebench.Ratio(samples[i].Median(), samples[1].Median()), scalebench.MiB(samples[i].MaxRSS()))
	}
	return nil
}

// bigPackage builds toolcat's package of bigN tools and runs its
// conformance test, once each, from fresh copies of the warmed cache.
func (b *bench) bigPackage() error {
	synth, err := b.synth(b.bigN)
	if err != nil {
		return err
	}
	b.logf("%d tools: generating the package", b.bigN)
	dir := filepath.Join(b.work, "big-toolcat")
	var genFlags []string
	if b.bigSplit {
		genFlags = append(genFlags, "--split=category")
	}
	if err := b.bin.ToolcatProject(synth, dir, b.root, genFlags...); err != nil {
		return err
	}
	cache, err := b.coldCache()
	if err != nil {
		return err
	}
	b.logf("%d tools: go build", b.bigN)
	build, err := scalebench.Run(scalebench.Build(dir, cache))
	b.logSample("go build", build)
	if err != nil {
		return err
	}
	os.RemoveAll(cache)
	if cache, err = b.coldCache(); err != nil {
		return err
	}
	b.logf("%d tools: go test -run TestConformance", b.bigN)
	test, failed, err := scalebench.RunConformance(scalebench.Conformance(dir, cache))
	if err != nil {
		return err
	}
	os.RemoveAll(cache)
	w := &b.out
	layout := "one package"
	if b.bigSplit {
		layout = "gen --split=category: a package per category"
	}
	fmt.Fprintf(w, "\n## toolcat's package of %d tools (%s)\n\nOne run each, from a fresh copy of the warmed build cache (as above). The conformance test compiles the package and its test files, vets and links them, and runs TestConformance.\n\n", b.bigN, layout)
	fmt.Fprintln(w, "| step | wall | peak RSS |")
	fmt.Fprintln(w, "|---|---:|---:|")
	fmt.Fprintf(w, "| go build | %s | %s |\n", scalebench.Seconds(build.Wall), scalebench.MiB(build.MaxRSS))
	note := "passes"
	if failed {
		note = "fails: the scaffolded bodies answer ErrNotImplemented"
	}
	fmt.Fprintf(w, "| go test -run TestConformance -count=1 (%s) | %s | %s |\n", note, scalebench.Seconds(test.Wall), scalebench.MiB(test.MaxRSS))
	return nil
}
