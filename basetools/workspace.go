package basetools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/toolcat/toolcat/runtime"
)

// A root is one folder the file tools may reach, opened with os.Root so
// that no path, symlink or concurrent rename takes a call outside it.
type root struct {
	dir      string // absolute, as configured
	real     string // dir with its symlinks resolved
	r        *os.Root
	writable bool
}

// workspace is the writable root and the read-only ones, with the limits
// of the file tools and the journal their undo reads.
type workspace struct {
	dir     string
	roots   []*root // roots[0] is the workspace
	cfg     Config
	escape  error // what os.Root answers for a path that leaves it
	journal journal
}

func openWorkspace(cfg Config) (*workspace, error) {
	w := &workspace{cfg: cfg}
	w.journal.max = cfg.MaxUndoBytes
	add := func(dir string, writable bool) error {
		abs, err := absDir(dir)
		if err != nil {
			return fmt.Errorf("basetools: %w", err)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return fmt.Errorf("basetools: %w", err)
		}
		r, err := os.OpenRoot(abs)
		if err != nil {
			return fmt.Errorf("basetools: %w", err)
		}
		w.roots = append(w.roots, &root{dir: abs, real: real, r: r, writable: writable})
		return nil
	}
	if err := add(cfg.Workspace, true); err != nil {
		return nil, err
	}
	w.dir = w.roots[0].dir
	for _, d := range cfg.ReadOnly {
		if err := add(d, false); err != nil {
			w.close()
			return nil, err
		}
	}
	// os.Root's error for an escaping path is not exported: learn it.
	_, err := w.roots[0].r.Lstat("../x")
	var pe *fs.PathError
	if errors.As(err, &pe) {
		w.escape = pe.Err
	}
	return w, nil
}

func (w *workspace) close() error {
	var errs []error
	for _, r := range w.roots {
		errs = append(errs, r.r.Close())
	}
	return errors.Join(errs...)
}

// A loc is a path resolved to one root.
type loc struct {
	root *root
	rel  string // slash-separated, cleaned, relative to the root; "." is the root
	show string // as results show it: relative for the workspace, absolute for the others
}

// errKind classifies file errors; each tool turns them into its own
// catalog errors with fileErrs.
type errKind int

const (
	kindInternal errKind = iota
	kindDenied
	kindNotFound
	kindInvalid
)

type fileError struct {
	kind errKind
	msg  string
}

func (e *fileError) Error() string { return e.msg }

func denied(format string, a ...any) error {
	return &fileError{kindDenied, fmt.Sprintf(format, a...)}
}

func invalid(format string, a ...any) error {
	return &fileError{kindInvalid, fmt.Sprintf(format, a...)}
}

func notFound(format string, a ...any) error {
	return &fileError{kindNotFound, fmt.Sprintf(format, a...)}
}

// fileErrs are one tool's constructors of its catalog errors.
type fileErrs struct {
	denied, notFound, invalid func(string) *runtime.ToolError
}

// toolError turns err into the tool's error: a fileError by its kind,
// anything else as it is (the runtime answers internal).
func (e fileErrs) toolError(err error) error {
	var fe *fileError
	if errors.As(err, &fe) {
		switch fe.kind {
		case kindDenied:
			return e.denied(fe.msg)
		case kindNotFound:
			if e.notFound != nil {
				return e.notFound(fe.msg)
			}
		case kindInvalid:
			if e.invalid != nil {
				return e.invalid(fe.msg)
			}
		}
		return errors.New(fe.msg)
	}
	return err
}

// resolve finds the root of p, a path the model gave, and its cleaned
// path inside it. Relative paths are in the workspace; absolute ones must
// lie in the workspace or, when write is false, in a read-only root. A
// path to write must lie outside every .git folder (outsideGitDir).
// Symlinks are not looked at here: os.Root refuses those that leave the
// root when the path is opened.
func (w *workspace) resolve(p string, write bool) (loc, error) {
	switch {
	case p == "":
		return loc{}, invalid("the path is empty")
	case strings.IndexByte(p, 0) >= 0:
		return loc{}, invalid("the path holds a NUL byte")
	case strings.ContainsRune(p, '\\'):
		return loc{}, invalid("the path %s holds a backslash; use / as the separator", quote(p))
	case !isValidUTF8(p):
		return loc{}, invalid("the path is not valid UTF-8")
	}
	if !filepath.IsAbs(p) {
		rel := path.Clean(p)
		if rel == ".." || strings.HasPrefix(rel, "../") {
			return loc{}, denied("%s leaves the workspace", quote(p))
		}
		l := loc{root: w.roots[0], rel: rel, show: rel}
		if write {
			return l, w.outsideGitDir(l)
		}
		return l, nil
	}
	abs := filepath.Clean(p)
	for _, r := range w.roots {
		for _, base := range []string{r.dir, r.real} {
			rel, ok := within(base, abs)
			if !ok {
				continue
			}
			if write && !r.writable {
				return loc{}, denied("%s is in a read-only folder", quote(p))
			}
			show := rel
			if r != w.roots[0] {
				show = abs
			}
			l := loc{root: r, rel: rel, show: show}
			if write {
				return l, w.outsideGitDir(l)
			}
			return l, nil
		}
	}
	return loc{}, denied("%s is outside the workspace", quote(p))
}

