package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"hash"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/toolcat/toolcat/catalog"
)

// A genStamp lets toolcat gen skip a run that would change nothing. A run
// keeps, in the user's cache directory beside the cache of its output
// directory, a digest of everything the next run reads and what that run
// will print; the next run with the same digest prints the same and stops
// before it loads the catalog.
//
// The digest is of the bytes, not of times: this build of toolcat (see
// buildKey), the working directory, the flags that shape the output and
// the catalog paths; every name in each catalog directory and the
// contents of its files a catalog can be read from (catalog.Extensions),
// or of each catalog file; the go.mod gen finds above the output
// directory; and every name in the output directory and the contents of
// every file in it, and the same of each subdirectory that holds a
// manifest (a package of --split=category, or one it no longer
// generates). That is more than a run reads, so the stamp is never used
// when a run could do something else.
//
// A run that changed nothing keeps a stamp when the digest after it is the
// one before it, so that a file changed while the run read it keeps none;
// the next run prints what it printed. A run that wrote files keeps one
// when the next run would change nothing and print only the hint about
// go.mod: it printed no warning, and the files it read are as it read
// them (see keepAfterWrites).
type genStamp struct {
	file   string    // where the stamp is kept
	start  time.Time // when the run began, before it read anything
	before *genState // what the run read, before it ran
	f      genFlags
	paths  []string
	stdout bytes.Buffer
	stderr bytes.Buffer
	hint   string // the line of moduleHint the run printed, if any
}

// stampRecord is a kept stamp.
type stampRecord struct {
	Digest string `json:"digest"`
	Stdout []byte `json:"stdout,omitempty"`
	Stderr []byte `json:"stderr,omitempty"`
}

// stampMinAge is how long before a run that wrote files the files it read
// must have last changed for it to keep a stamp: a file system's clock may
// be as coarse as a second. Tests set it.
var stampMinAge = 2 * time.Second

// openGenStamp returns the stamp of a run of gen with the flags f on the
// catalog paths, or nil when there can be none.
func openGenStamp(f genFlags, paths []string) *genStamp {
	build, _, file, ok := genCachePlace(f.out, ".run.json")
	if !ok {
		return nil
	}
	s := &genStamp{file: file, start: time.Now(), f: f, paths: paths}
	var err error
	if s.before, err = readGenState(build, f, paths); err != nil {
		return nil
	}
	return s
}

// replay prints what the run the stamp kept printed and reports true when
// this run's inputs are that run's.
func (s *genStamp) replay(e *env) bool {
	b, err := os.ReadFile(s.file)
	if err != nil {
		return false
	}
	var r stampRecord
	if json.Unmarshal(b, &r) != nil || r.Digest != s.before.digest {
		return false
	}
	e.stdout.Write(r.Stdout)
	e.stderr.Write(r.Stderr)
	return true
}

// record returns e with its output also kept in s.
func (s *genStamp) record(e *env) *env {
	c := *e
	c.stdout = io.MultiWriter(e.stdout, &s.stdout)
	c.stderr = io.MultiWriter(e.stderr, &s.stderr)
	return &c
}

// done ends a run that succeeded with the plans it applied: it keeps a
// stamp for the next run when it can (see genStamp), and otherwise
// removes the stamp kept before.
func (s *genStamp) done(plans []*genPlan) {
	os.Remove(s.file)
	after, err := readGenState(buildKey(), s.f, s.paths)
	if err != nil {
		return
	}
	r := stampRecord{Digest: after.digest}
	switch {
	case !slices.ContainsFunc(plans, func(p *genPlan) bool { return !p.empty() }):
		if after.digest != s.before.digest {
			return
		}
		r.Stdout, r.Stderr = s.stdout.Bytes(), s.stderr.Bytes()
	case s.keepAfterWrites(plans, after):
		r.Stderr = []byte(s.hint)
	default:
		return
	}
	b, err := json.Marshal(r)
	if err != nil || os.MkdirAll(filepath.Dir(s.file), 0o755) != nil {
		return
	}
	writeAtomic(s.file, b) // only a shortcut: without it the next run renders
}

