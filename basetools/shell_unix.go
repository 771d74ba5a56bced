//go:build unix

package basetools

import (
	"errors"
	"os/exec"
	"syscall"
)

// startGroup starts the command in a process group of its own and, when
// its context ends, kills the whole group.
func startGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
}

// killGroup kills every process of the group pgid. Called once its leader
// has been waited for, it still reaches the group: the kernel does not
// give the leader's number to a new process while the group has members.
func killGroup(pgid int) error {
	if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

// oNonblock keeps opening a FIFO from waiting for a writer.
const oNonblock = syscall.O_NONBLOCK
