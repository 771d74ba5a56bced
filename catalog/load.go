package catalog

import (
	_ "embed"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"
)

//go:embed format.cue
var formatSource []byte

// formatFile names the embedded definition in CUE positions; positions in
// it are never shown to users.
const formatFile = "toolcat:format.cue"

// MaxFileSize bounds one catalog file. A catalog weighs about 2 KB a
// tool, 20 MB for ten thousand; a larger file is almost surely not a
// catalog.
const MaxFileSize = 64 << 20

// Extensions are the file extensions a catalog directory is read for.
var Extensions = []string{".cue", ".yaml", ".yml", ".json"}

// configNames are files beside a catalog that configure toolcat, or that
// toolcat writes there (the lock file of toolcat lock), and are not part
// of the catalog.
var configNames = []string{"toolcat.yaml", "toolcat.yml", "toolcat.lock.json"}

// File is a catalog file already read: its name (used in positions and to
// choose the syntax by extension) and its content.
type File struct {
	Name string
	Data []byte
}

// Load reads a catalog from paths: files, or directories whose .cue, .yaml,
// .yml and .json files are read (not recursively; toolcat.yaml, the
// configuration, and files starting with "." or "_" are skipped). Loading
// is bounded in time and memory as [LoadFiles] says.
func Load(paths ...string) (*Catalog, error) {
	names, err := catalogFiles(paths)
	if err != nil {
		return nil, err
	}
	var errs ErrorList
	files := make([]File, 0, len(names))
	for _, name := range names {
		st, err := os.Stat(name)
		if err != nil {
			return nil, err
		}
		if st.Size() > MaxFileSize {
			errs.add(Pos{File: name, Line: 1, Col: 1}, "file is %s, above the %d MiB limit of a catalog file", sizeString(st.Size()), MaxFileSize>>20)
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		files = append(files, File{Name: name, Data: data})
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return LoadFiles(files...)
}

// catalogFiles expands directories into the catalog files they hold.
func catalogFiles(paths []string) ([]string, error) {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		n := len(out)
		for _, e := range ents {
			name := e.Name()
			if e.IsDir() || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") ||
				slices.Contains(configNames, name) || !slices.Contains(Extensions, filepath.Ext(name)) {
				continue
			}
			out = append(out, filepath.Join(p, name))
		}
		if len(out) == n {
			return nil, fmt.Errorf("%s: no catalog files (%s) in the directory", p, strings.Join(Extensions, ", "))
		}
	}
	return out, nil
}

func sizeString(n int64) string {
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// LoadFiles reads a catalog from files already in memory. The returned
// error, when not nil, is an [ErrorList] with every problem found.
//
// Loading is bounded. CUE that would iterate, repeat or combine
// disjunctions beyond fixed limits is refused before it is evaluated.
// Evaluation runs within a budget of time (60 s, and 5 s more per MiB of
// catalog files) and of heap growth (1 GiB, and 128 bytes more per byte of
// catalog files). Past the budget, LoadFiles returns one error at once;
// CUE's evaluation cannot be interrupted, so it goes on in the background
// until it ends, its result dropped. A program that loads catalogs it
// does not trust should exit after such an error, as toolcat does.
func LoadFiles(files ...File) (*Catalog, error) {
	return newLoader().within(defaultBudget, files)
}

// within loads files within budget b; see [LoadFiles].
func (l *loader) within(b budget, files []File) (*Catalog, error) {
	var size int64
	for _, f := range files {
		size += int64(len(f.Data))
	}
	var cat *Catalog
	var err error
	o := b.run(size, func() { cat, err = l.finish(l.load(files)) })
	if o == nil {
		return cat, err
	}
	// The loader is still in use: only its suspect may be read.
	e := &Error{Msg: fmt.Sprintf("evaluating the catalog went beyond its %s budget (%s)", o.what, o.limit)}
	if len(files) > 0 {
		e.Pos = Pos{File: files[0].Name, Line: 1, Col: 1}
	}
	if s := l.suspect.Load(); s != nil {
		e.Pos = s.pos
		e.Msg += " and may not end; look at " + s.what + " in this field"
	}
	return nil, ErrorList{e}
}

func newLoader() *loader {
	return &loader{ctx: cuecontext.New(), lines: map[string]*lineIndex{}, maxValues: maxValues}
}

// finish returns the loaded catalog, or every error found.
func (l *loader) finish(cat *Catalog) (*Catalog, error) {
	if len(l.errs) > 0 {
		for _, e := range l.errs {
			if e.Pos.Line == 0 && l.start.IsValid() && (e.Pos.File == "" || e.Pos.File == l.start.File) {
				e.Pos = l.start // nothing better: the top of the catalog
			}
		}
		return nil, l.errs.sortUnique()
	}
	return cat, nil
}

type loader struct {
	ctx   *cue.Context
	lines map[string]*lineIndex
	errs  ErrorList
	def   cue.Value // #Catalog
	data  cue.Value // the user's files unified, before #Catalog
	trees []*Node   // the YAML and JSON files as parsed, for exact positions
	// toolIndex maps tool names to their fields in trees; see treeField.
	toolIndex map[string][]*Field
	asts      []*ast.File // the CUE files as parsed
	start     Pos         // the top of the first file

	patternDefs map[string]cue.Value // checkFields' caches, by definition path
	namedDefs   map[string]cue.Value // and by definition path and field name
	cueFields   map[string]token.Pos // cuePos's index
	required    map[string][]string

	// schemas holds the args and result schemas written in YAML and JSON,
	// by tool and field; they bypass CUE (see withoutSchemas).
	schemas map[[2]string]*Field

	// shadows are the copies of files with duplicate keys that are
	// checked once the catalog is; shadowOf, in the loader that checks
	// one, gives that file's tree. See splitDuplicates.
	shadows  []shadow
	shadowOf map[string]*Node

	// parts, when not zero, is the number of parts a YAML and JSON
	// catalog is evaluated in; see partCount.
	parts int
	// top is set on the part of a catalog that holds the fields beside
	// tools; see evalParts.
	top bool

	// valid is set when the evaluated catalog validated whole: its tools
	// need no validation of their own.
	valid bool

	// cueOnly makes load evaluate every catalog in CUE, never decoding
	// one directly (see direct); the tests compare the two. tookDirect
	// tells that the catalog was decoded directly.
	cueOnly, tookDirect bool

	// maxValues bounds the values of a catalog evaluated from CUE; see
	// checkSize.
	maxValues int

	// suspect is the top-level field of the CUE files likeliest not to
	// end its evaluation; see within.
	suspect atomic.Pointer[suspect]
}

// schemaFields are the tool fields that hold JSON Schemas.
var schemaFields = []string{"args", "result"}

// withoutSchemas returns the tree with the tools' JSON Schemas set aside.
// The format says nothing of a schema's content beyond "an object", and
// evaluating large schemas in CUE costs most of a load; they are checked
// against the JSON Schema metaschema instead. A schema is written in one
// file: the same tool's schema in two files is an error.
func (l *loader) withoutSchemas(root *Node) *Node {
	tools := root.Field("tools")
	if tools == nil || tools.Value.Kind != Object {
		return root
	}
	if l.schemas == nil {
		l.schemas = map[[2]string]*Field{}
	}
	newTools := *tools.Value
	newTools.Fields = make([]*Field, len(tools.Value.Fields))
	for i, tf := range tools.Value.Fields {
		newTools.Fields[i] = tf
		if tf.Value.Kind != Object {
			continue
		}
		var kept []*Field
		for _, f := range tf.Value.Fields {
			if !slices.Contains(schemaFields, f.Key) {
				kept = append(kept, f)
				continue
			}
			key := [2]string{tf.Key, f.Key}
			if prev, dup := l.schemas[key]; dup {
				l.errs.add(f.KeyPos, "tools.%s.%s: written again; it was written at %s, and a schema is written in one file", tf.Key, f.Key, prev.KeyPos)
				continue
			}
			l.schemas[key] = f
		}
		if len(kept) < len(tf.Value.Fields) {
			tool := *tf.Value
			tool.Fields = kept
			newTools.Fields[i] = &Field{Key: tf.Key, KeyPos: tf.KeyPos, Value: &tool}
		}
	}
	newRoot := *root
	newRoot.Fields = slices.Clone(root.Fields)
	for i, f := range newRoot.Fields {
		if f == tools {
			newRoot.Fields[i] = &Field{Key: f.Key, KeyPos: f.KeyPos, Value: &newTools}
		}
	}
	return &newRoot
}

func (l *loader) load(files []File) *Catalog {
	if len(files) == 0 {
		l.errs.add(Pos{}, "no catalog files given")
		return nil
	}
	l.start = Pos{File: files[0].Name, Line: 1, Col: 1}
	var cueFiles []*ast.File
	var data []dataFile
	bounded := true
	for _, f := range files {
		if len(f.Data) > MaxFileSize {
			l.errs.add(Pos{File: f.Name, Line: 1, Col: 1}, "file is %s, above the %d MiB limit of a catalog file", sizeString(int64(len(f.Data))), MaxFileSize>>20)
			continue
		}
		li := newLineIndex(f.Name, f.Data)
		l.lines[f.Name] = li
		switch ext := strings.ToLower(filepath.Ext(f.Name)); ext {
		case ".cue":
			af, err := parser.ParseFile(f.Name, f.Data, parser.ParseComments)
			if err != nil {
				l.cueErrors(err)
				continue
			}
			before := len(l.errs)
			if s := l.checkCUEBounds(af); s != nil {
				if prev := l.suspect.Load(); prev == nil || s.rank > prev.rank {
					l.suspect.Store(s)
				}
			}
			bounded = bounded && len(l.errs) == before
			cueFiles = append(cueFiles, af)
			l.asts = append(l.asts, af)
		case ".yaml", ".yml", ".json":
			n, ok := l.shadowOf[f.Name]
			if !ok {
				var errs ErrorList
				if ext == ".json" {
					n, errs = parseJSON(f.Name, f.Data)
				} else {
					n, errs = parseYAML(f.Name, f.Data)
				}
				if len(errs) > 0 {
					l.errs = append(l.errs, errs...)
					continue
				}
				if n.Kind != Object {
					l.errs.add(n.Pos, "a catalog file holds an object with package, services and tools; found %s", describe(n))
					continue
				}
				listed := l.normaliseTools(n)
				for _, sh := range l.splitDuplicates(n, map[*Node]bool{listed: true}) {
					if len(l.shadows) < maxShadows && l.shadowOf == nil {
						sh.file = f.Name
						l.shadows = append(l.shadows, sh)
					}
				}
			}
			tf := token.NewFile(f.Name, -1, len(f.Data))
			tf.SetLinesForContent(f.Data)
			data = append(data, dataFile{root: l.withoutSchemas(n), lines: li, file: tf})
			l.trees = append(l.trees, n)
		default:
			l.errs.add(Pos{File: f.Name}, "unknown catalog file type %q; use %s", ext, strings.Join(Extensions, ", "))
		}
	}
	if len(cueFiles)+len(data) < len(files) || !bounded {
		return nil // a file did not parse: what follows would only echo it
	}
	l.indexTools()
	var c *Catalog
	direct := false
	if len(cueFiles) == 0 && len(l.errs) == 0 && !l.cueOnly {
		c, direct = l.direct(files)
	}
	switch n := l.partCount(cueFiles, data); {
	case direct:
		l.tookDirect = true
	case n > 1:
		c = l.evalParts(n, data, files)
	default:
		c = l.eval(cueFiles, data, nil, files)
	}
	if c != nil {
		l.finishTools(c)
		l.checkSchemas(c)
	}
	l.checkShadows(files)
	return c
}

// dataFile is a YAML or JSON catalog file, parsed.
type dataFile struct {
	root  *Node // the file's tree, its tools' schemas set aside
	lines *lineIndex
	file  *token.File
}

// expr is the file as CUE syntax. With keep, only the tools keep accepts
// are in it, and the other top-level fields only when top is set.
func (d dataFile) expr(keep func(tool string) bool, top bool) ast.Expr {
	root := d.root
	if keep != nil {
		r := *root
		r.Fields = nil
		for _, f := range root.Fields {
			if f.Key != "tools" {
				if top {
					r.Fields = append(r.Fields, f)
				}
				continue
			}
			tools := *f.Value
			tools.Fields = nil
			for _, tf := range f.Value.Fields {
				if keep(tf.Key) {
					tools.Fields = append(tools.Fields, tf)
				}
			}
			r.Fields = append(r.Fields, &Field{Key: f.Key, KeyPos: f.KeyPos, Value: &tools})
		}
		root = &r
	}
	return toCUE(root, d.lines, d.file)
}

// eval evaluates the catalog files against the format and decodes the
// result. keep selects the tools of one part of the YAML and JSON files
// (nil: every tool), and l.top whether the part holds the fields beside
// tools; see dataFile.expr.
func (l *loader) eval(cueFiles []*ast.File, data []dataFile, keep func(tool string) bool, files []File) *Catalog {
	exprs := make([]ast.Expr, len(data))
	for i, d := range data {
		exprs[i] = d.expr(keep, l.top)
	}
	v, ok := l.build(cueFiles, exprs)
	if !ok {
		return nil
	}
	l.data = v
	l.def = v.LookupPath(cue.MakePath(cue.Def("#Catalog")))
	l.checkFields(v, l.def, nil, nil)
	cat := l.def.Unify(v)
	err := cat.Validate(cue.Concrete(true))
	if err != nil {
		l.cueErrors(err)
	}
	l.valid = err == nil
	if len(cueFiles) > 0 && l.maxValues > 0 && !l.checkSize(cat, l.maxValues) {
		return nil
	}
	// Decode even an invalid catalog: the schemas' own problems are
	// reported in the same run as the format's.
	return l.decode(cat, files)
}

// minPartTools and maxPartTools are the numbers of tools a part of a
// catalog holds at the least and, when there are more parts than CPUs, at
// the most; see partCount.
const (
	minPartTools = 200
	maxPartTools = 500
)

// partCount is the number of parts a catalog is evaluated in, each in its
// own CUE context: one per CPU for a large catalog written in YAML and
// JSON only, whose tools are independent values, and more for a catalog
// of thousands of tools, so that evaluating one part at a time on each
// CPU keeps a bounded share of the catalog in CUE's memory. CUE files may
// refer from one tool to another, so they are evaluated whole.
func (l *loader) partCount(cueFiles []*ast.File, data []dataFile) int {
	if len(cueFiles) > 0 {
		return 1
	}
	for _, d := range data {
		if tools := d.root.Get("tools"); tools != nil && tools.Kind != Object {
			return 1 // not a map of tools: the format's error says so
		}
	}
	if l.parts > 0 {
		return l.parts
	}
	n := len(l.toolIndex)
	return max(min(goruntime.GOMAXPROCS(0), n/minPartTools), (n+maxPartTools-1)/maxPartTools)
}

// evalParts evaluates a catalog in n parts, each with a share of the tools
// by name, and merges them; the first part also holds every field beside
// tools. A tool written in several files is in one part. One worker per
// CPU evaluates the parts one after the other, dropping each part's CUE
// values once it is decoded.
func (l *loader) evalParts(n int, data []dataFile, files []File) *Catalog {
	names := slices.Sorted(maps.Keys(l.toolIndex))
	part := make(map[string]int, len(names))
	for i, name := range names {
		part[name] = i * n / len(names)
	}
	errs := make([]ErrorList, n)
	cats := make([]*Catalog, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(n, goruntime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				sub := &loader{
					ctx:       cuecontext.New(),
					lines:     l.lines,
					trees:     l.trees,
					toolIndex: l.toolIndex,
					schemas:   l.schemas,
					start:     l.start,
					top:       i == 0,
				}
				cats[i] = sub.eval(nil, data, func(tool string) bool { return part[tool] == i }, files)
				errs[i] = sub.errs
			}
		})
	}
	wg.Wait()
	failed := false
	for i := range errs {
		l.errs = append(l.errs, errs[i]...)
		failed = failed || cats[i] == nil
	}
	if failed {
		return nil
	}
	c := cats[0]
	for _, pc := range cats[1:] {
		c.Tools = append(c.Tools, pc.Tools...)
	}
	sort.Slice(c.Tools, func(i, j int) bool { return c.Tools[i].Name < c.Tools[j].Name })
	return c
}

