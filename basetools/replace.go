package basetools

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"strings"
)

// The write tools never write into an existing file. os.Root confines
// names, not the files they name: a regular file of the workspace may be a
// hard link to a file outside it, made by anything else on the host, and a
// write into it would change the outside file. So every write — write_file,
// append_file, edit_file and their undos — puts the new content in a new
// file of the same folder and renames it over the name: whatever the name
// was when the rename happens, the file it named is not changed, only the
// name is. The tools also refuse to change a file with more than one link
// (the read tools too, unless Config.ReadHardLinks), checking the file they
// opened, not the name.

// A target is a file the write tools change: its folder, opened as a root
// of its own so that the read, the new file and the rename all happen in
// that one folder, and its name there.
type target struct {
	l    loc
	dir  *os.Root
	name string
}

// openTarget opens the folder of l; close the target after use. A path
// into a repository's .git folder is refused (see outsideGitDir).
func (w *workspace) openTarget(l loc) (*target, error) {
	if err := w.outsideGitDir(l); err != nil {
		return nil, err
	}
	dir, err := l.root.r.OpenRoot(path.Dir(l.rel))
	if err != nil {
		return nil, w.classify(loc{root: l.root, rel: path.Dir(l.rel), show: path.Dir(l.show)}, err)
	}
	return &target{l: l, dir: dir, name: path.Base(l.rel)}, nil
}

func (t *target) close() { t.dir.Close() }

// current is what a target holds now.
type current struct {
	exists  bool
	content []byte
	mode    fs.FileMode
}

// read reads the target's file, up to max bytes, refusing what is not a
// regular file, a symlink (the tools write to the file it names) and a
// file with more than one link. A target that does not exist is not an
// error.
func (w *workspace) read(t *target, max int64) (current, error) {
	lfi, err := t.dir.Lstat(t.name)
	if errors.Is(err, fs.ErrNotExist) {
		return current{}, nil
	}
	if err != nil {
		return current{}, w.classify(t.l, err)
	}
	switch {
	case lfi.Mode()&fs.ModeSymlink != 0:
		return current{}, denied("%s is a symlink; the file tools do not change a file through one: give the path of the file it names", quote(t.l.show))
	case lfi.IsDir():
		return current{}, invalid("%s is a folder", quote(t.l.show))
	case !lfi.Mode().IsRegular():
		return current{}, invalid("%s is not a regular file", quote(t.l.show))
	}
	f, err := t.dir.OpenFile(t.name, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return current{}, w.classify(t.l, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return current{}, w.classify(t.l, err)
	}
	if !os.SameFile(lfi, fi) {
		return current{}, invalid("%s changed while it was read; try again", quote(t.l.show))
	}
	if err := w.checkLinks(t.l, fi, true); err != nil {
		return current{}, err
	}
	b, err := readUpTo(f, fi.Size(), max, t.l)
	if err != nil {
		return current{}, err
	}
	return current{exists: true, content: b, mode: fi.Mode().Perm()}, nil
}

// checkLinks refuses a regular file with more than one hard link: for a
// write always, for a read unless the host allows it.
func (w *workspace) checkLinks(l loc, fi fs.FileInfo, write bool) error {
	n := linkCount(fi)
	if n <= 1 || !fi.Mode().IsRegular() || !write && w.cfg.ReadHardLinks {
		return nil
	}
	what := "read"
	if write {
		what = "changed"
	}
	return denied("%s has %d hard links: another name, perhaps outside the workspace, shares this file, so it is not %s; write a new file instead", quote(l.show), n, what)
}

// replace puts data at the target's name: in a new file of its folder,
// synced, then renamed over the name, so a reader sees the old content or
// the new one, never a mix, and no other name of the old file sees any
// change. mode is the new file's permissions; keep says to set them
// exactly (those of the file replaced) rather than through the umask.
func (t *target) replace(data []byte, mode fs.FileMode, keep bool) error {
	var f *os.File
	var tmp string
	var err error
	for range 5 {
		tmp = fmt.Sprintf(".toolcat-%016x.tmp", rand.Uint64())
		f, err = t.dir.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	var merr error
	if keep {
		merr = f.Chmod(mode)
	}
	serr := f.Sync()
	cerr := f.Close()
	if err := firstErr(werr, merr, serr, cerr); err != nil {
		t.dir.Remove(tmp)
		return err
	}
	if err := t.dir.Rename(tmp, t.name); err != nil {
		t.dir.Remove(tmp)
		return err
	}
	return nil
}

// write replaces the file at l with data (see replace), in a folder that
// exists.
func (w *workspace) write(l loc, data []byte, mode fs.FileMode, keep bool) error {
	t, err := w.openTarget(l)
	if err != nil {
		return err
	}
	defer t.close()
	return w.classify(l, t.replace(data, mode, keep))
}

// outsideGitDir refuses l if it names a .git folder, a file in one, or a
// .git file (which points git to another folder), in any letter case,
// or reaches the workspace's .git folder through a symlink: git runs the
// programs its configuration and hooks there name (core.fsmonitor,
// core.hooksPath, diff.external, aliases), so writing them would let the
// model run any program through an allowed git. A repository is changed
// with git itself.
func (w *workspace) outsideGitDir(l loc) error {
	refuse := func() error {
		return denied("%s is in a repository's .git folder, whose configuration and hooks name programs git runs: the file tools do not write there; change the repository with git", quote(l.show))
	}
	for part := range strings.SplitSeq(l.rel, "/") {
		if strings.EqualFold(part, ".git") {
			return refuse()
		}
	}
	git, err := l.root.r.Stat(".git")
	if err != nil {
		return nil
	}
	for dir := path.Dir(l.rel); dir != "." && dir != "/"; dir = path.Dir(dir) {
		if fi, err := l.root.r.Stat(dir); err == nil && os.SameFile(fi, git) {
			return refuse()
		}
	}
	return nil
}
