package main

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rogpeppe/go-internal/diff"
	"github.com/toolcat/toolcat/catalog"
	"github.com/toolcat/toolcat/gen"
)

const genDoc = `
Compile a catalog into typed Go code in the output directory (default:
the current one, as go generate runs it):

  <tool>_gen.go                 args and result types, the tool's interface,
                                error constructors, metadata, validator
  toolcat_gen.go                Tools, NewRegistry, RegisterTools, Metas
  toolcat_conformance_test.go   the conformance test
  <tool>.go                     your implementation: scaffolded once, never
                                rewritten; methods the interface gains later
                                are appended as stubs
  conformance_tools_test.go     the implementations the conformance test uses
                                (scaffolded once)

Generated files no longer produced are removed (gen keeps a manifest,
.toolcat.manifest); implementation files of removed tools are kept and
reported. With --check nothing is written: gen prints a diff of what it
would change and exits 1 if anything would.

Files are written while the package renders, into a hidden staging
directory of the output directory (.toolcat-gen-*), and renamed into
place once every check has passed; an error or an interrupt removes it.

A tool whose catalog entry did not change since the last run keeps its
file without rendering it again: gen keeps the key of each file it wrote
in the user's cache directory. A run whose inputs (the catalog, the
output directory, go.mod, the flags, this build of toolcat) are what the
last run left prints what that run said the next one would and stops.
--cache=false, or --check, renders every file.

With --split=category every category of the catalog becomes a package
of its own, in a subdirectory of the output directory named after it
(lower case, ASCII letters and digits only: Data-Store gives datastore;
a Go keyword gets "tools" appended: type gives typetools), with the
files above; tools without a category go to uncategorized/. The output
directory then holds only toolcat_gen.go: Tools with one field per
package, NewRegistry and RegisterTools registering every package's
tools, and Metas. The packages compile in parallel, each with a
fraction of the memory of one large package. The output directory must
be in a Go module (gen imports the packages by the path its go.mod
gives). A category that disappears takes its generated files with it;
implementation files stay and are reported. Switching an existing
package to --split: gen stops and names where each implementation file
goes, until you have moved them.

Use it from go generate:

  //go:generate go tool toolcat gen ./catalog`

type genFlags struct {
	out   string
	check bool
	cache bool
	// validators is auto, code or data (see gen.WithValidators).
	validators string
	split      string
}

// The values of --split.
const (
	splitNone     = "none"
	splitCategory = "category"
)

// manifestFile lists the files gen wrote, so that it can remove the ones
// it no longer generates and name the implementation files it scaffolded.
const manifestFile = ".toolcat.manifest"