// normaliseTools turns a YAML or JSON list of tools, each with a name, into
// the map keyed by name that the format defines, and returns that map. A
// name listed twice is reported here and kept twice, for splitDuplicates.
func (l *loader) normaliseTools(n *Node) *Node {
	f := n.Field("tools")
	if f == nil || f.Value.Kind != Array {
		return nil
	}
	m := &Node{Kind: Object, Pos: f.Value.Pos}
	seen := map[string]Pos{}
	for i, it := range f.Value.Items {
		name, ok := it.Get("name").StringValue()
		switch {
		case it.Kind != Object:
			l.errs.add(it.Pos, "tools[%d]: a tool is an object with a name; found %s", i, describe(it))
			continue
		case !ok:
			l.errs.add(it.Pos, "tools[%d]: a tool in a list needs a name", i)
			continue
		}
		if prev, dup := seen[name]; dup {
			l.errs.add(it.Get("name").Pos, "tools[%d]: tool %q is declared twice (first at %d:%d); both are checked, the first is used", i, name, prev.Line, prev.Col)
		} else {
			seen[name] = it.Get("name").Pos
		}
		m.Fields = append(m.Fields, &Field{Key: name, KeyPos: it.Get("name").Pos, Value: it})
	}
	f.Value = m
	return m
}