// keepAfterWrites reports whether the run, which applied plans and left
// the state after, can tell what the next run does: nothing, printing the
// hint about go.mod alone. The plans are idempotent: applied, they leave
// nothing to change for the same inputs. So it is so when the run printed
// no warning (the warnings of the next run would be among them) and only
// the hint, removed no package, and read what is there now: the inputs are
// as they were before the run and unchanged since it began, every file of
// the output directory is either one the run wrote, as it wrote it, or one
// that has not changed since before the run began, and the output
// directory holds the names it held but those the run wrote and removed.
func (s *genStamp) keepAfterWrites(plans []*genPlan, after *genState) bool {
	if s.stderr.String() != s.hint || after.inputs != s.before.inputs || after.links {
		return false
	}
	for _, name := range after.inputFiles {
		if !s.oldEnough(name) {
			return false
		}
	}
	abs, err := filepath.Abs(s.f.out)
	if err != nil {
		return false
	}
	written := map[string][]byte{}
	planDirs := map[string]bool{}
	names := maps.Clone(s.before.files)
	for _, p := range plans {
		if p.gone || len(p.warnings) > 0 {
			return false
		}
		dir, err := filepath.Abs(p.dir)
		if err != nil {
			return false
		}
		rel, err := filepath.Rel(abs, dir)
		if err != nil || !filepath.IsLocal(rel) && rel != "." {
			return false
		}
		join := func(name string) string { return filepath.ToSlash(filepath.Join(rel, name)) }
		if rel != "." {
			names[filepath.ToSlash(rel)] = true // a package's directory, maybe new
			planDirs[filepath.ToSlash(rel)] = true
		}
		for _, group := range [][]fileChange{p.writes, p.creates, p.appends} {
			for _, c := range group {
				written[join(c.name)] = c.new
			}
		}
		if !bytes.Equal(p.manifest, p.oldMan) {
			written[join(manifestFile)] = p.manifest
		}
		for _, name := range p.removes {
			delete(names, join(name))
		}
	}
	for name := range written {
		names[name] = true
	}
	if !maps.Equal(names, after.files) {
		return false
	}
	for name := range after.files {
		if data, ok := written[name]; ok {
			if sha256.Sum256(data) != after.sums[name] {
				return false
			}
			continue
		}
		if planDirs[name] {
			continue // its names are those above
		}
		if after.sums[name] != s.before.sums[name] || !s.oldEnough(filepath.Join(abs, filepath.FromSlash(name))) {
			return false
		}
	}
	return true
}

// oldEnough reports whether the file called name last changed
// stampMinAge or more before the run began.
func (s *genStamp) oldEnough(name string) bool {
	fi, err := os.Lstat(name)
	if err != nil {
		return false
	}
	_, changed, ok := fileIdentity(fi)
	return ok && s.start.Sub(changed) >= stampMinAge
}

// genState is what a run of gen reads (see genStamp).
type genState struct {
	digest string // of all of it
	inputs string // of the build, the flags, the catalog and go.mod
	// inputFiles are the catalog files and go.mod read.
	inputFiles []string
	// files are the names of the output directory and of its packages,
	// relative to it, slash-separated; sums the SHA-256 of those that are
	// files.
	files map[string]bool
	sums  map[string][sha256.Size]byte
	links bool // some name of the output directory is a symbolic link
}