// within reports whether abs is base or below it, and its relative path.
func within(base, abs string) (string, bool) {
	if abs == base {
		return ".", true
	}
	prefix := base
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	if !strings.HasPrefix(abs, prefix) {
		return "", false
	}
	return filepath.ToSlash(abs[len(prefix):]), true
}

// classify turns an error of os.Root into a fileError.
func (w *workspace) classify(l loc, err error) error {
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && w.escape != nil && errors.Is(pe.Err, w.escape) {
		return denied("%s leaves its folder (through .. or a symlink)", quote(l.show))
	}
	var errno syscall.Errno
	errors.As(err, &errno)
	switch {
	case errors.Is(err, fs.ErrNotExist), errno == syscall.ENOTDIR:
		return notFound("%s does not exist", quote(l.show))
	case errors.Is(err, fs.ErrPermission):
		return denied("%s: permission denied", quote(l.show))
	case errno == syscall.ENAMETOOLONG:
		return invalid("%s is too long a path", quote(clip(l.show, 80)))
	case errno == syscall.ELOOP:
		return invalid("%s has too many levels of symlinks", quote(l.show))
	case errno == syscall.EISDIR:
		return invalid("%s is a folder", quote(l.show))
	case errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "escapes"):
		return denied("%s leaves its folder (through .. or a symlink)", quote(l.show))
	}
	return fmt.Errorf("%s: %w", l.show, err)
}

func quote(s string) string { return fmt.Sprintf("%q", clip(s, 200)) }

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

func isValidUTF8(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

// path returns the path to give os.Root: l.rel, "." for the root itself.
func (l loc) path() string { return l.rel }

// openRead opens l for reading without blocking on a FIFO or a device
// (the callers then refuse what is not a regular file or a folder).
func openRead(l loc) (*os.File, error) {
	return l.root.r.OpenFile(l.path(), os.O_RDONLY|oNonblock, 0)
}

// readUpTo reads f, a regular file of size bytes at l, to its end,
// refusing more than max bytes.
func readUpTo(f *os.File, size, max int64, l loc) ([]byte, error) {
	if size > max {
		return nil, invalid("%s is %d bytes, above the limit of %d", quote(l.show), size, max)
	}
	b := make([]byte, 0, size)
	buf := make([]byte, 32<<10)
	for {
		n, err := f.Read(buf)
		b = append(b, buf[:n]...)
		if int64(len(b)) > max {
			return nil, invalid("%s grew above the limit of %d bytes", quote(l.show), max)
		}
		if err != nil {
			break
		}
	}
	return b, nil
}

// missingDirs returns the folders above l.rel that do not exist yet,
// outermost first; a path component that is a file is an error.
func (w *workspace) missingDirs(l loc) ([]string, error) {
	var missing []string
	dir := path.Dir(l.rel)
	for dir != "." && dir != "/" {
		fi, err := l.root.r.Stat(dir)
		if err == nil {
			if !fi.IsDir() {
				return nil, invalid("%s is a file, not a folder", quote(dir))
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, w.classify(loc{root: l.root, rel: dir, show: dir}, err)
		}
		missing = append([]string{dir}, missing...)
		dir = path.Dir(dir)
	}
	return missing, nil
}

// journal keeps previous contents for undo, oldest dropped first past max
// bytes.
type journal struct {
	mu      sync.Mutex
	max     int64
	size    int64
	next    int
	order   []string
	entries map[string]*undo
}

// undo is what a write or an edit replaced.
type undo struct {
	rel     string
	existed bool
	prev    []byte
	mode    fs.FileMode
	dirs    []string // folders the call created, outermost first
}

func (j *journal) put(u *undo) string {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.entries == nil {
		j.entries = map[string]*undo{}
	}
	j.next++
	id := fmt.Sprintf("u%d", j.next)
	j.entries[id] = u
	j.order = append(j.order, id)
	j.size += int64(len(u.prev))
	for j.size > j.max && len(j.order) > 1 {
		old := j.order[0]
		j.order = j.order[1:]
		if e, ok := j.entries[old]; ok {
			j.size -= int64(len(e.prev))
			delete(j.entries, old)
		}
	}
	return id
}

func (j *journal) take(id string) (*undo, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	u, ok := j.entries[id]
	if ok {
		delete(j.entries, id)
		j.size -= int64(len(u.prev))
	}
	return u, ok
}

// restore puts back what u recorded, in the workspace.
func (w *workspace) restore(u *undo) error {
	r := w.roots[0]
	l := loc{root: r, rel: u.rel, show: u.rel}
	if !u.existed {
		if err := r.r.Remove(u.rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return w.classify(l, err)
		}
		for i := len(u.dirs) - 1; i >= 0; i-- {
			_ = r.r.Remove(u.dirs[i]) // only if still empty
		}
		return nil
	}
	// A new file renamed over the name: if the name was made a hard link
	// to another file since, that file is not changed.
	return w.write(l, u.prev, u.mode, true)
}