// build evaluates the CUE files together with the format definition, so
// they may use #Tool and its friends, and unifies the data files in.
func (l *loader) build(cueFiles []*ast.File, data []ast.Expr) (cue.Value, bool) {
	before := len(l.errs)
	pkg := ""
	for _, f := range cueFiles {
		if name := f.PackageName(); name != "" {
			if pkg != "" && name != pkg {
				l.errs.add(l.pos(f.Pos()), "package %s differs from package %s of the other catalog files", name, pkg)
				return cue.Value{}, false
			}
			pkg = name
		}
	}
	if pkg == "" {
		pkg = "catalog"
	}
	format, err := parser.ParseFile(formatFile, formatSource)
	if err != nil {
		panic("catalog: embedded format does not parse: " + err.Error())
	}
	setPackage(format, pkg)
	inst := build.NewContext().NewInstance("catalog", nil)
	if err := inst.AddSyntax(format); err != nil {
		panic("catalog: embedded format: " + err.Error())
	}
	for _, f := range cueFiles {
		setPackage(f, pkg)
		if err := inst.AddSyntax(f); err != nil {
			l.cueErrors(err)
		}
	}
	if len(l.errs) > before {
		return cue.Value{}, false
	}
	v := l.ctx.BuildInstance(inst)
	if err := v.Err(); err != nil {
		l.cueErrors(err)
		return cue.Value{}, false
	}
	for _, e := range data {
		dv := l.ctx.BuildExpr(e)
		if err := dv.Err(); err != nil {
			l.cueErrors(err)
			continue
		}
		v = v.Unify(dv)
	}
	return v, len(l.errs) == before
}