func runGen(e *env, args []string) int {
	var f genFlags
	fs := newFlags(e, "gen", "[catalog paths]", genDoc)
	fs.StringVar(&f.out, "out", ".", "directory of the generated Go package")
	fs.BoolVar(&f.check, "check", false, "write nothing; print a diff and exit 1 if the output is stale")
	fs.BoolVar(&f.cache, "cache", true, "reuse the files of tools unchanged since the last run (never with --check)")
	fs.StringVar(&f.validators, "validators", "auto", "argument validators: code, data (static descriptors, fast to compile), or auto (data above 300 tools)")
	fs.StringVar(&f.split, "split", splitNone, "none: one package; category: one package per category, in subdirectories, and a root package that combines them")
	if code := parse(e, fs, args); code >= 0 {
		return code
	}
	mode, err := gen.ParseValidatorMode(f.validators)
	if err != nil {
		fmt.Fprintf(e.stderr, "toolcat gen: %v\n", err)
		return exitUsage
	}
	if f.split != splitNone && f.split != splitCategory {
		fmt.Fprintf(e.stderr, "toolcat gen: --split=%s: want none or category\n", f.split)
		return exitUsage
	}
	var stamp *genStamp
	if f.cache && !f.check {
		if stamp = openGenStamp(f, fs.Args()); stamp != nil {
			if stamp.replay(e) {
				return exitOK
			}
			e = stamp.record(e)
		}
	}
	cat, ok := loadCatalog(e, "gen", "text", fs.Args())
	if !ok {
		return exitUsage
	}
	// The files staged and not put in place go, whatever happens.
	ss := &stagers{}
	defer func() {
		if err := ss.discardAll(); err != nil {
			fmt.Fprintf(e.stderr, "toolcat gen: %v\n", err)
		}
	}()
	defer onInterrupt(func() { ss.discardAll() })()
	plans, err := planAll(cat, f, ss, gen.WithValidators(mode.Resolve(len(cat.Tools))))
	if err != nil {
		fmt.Fprintf(e.stderr, "toolcat gen: %v\n", err)
		return exitUsage
	}
	for _, p := range plans {
		for _, w := range p.warnings {
			fmt.Fprintf(e.stderr, "toolcat gen: %s\n", w)
		}
	}
	if f.check {
		stale := false
		for _, p := range plans {
			if !p.empty() {
				stale = true
				p.printDiff(e)
			}
		}
		if !stale {
			return exitOK
		}
		fmt.Fprintf(e.stderr, "toolcat gen: %s is stale: run toolcat gen\n", f.out)
		return exitFindings
	}
	for _, p := range plans {
		if err := p.apply(); err != nil {
			fmt.Fprintf(e.stderr, "toolcat gen: %v\n", err)
			return exitUsage
		}
		if p.cache != nil {
			if err := p.cache.save(); err != nil {
				// The files are written; the next run renders them all.
				fmt.Fprintf(e.stderr, "toolcat gen: saving the cache: %v\n", err)
			}
		}
	}
	for _, p := range plans {
		for _, line := range p.summary() {
			fmt.Fprintln(e.stdout, line)
		}
	}
	if hint := moduleHint(f.out); hint != "" {
		fmt.Fprintln(e.stderr, "toolcat gen: "+hint)
		if stamp != nil {
			stamp.hint = "toolcat gen: " + hint + "\n"
		}
	}
	if stamp != nil {
		// The staging directories go first: the stamp is of the output
		// directory as the run leaves it.
		if err := ss.discardAll(); err != nil {
			fmt.Fprintf(e.stderr, "toolcat gen: %v\n", err)
			return exitOK
		}
		stamp.done(plans)
	}
	return exitOK
}

