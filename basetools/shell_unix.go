//go:build unix

package basetools

import (
	"os/exec"
	"syscall"
)

// killGroup starts the command in a process group of its own and, when
// its context ends, kills the whole group, so that children a script
// started stop too.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// oNonblock keeps opening a FIFO from waiting for a writer.
const oNonblock = syscall.O_NONBLOCK