// setPackage gives a file the package clause pkg.
func setPackage(f *ast.File, pkg string) {
	for _, d := range f.Decls {
		if p, ok := d.(*ast.Package); ok {
			p.Name = ast.NewIdent(pkg)
			return
		}
	}
	f.Decls = append([]ast.Decl{&ast.Package{Name: ast.NewIdent(pkg)}}, f.Decls...)
}

// pos converts a CUE position into a catalog position; positions in the
// embedded format definition come back invalid.
func (l *loader) pos(p token.Pos) Pos {
	if !p.IsValid() {
		return Pos{}
	}
	name := p.Filename()
	if name == formatFile {
		return Pos{}
	}
	if li, ok := l.lines[name]; ok {
		return li.pos(p.Offset())
	}
	return Pos{File: name, Line: p.Line(), Col: p.Column()}
}

// cuePos returns the position of the first field at path written in the
// CUE files, such as the label of tools: search_articles: {...}; pattern
// constraints ([string]: ...) do not count.
//
// Paths of up to cueIndexDepth names are looked up in an index of the CUE
// files' fields, made on first use: decoding asks for the position of
// every tool, and a scan of the files each time would make loading
// quadratic in the number of tools.
func (l *loader) cuePos(path ...string) Pos {
	if len(l.asts) == 0 || len(path) == 0 {
		return Pos{}
	}
	if len(path) <= cueIndexDepth {
		if l.cueFields == nil {
			l.cueFields = map[string]token.Pos{}
			for _, f := range l.asts {
				indexFields(l.cueFields, f.Decls, "", 1)
			}
		}
		return l.pos(l.cueFields[strings.Join(path, "\x00")])
	}
	for _, f := range l.asts {
		if p := fieldPos(f.Decls, path); p.IsValid() {
			return l.pos(p)
		}
	}
	return Pos{}
}