// moduleHint says what the go.mod of dir lacks for the generated code to
// build: a direct requirement of toolcat's module, whose runtime and
// conformance packages it imports (go get -tool and go mod edit -tool
// leave it indirect until go mod tidy, and go build refuses until then).
// It returns "" when dir is in no module (gen works without one) or its
// go.mod has what is needed.
func moduleHint(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for d := abs; ; d = filepath.Dir(d) {
		data, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil {
			mod, err := modulePathOf(data)
			if err != nil || mod == modulePath {
				return ""
			}
			switch req, indirect := requires(data, modulePath); {
			case !req:
				return fmt.Sprintf("%s does not require %s, which the generated code imports: run go mod tidy before go build",
					filepath.Join(d, "go.mod"), modulePath)
			case indirect:
				return fmt.Sprintf("%s requires %s as indirect, but the generated code imports it: run go mod tidy before go build",
					filepath.Join(d, "go.mod"), modulePath)
			}
			return ""
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// requires reports whether the go.mod text gomod requires module path,
// in a require line or block, and whether it says the requirement is
// indirect.
func requires(gomod []byte, path string) (req, indirect bool) {
	block := false
	for _, line := range strings.Split(string(gomod), "\n") {
		comment := ""
		if i := strings.Index(line, "//"); i >= 0 {
			line, comment = line[:i], line[i+2:]
		}
		f := strings.Fields(line)
		switch {
		case len(f) == 0:
		case block && f[0] == ")":
			block = false
		case block && f[0] == path, !block && f[0] == "require" && len(f) >= 2 && f[1] == path:
			return true, strings.TrimSpace(comment) == "indirect"
		case f[0] == "require" && len(f) >= 2 && f[1] == "(":
			block = true
		}
	}
	return false, false
}

// planAll plans every change gen makes: to the output directory and, with
// --split=category, to the directory of each category's package. Unless
// f.check, it starts staging the files of each package with ss (see
// stager), which the caller discards once it has applied the plans or
// given up.
func planAll(cat *catalog.Catalog, f genFlags, ss *stagers, extra ...gen.Option) ([]*genPlan, error) {
	open := func(dir string) (*genCache, *stager) {
		if f.check {
			return nil, nil
		}
		st := ss.open(dir)
		if f.cache {
			return openGenCache(dir), st
		}
		return nil, st
	}
	if f.split == splitCategory {
		return planSplit(cat, f.out, open, extra...)
	}
	cache, st := open(f.out)
	p, err := planPackage(cat, f.out, cache, st, nil, extra)
	if err != nil {
		return nil, err
	}
	// Packages of an earlier --split=category run are no longer generated.
	gone, err := planGonePackages(f.out, p.oldMan, nil)
	if err != nil {
		return nil, err
	}
	return append([]*genPlan{p}, gone...), nil
}

// planPackage generates the package of cat's tools in dir, with the
// generator options extra, cache and st (nil: none), and plans its
// changes (see planDir for moved).
func planPackage(cat *catalog.Catalog, dir string, cache *genCache, st *stager, moved map[string]string, extra []gen.Option) (*genPlan, error) {
	opts := append([]gen.Option{gen.RelativeTo(dir)}, extra...)
	if cache != nil {
		opts = append(opts, gen.WithCache(cache))
	}
	if st != nil {
		opts = append(opts, gen.OnFile(st.stage))
	}
	// The scaffolds first: they are quick to make, and the stager
	// writes them while the generated files render.
	var scaffolds []gen.Scaffold
	opts = append(opts, gen.OnScaffolds(func(s []gen.Scaffold) {
		scaffolds = s
		for _, s := range scaffolds {
			st.stageNew(s.File, s.Data)
		}
	}))
	files, err := gen.Generate(cat, opts...)
	if err != nil {
		return nil, err
	}
	p, err := planDir(cat, dir, files, scaffolds, cache, moved)
	if err != nil {
		return nil, err
	}
	p.stager = st
	return p, nil
}

// genPlan is every change gen makes to the output directory.
type genPlan struct {
	dir      string
	writes   []fileChange // generated files that are new or changed
	creates  []fileChange // scaffolds that do not exist yet
	appends  []fileChange // implementation files that gain stubs
	removes  []string     // generated files no longer generated
	manifest []byte
	oldMan   []byte
	warnings []string
	added    map[string][]string // file → methods appended
	cache    *genCache           // the directory's cache; nil: none
	stager   *stager             // the files staged for the plan; nil: none
	// gone: the directory is a package no longer generated; apply removes
	// its manifest, and the directory once empty.
	gone bool
}

type fileChange struct {
	name     string
	old, new []byte
}

func (p *genPlan) empty() bool {
	return len(p.writes)+len(p.creates)+len(p.appends)+len(p.removes) == 0 && bytes.Equal(p.manifest, p.oldMan)
}

// planDir plans the changes to the package in dir: the generated files
// files and the scaffolds of cat's tools. moved, when not nil, names the
// directory each tool of the whole catalog now lives in, for tools whose
// implementation stays behind in dir.
func planDir(cat *catalog.Catalog, dir string, files map[string][]byte, scaffolds []gen.Scaffold, cache *genCache, moved map[string]string) (*genPlan, error) {
	p := &genPlan{dir: dir, added: map[string][]string{}, cache: cache}
	oldGen, oldScaffolds := readManifest(filepath.Join(dir, manifestFile), &p.oldMan)

	// Generated files: write what changed.
	for _, name := range slices.Sorted(maps.Keys(files)) {
		old, err := cache.read(dir, name)
		if err != nil && !os.IsNotExist(err) {
			return nil, err
		}
		if err == nil && !isGenerated(old) {
			return nil, fmt.Errorf("%s exists and was not generated by toolcat; rename or move it", filepath.Join(dir, name))
		}
		if !bytes.Equal(old, files[name]) {
			p.writes = append(p.writes, fileChange{name: name, old: old, new: files[name]})
		}
	}
	// Generated before, not now: remove, if still generated.
	for _, name := range oldGen {
		if _, ok := files[name]; ok {
			continue
		}
		if old, err := os.ReadFile(filepath.Join(dir, name)); err == nil && isGenerated(old) {
			p.removes = append(p.removes, name)
		}
	}
	// User files: find the implementations already written.
	user, err := userFiles(dir, files)
	if err != nil {
		return nil, err
	}
	impls, err := gen.FindImplementations(user)
	if err != nil {
		return nil, fmt.Errorf("reading the implementations: %w", err)
	}
	tools := map[string]bool{}
	scaffolded := map[string]string{} // file → tool
	for _, s := range scaffolds {
		tools[s.Tool] = true
		if s.Tool != "" {
			scaffolded[s.File] = s.Tool
		}
		impl, found := impls[s.Iface]
		for _, old := range s.Renamed { // written before a rename: kept
			if !found {
				impl, found = impls[old]
			}
		}
		if s.Tool == "" || !found {
			if _, exists := user[s.File]; exists {
				if s.Tool != "" {
					p.warnings = append(p.warnings, fmt.Sprintf("%s exists but declares no var _ %s = (*%s)(nil); it is left alone", filepath.Join(dir, s.File), s.Iface, s.Impl))
				}
				continue
			}
			p.creates = append(p.creates, fileChange{name: s.File, new: s.Data})
			continue
		}
		var missing []gen.Method
		for _, m := range s.Methods {
			if !impl.Methods[m.Name] {
				missing = append(missing, m)
				p.added[impl.File] = append(p.added[impl.File], impl.Type+"."+m.Name)
			}
		}
		if len(missing) == 0 {
			continue
		}
		recv := impl.Receiver
		if recv == "" {
			recv = "t *" + impl.Type
		} else if !strings.Contains(recv, " ") {
			recv = "t " + recv
		}
		src := user[impl.File]
		out, err := gen.AppendMethods(src, missing, recv)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", impl.File, err)
		}
		p.appends = append(p.appends, fileChange{name: impl.File, old: src, new: out})
	}
	renamed := map[string]bool{} // old names of renamed tools, whose files stay in use
	for _, t := range cat.Tools {
		for _, from := range t.RenamedFrom {
			renamed[from] = true
		}
	}
	for _, s := range oldScaffolds {
		if !tools[s[1]] && !renamed[s[1]] {
			if _, exists := user[s[0]]; !exists {
				continue
			}
			if to, ok := moved[s[1]]; ok {
				p.warnings = append(p.warnings, fmt.Sprintf("tool %s moved to the package in %s; its implementation %s is kept: move its code there (a stub was scaffolded), then delete it", s[1], to, filepath.Join(dir, s[0])))
				continue
			}
			{
				p.warnings = append(p.warnings, fmt.Sprintf("tool %s is no longer in the catalog; its implementation %s is kept: delete it, or move its code, when you are done with it", s[1], filepath.Join(dir, s[0])))
			}
		}
	}
	p.manifest = makeManifest(files, scaffolded)
	return p, nil
}

func (p *genPlan) printDiff(e *env) {
	show := func(name string, old, new []byte) {
		e.stdout.Write(diff.Diff(filepath.Join(p.dir, name)+" (on disk)", old, filepath.Join(p.dir, name)+" (generated)", new))
	}
	for _, c := range p.writes {
		show(c.name, c.old, c.new)
	}
	for _, c := range p.creates {
		show(c.name, nil, c.new)
	}
	for _, c := range p.appends {
		show(c.name, c.old, c.new)
	}
	for _, name := range p.removes {
		old, _ := os.ReadFile(filepath.Join(p.dir, name))
		show(name, old, nil)
	}
}

func (p *genPlan) apply() error {
	if !p.gone {
		if err := os.MkdirAll(p.dir, 0o755); err != nil {
			return err
		}
	}
	for _, group := range [][]fileChange{p.writes, p.creates, p.appends} {
		for _, c := range group {
			if err := p.write(c.name, c.new); err != nil {
				return err
			}
		}
	}
	for _, name := range p.removes {
		if err := os.Remove(filepath.Join(p.dir, name)); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	if p.gone {
		if err := os.Remove(filepath.Join(p.dir, manifestFile)); err != nil && !os.IsNotExist(err) {
			return err
		}
		os.Remove(p.dir) // only once empty: the user's files stay
		return nil
	}
	if !bytes.Equal(p.manifest, p.oldMan) {
		return writeAtomic(filepath.Join(p.dir, manifestFile), p.manifest)
	}
	return nil
}

func (p *genPlan) summary() []string {
	var out []string
	for _, c := range p.writes {
		out = append(out, "wrote "+filepath.Join(p.dir, c.name))
	}
	for _, c := range p.creates {
		out = append(out, "created "+filepath.Join(p.dir, c.name))
	}
	for _, c := range p.appends {
		out = append(out, fmt.Sprintf("added %s to %s", strings.Join(p.added[c.name], ", "), filepath.Join(p.dir, c.name)))
	}
	for _, name := range p.removes {
		out = append(out, "removed "+filepath.Join(p.dir, name))
	}
	if p.gone {
		out = append(out, "removed "+filepath.Join(p.dir, manifestFile))
	}
	return out
}

// write writes data as the file called name of the plan's directory:
// the file staged for it when it holds data, otherwise through
// writeAtomic.
func (p *genPlan) write(name string, data []byte) error {
	target := filepath.Join(p.dir, name)
	if tmp, ok := p.stager.take(name, data); ok {
		if err := os.Rename(tmp, target); err == nil {
			return nil
		}
		os.Remove(tmp)
	}
	return writeAtomic(target, data)
}

// writeAtomic writes through a temporary file in the same directory and a
// rename, so a reader never sees half a file.
func writeAtomic(name string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := fill(tmp, data); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}

// fill writes data to the new file f, makes it readable by all whatever
// the umask (0644, as gofmt'd sources are), and closes it.
func fill(f *os.File, data []byte) error {
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func isGenerated(src []byte) bool {
	return bytes.HasPrefix(src, []byte(gen.Header+"\n"))
}

// userFiles reads the .go files of dir that toolcat does not generate.
func userFiles(dir string, generated map[string][]byte) (map[string][]byte, error) {
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return map[string][]byte{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") {
			continue
		}
		if _, ok := generated[name]; ok {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		if isGenerated(src) {
			continue
		}
		out[name] = src
	}
	return out, nil
}

// readManifest returns the generated files and the (file, tool) pairs of
// scaffolds listed in a manifest; a missing manifest lists nothing.
func readManifest(name string, raw *[]byte) (generated []string, scaffolds [][2]string) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, nil
	}
	*raw = data
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) == 2 && fields[0] == "generated":
			generated = append(generated, fields[1])
		case len(fields) == 3 && fields[0] == "scaffold":
			scaffolds = append(scaffolds, [2]string{fields[1], fields[2]})
		}
	}
	return generated, scaffolds
}

func makeManifest(files map[string][]byte, scaffolds map[string]string) []byte {
	var b bytes.Buffer
	b.WriteString("# Files toolcat gen manages in this directory. Do not edit.\n")
	for _, name := range slices.Sorted(maps.Keys(files)) {
		fmt.Fprintf(&b, "generated %s\n", name)
	}
	for _, name := range slices.Sorted(maps.Keys(scaffolds)) {
		fmt.Fprintf(&b, "scaffold %s %s\n", name, scaffolds[name])
	}
	return b.Bytes()
}
