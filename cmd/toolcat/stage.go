package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
)

// A stager writes the files of one output directory while the rest of
// the package is still rendering, so that creating them overlaps the
// work (creating a file is the costly part of writing it on some file
// systems); apply then only renames each into place. Nothing the user's
// build sees changes before apply: the files are written in a hidden
// staging directory of the output directory (.toolcat-gen-*, on the same
// file system, so a rename puts each file in place whole), which discard
// removes with whatever apply did not take. The staging directory holds
// stageLanes subdirectories, written at once: the kernel serialises
// creating files in one directory.
//
// Staging is best effort: a file that could not be staged, or whose
// contents apply wants differ from those staged, is written by apply
// through writeAtomic as before.
type stager struct {
	dir   string // the output directory
	made  bool   // the stager created dir, which discard removes if empty
	queue chan stageItem
	wg    sync.WaitGroup

	qmu    sync.Mutex // sending on queue, and closing it
	closed bool

	mu     sync.Mutex
	root   string // the staging directory; "" when there is none (any more)
	staged map[string]staged
}

type stageItem struct {
	name string
	data []byte
	new  bool // only if no file of that name exists (a scaffold)
}

type staged struct {
	tmp  string
	data []byte
}

// stageDirPattern names the staging directories (see os.MkdirTemp).
const stageDirPattern = ".toolcat-gen-*"

// stageLanes is the number of directories files are staged in at once:
// one per CPU, at least 2 and at most 8.
var stageLanes = min(max(runtime.GOMAXPROCS(0), 2), 8)

// newStager starts staging the files of dir, creating dir if its parent
// exists. It stages nothing when dir cannot be had, or the staging
// directory cannot be made.
func newStager(dir string) *stager {
	s := &stager{dir: dir, staged: map[string]staged{}}
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		if os.Mkdir(dir, 0o755) != nil {
			return s
		}
		s.made = true
	}
	root, err := os.MkdirTemp(dir, stageDirPattern)
	if err != nil {
		s.removeDir()
		return s
	}
	s.root = root
	s.queue = make(chan stageItem, 1024)
	for i := range stageLanes {
		lane := filepath.Join(root, strconv.Itoa(i))
		if os.Mkdir(lane, 0o700) != nil {
			lane = root
		}
		s.wg.Go(func() { s.work(lane) })
	}
	return s
}

// stage queues data to be staged as the file called name, unless that
// file holds data already. It may be called from several goroutines. s
// may be nil.
func (s *stager) stage(name string, data []byte) { s.enqueue(stageItem{name: name, data: data}) }

// stageNew queues data to be staged as the file called name if no file
// of that name exists.
func (s *stager) stageNew(name string, data []byte) {
	s.enqueue(stageItem{name: name, data: data, new: true})
}

func (s *stager) enqueue(it stageItem) {
	if s == nil || s.queue == nil {
		return
	}
	s.qmu.Lock()
	defer s.qmu.Unlock()
	if !s.closed {
		s.queue <- it
	}
}

func (s *stager) work(lane string) {
	for it := range s.queue {
		target := filepath.Join(s.dir, it.name)
		if it.new {
			if _, err := os.Lstat(target); !errors.Is(err, os.ErrNotExist) {
				continue
			}
		} else if old, err := os.ReadFile(target); err == nil && bytes.Equal(old, it.data) {
			continue
		}
		tmp := filepath.Join(lane, it.name)
		if err := writeNew(tmp, it.data); err != nil {
			os.Remove(tmp)
			continue
		}
		s.mu.Lock()
		s.staged[it.name] = staged{tmp: tmp, data: it.data}
		s.mu.Unlock()
	}
}

// writeNew creates the file name holding data; it fails if name exists.
func writeNew(name string, data []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	return fill(f, data)
}

// finish waits for what is queued to be staged; nothing is staged after.
func (s *stager) finish() {
	if s == nil || s.queue == nil {
		return
	}
	s.qmu.Lock()
	if !s.closed {
		s.closed = true
		close(s.queue)
	}
	s.qmu.Unlock()
	s.wg.Wait()
}

// take returns the staged file that holds data as the file called name,
// once what is queued is staged; the caller renames it into place.
func (s *stager) take(name string, data []byte) (string, bool) {
	if s == nil {
		return "", false
	}
	s.finish()
	s.mu.Lock()
	st, ok := s.staged[name]
	delete(s.staged, name)
	s.mu.Unlock()
	if ok && !bytes.Equal(st.data, data) {
		os.Remove(st.tmp)
		return "", false
	}
	return st.tmp, ok
}

// discard removes the staging directory with every file left in it, and
// the output directory if the stager created it and it is still empty.
// Call it once apply is done, or instead of apply.
func (s *stager) discard() error {
	if s == nil {
		return nil
	}
	s.finish()
	s.mu.Lock()
	root := s.root
	s.root = ""
	s.staged = map[string]staged{}
	s.mu.Unlock()
	var err error
	if root != "" {
		if e := os.RemoveAll(root); e != nil {
			err = fmt.Errorf("removing the staging directory: %w", e)
		}
	}
	s.removeDir()
	return err
}

// removeDir removes the output directory if the stager created it and it
// is empty.
func (s *stager) removeDir() {
	if s.made && os.Remove(s.dir) == nil {
		s.made = false
	}
}

// stagers are the stagers of one run of gen, which discardAll discards
// once the run is done, or when it is interrupted.
type stagers struct {
	mu   sync.Mutex
	list []*stager
	done bool
}

// open starts staging the files of dir (see newStager).
func (ss *stagers) open(dir string) *stager {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.done {
		return nil
	}
	s := newStager(dir)
	ss.list = append(ss.list, s)
	return s
}

// discardAll discards every stager; no stager is opened after it.
func (ss *stagers) discardAll() error {
	ss.mu.Lock()
	list := ss.list
	ss.list, ss.done = nil, true
	ss.mu.Unlock()
	var errs []error
	for _, s := range list {
		errs = append(errs, s.discard())
	}
	return errors.Join(errs...)
}