// readGenState reads what a run of gen with the flags f on the catalog
// paths reads, as this build of toolcat (build).
func readGenState(build string, f genFlags, paths []string) (*genState, error) {
	st := &genState{files: map[string]bool{}, sums: map[string][sha256.Size]byte{}}
	d := digester{h: sha256.New()}
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	d.add("build", build, "wd", wd, "out", f.out, "validators", f.validators, "split", f.split)
	if len(paths) == 0 {
		paths = []string{"."} // as catalog.Load reads them
	}
	catalogFile := func(name string) bool { return slices.Contains(catalog.Extensions, filepath.Ext(name)) }
	for _, p := range paths {
		d.add("catalog", p)
		err := d.tree(p, "", catalogFile, false, func(_, path string, isFile bool, _ [sha256.Size]byte, _ bool) {
			if isFile {
				st.inputFiles = append(st.inputFiles, path)
			}
		})
		if err != nil {
			return nil, err
		}
	}
	abs, err := filepath.Abs(f.out)
	if err != nil {
		return nil, err
	}
	for dir := abs; ; dir = filepath.Dir(dir) {
		name := filepath.Join(dir, "go.mod")
		b, err := os.ReadFile(name)
		if err == nil {
			d.add("go.mod", dir, string(b))
			st.inputFiles = append(st.inputFiles, name)
			break
		}
		if !os.IsNotExist(err) {
			return nil, err
		}
		if filepath.Dir(dir) == dir {
			d.add("no go.mod")
			break
		}
	}
	st.inputs = hex.EncodeToString(d.h.Sum(nil))
	d.add("output")
	err = d.tree(f.out, "", func(string) bool { return true }, true, func(rel, _ string, isFile bool, sum [sha256.Size]byte, link bool) {
		st.files[rel] = true
		if isFile {
			st.sums[rel] = sum
		}
		st.links = st.links || link
	})
	if err != nil {
		return nil, err
	}
	st.digest = hex.EncodeToString(d.h.Sum(nil))
	return st, nil
}

// digester writes length-prefixed strings to a hash, so that no two
// sequences of them give the same bytes.
type digester struct {
	h hash.Hash
}

func (d *digester) add(fields ...string) {
	for _, s := range fields {
		d.length(len(s))
		io.WriteString(d.h, s)
	}
}

func (d *digester) length(n int) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(n))
	d.h.Write(b[:])
}

// tree adds the path p: a missing path, a file's contents, or a
// directory's entries with the contents of the files read says to read
// and, when packages, the same of each subdirectory that holds a
// manifest. It calls seen with each name it adds, relative to p under
// prefix, and whether it is a file it read (with its SHA-256) or a
// symbolic link.
func (d *digester) tree(p, prefix string, read func(name string) bool, packages bool, seen func(rel, path string, isFile bool, sum [sha256.Size]byte, link bool)) error {
	fi, err := os.Stat(p)
	switch {
	case os.IsNotExist(err):
		d.add("missing")
		return nil
	case err != nil:
		return err
	case !fi.IsDir():
		sum, err := d.file(p)
		seen(filepath.Base(p), p, err == nil, sum, false)
		return nil
	}
	ents, err := os.ReadDir(p)
	if err != nil {
		return err
	}
	for _, e := range ents {
		d.add("entry", e.Name(), e.Type().String())
		path := filepath.Join(p, e.Name())
		rel := prefix + e.Name()
		link := e.Type()&fs.ModeSymlink != 0
		dir := e.IsDir()
		if link {
			fi, err := os.Stat(path)
			dir = err == nil && fi.IsDir()
		}
		switch {
		case dir:
			seen(rel, path, false, [sha256.Size]byte{}, link)
			if !packages {
				continue
			}
			if _, err := os.Lstat(filepath.Join(path, manifestFile)); err == nil {
				d.add("package")
				if err := d.tree(path, rel+"/", read, false, seen); err != nil {
					return err
				}
			}
		case link || e.Type().IsRegular():
			if !read(e.Name()) {
				continue
			}
			sum, err := d.file(path)
			seen(rel, path, err == nil, sum, link)
		default:
			seen(rel, path, false, [sha256.Size]byte{}, false)
		}
	}
	return nil
}

// file adds the contents of the file called name, and returns their
// SHA-256.
func (d *digester) file(name string) ([sha256.Size]byte, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		// A link to a directory, or nothing: its name and type are in
		// the digest, and a run that reads it fails or ignores it.
		d.add("unreadable", err.Error())
		return [sha256.Size]byte{}, err
	}
	d.add("file")
	d.length(len(b))
	d.h.Write(b)
	return sha256.Sum256(b), nil
}
