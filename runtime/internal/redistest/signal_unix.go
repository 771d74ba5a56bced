//go:build unix

package redistest

import "syscall"

// The signals that pause and continue a server process.
var sigStop, sigCont = syscall.SIGSTOP, syscall.SIGCONT
