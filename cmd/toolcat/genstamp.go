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
	"os"
	"path/filepath"
	"slices"

	"github.com/toolcat/toolcat/catalog"
)

// A genStamp lets toolcat gen skip a run that would change nothing. A run
// that changed nothing keeps, in the user's cache directory beside the
// cache of its output directory, a digest of everything such a run reads
// and what it printed; the next run with the same digest prints the same
// and stops before it loads the catalog.
//
// The digest is of the bytes, not of times: this build of toolcat (see
// buildKey), the working directory, the flags that shape the output and
// the catalog paths; every name in each catalog directory and the
// contents of its files a catalog can be read from (catalog.Extensions),
// or of each catalog file; every name in the output directory and the
// contents of every file in it, and the same of each subdirectory that
// holds a manifest (a package of --split=category, or one it no longer
// generates); and the go.mod gen finds above the output directory. That
// is more than a run reads, so the stamp is never used when a run could do
// something else. A stamp is kept only when the digest taken after the run
// is the one taken before it, so that a file changed while the run read it
// keeps none.
type genStamp struct {
	file   string // where the stamp is kept
	digest string // the digest of the run's inputs before it ran
	f      genFlags
	paths  []string
	stdout bytes.Buffer
	stderr bytes.Buffer
}

// stampRecord is a kept stamp.
type stampRecord struct {
	Digest string `json:"digest"`
	Stdout []byte `json:"stdout,omitempty"`
	Stderr []byte `json:"stderr,omitempty"`
}

// openGenStamp returns the stamp of a run of gen with the flags f on the
// catalog paths, or nil when there can be none.
func openGenStamp(f genFlags, paths []string) *genStamp {
	build := buildKey()
	if build == "" {
		return nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return nil
	}
	abs, err := filepath.Abs(f.out)
	if err != nil {
		return nil
	}
	sum := sha256.Sum256([]byte(abs))
	s := &genStamp{
		file:  filepath.Join(base, "toolcat", "gen", hex.EncodeToString(sum[:12])+".run.json"),
		f:     f,
		paths: paths,
	}
	if s.digest, err = genDigest(build, f, paths); err != nil {
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
	if json.Unmarshal(b, &r) != nil || r.Digest != s.digest {
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

// done ends a run that succeeded: a run that changed nothing keeps the
// stamp, when its inputs are still what they were before it; any other
// removes the stamp kept before.
func (s *genStamp) done(changed bool) {
	if changed {
		os.Remove(s.file)
		return
	}
	after, err := genDigest(buildKey(), s.f, s.paths)
	if err != nil || after != s.digest {
		os.Remove(s.file)
		return
	}
	b, err := json.Marshal(stampRecord{Digest: s.digest, Stdout: s.stdout.Bytes(), Stderr: s.stderr.Bytes()})
	if err != nil || os.MkdirAll(filepath.Dir(s.file), 0o755) != nil {
		return
	}
	writeAtomic(s.file, b) // only a shortcut: without it the next run renders
}

// genDigest is the digest of what a run of gen with the flags f on the
// catalog paths reads (see genStamp).
func genDigest(build string, f genFlags, paths []string) (string, error) {
	d := digester{h: sha256.New()}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	d.add("build", build, "wd", wd, "out", f.out, "validators", f.validators, "split", f.split)
	if len(paths) == 0 {
		paths = []string{"."} // as catalog.Load reads them
	}
	for _, p := range paths {
		d.add("catalog", p)
		if err := d.tree(p, func(name string) bool { return slices.Contains(catalog.Extensions, filepath.Ext(name)) }, false); err != nil {
			return "", err
		}
	}
	d.add("output")
	if err := d.tree(f.out, func(string) bool { return true }, true); err != nil {
		return "", err
	}
	abs, err := filepath.Abs(f.out)
	if err != nil {
		return "", err
	}
	for dir := abs; ; dir = filepath.Dir(dir) {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			d.add("go.mod", dir, string(b))
			break
		}
		if !os.IsNotExist(err) {
			return "", err
		}
		if filepath.Dir(dir) == dir {
			d.add("no go.mod")
			break
		}
	}
	return hex.EncodeToString(d.h.Sum(nil)), nil
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
// manifest.
func (d *digester) tree(p string, read func(name string) bool, packages bool) error {
	fi, err := os.Stat(p)
	switch {
	case os.IsNotExist(err):
		d.add("missing")
		return nil
	case err != nil:
		return err
	case !fi.IsDir():
		return d.file(p)
	}
	ents, err := os.ReadDir(p)
	if err != nil {
		return err
	}
	for _, e := range ents {
		d.add("entry", e.Name(), e.Type().String())
		path := filepath.Join(p, e.Name())
		dir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			fi, err := os.Stat(path)
			dir = err == nil && fi.IsDir()
		}
		switch {
		case dir:
			if !packages {
				continue
			}
			if _, err := os.Lstat(filepath.Join(path, manifestFile)); err == nil {
				d.add("package")
				if err := d.tree(path, read, false); err != nil {
					return err
				}
			}
		case e.Type()&fs.ModeSymlink != 0 || e.Type().IsRegular():
			if read(e.Name()) {
				if err := d.file(path); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// file adds the contents of the file called name.
func (d *digester) file(name string) error {
	b, err := os.ReadFile(name)
	if err != nil {
		// A link to a directory, or nothing: its name and type are in
		// the digest, and a run that reads it fails or ignores it.
		d.add("unreadable", err.Error())
		return nil
	}
	d.add("file")
	d.length(len(b))
	d.h.Write(b)
	return nil
}
