package basetools

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"
)

const cgroup2Magic = 0x63677270 // CGROUP2_SUPER_MAGIC

// cgroupParent is ShellConfig.Cgroup, checked: a cgroup v2 folder in which
// each command gets a cgroup of its own.
type cgroupParent struct {
	dir string
	n   atomic.Uint64
}

func openCgroup(dir string) (*cgroupParent, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return nil, fmt.Errorf("basetools: Shell.Cgroup: %w", err)
	}
	if st.Type != cgroup2Magic {
		return nil, fmt.Errorf("basetools: Shell.Cgroup: %s is not in a cgroup v2 hierarchy", dir)
	}
	c := &cgroupParent{dir: dir}
	probe, err := c.make()
	if err != nil {
		return nil, fmt.Errorf("basetools: Shell.Cgroup: creating a cgroup in %s: %w (the host needs write access: root, or a delegated subtree)", dir, err)
	}
	defer os.Remove(probe)
	if _, err := os.Stat(filepath.Join(probe, "cgroup.kill")); err != nil {
		return nil, fmt.Errorf("basetools: Shell.Cgroup: %s has no cgroup.kill: Linux 5.14 or later is needed", dir)
	}
	return c, nil
}

// make creates a new cgroup and returns its folder.
func (c *cgroupParent) make() (string, error) {
	p := filepath.Join(c.dir, fmt.Sprintf("toolcat-%d-%d", os.Getpid(), c.n.Add(1)))
	return p, os.Mkdir(p, 0o755)
}

// enter makes cmd start in a new cgroup (clone3's CLONE_INTO_CGROUP, so
// that not even its first instruction runs outside it). After the command
// has started, started closes what enter opened; after it ended, end kills
// every process left in the cgroup and removes it.
func (c *cgroupParent) enter(cmd *exec.Cmd) (started, end func(), err error) {
	p, err := c.make()
	if err != nil {
		return nil, nil, err
	}
	fd, err := syscall.Open(p, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		os.Remove(p)
		return nil, nil, err
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.UseCgroupFD = true
	cmd.SysProcAttr.CgroupFD = fd
	closed := false
	started = func() {
		if !closed {
			syscall.Close(fd)
			closed = true
		}
	}
	end = func() {
		started()
		_ = os.WriteFile(filepath.Join(p, "cgroup.kill"), []byte("1"), 0)
		// The kill is asynchronous: the cgroup can be removed once it is
		// empty.
		deadline := time.Now().Add(2 * time.Second)
		for wait := 50 * time.Microsecond; ; wait = min(2*wait, 10*time.Millisecond) {
			if b, err := os.ReadFile(filepath.Join(p, "cgroup.events")); err != nil || bytes.Contains(b, []byte("populated 0")) {
				break
			}
			if time.Now().After(deadline) {
				break // a process stuck in the kernel: the cgroup is left behind
			}
			time.Sleep(wait)
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return
		}
	}
	return started, end, nil
}