// cueIndexDepth is how deep cuePos's index goes: tools.<name>.<field>.
const cueIndexDepth = 3

// indexFields records in index the first position of every field path of
// up to cueIndexDepth names in decls (prefix is the path of decls, each
// name followed by a NUL byte), in the order fieldPos finds them: the
// first field in a depth-first walk, into struct literals only.
func indexFields(index map[string]token.Pos, decls []ast.Decl, prefix string, depth int) {
	for _, d := range decls {
		f, ok := d.(*ast.Field)
		if !ok {
			continue
		}
		name, _, err := ast.LabelName(f.Label)
		if err != nil {
			continue
		}
		key := prefix + name
		if _, seen := index[key]; !seen && f.Label.Pos().IsValid() {
			index[key] = f.Label.Pos()
		}
		if s, ok := f.Value.(*ast.StructLit); ok && depth < cueIndexDepth {
			indexFields(index, s.Elts, key+"\x00", depth+1)
		}
	}
}

func fieldPos(decls []ast.Decl, path []string) token.Pos {
	for _, d := range decls {
		f, ok := d.(*ast.Field)
		if !ok {
			continue
		}
		name, _, err := ast.LabelName(f.Label)
		if err != nil || name != path[0] {
			continue
		}
		if len(path) == 1 {
			return f.Label.Pos()
		}
		if s, ok := f.Value.(*ast.StructLit); ok {
			if p := fieldPos(s.Elts, path[1:]); p.IsValid() {
				return p
			}
		}
	}
	return token.NoPos
}
