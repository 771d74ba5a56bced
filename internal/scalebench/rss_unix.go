//go:build unix

package scalebench

import (
	"os"
	goruntime "runtime"
	"syscall"
)

// maxRSS reads the peak resident set of a finished process from the
// rusage wait4 returned: kilobytes on Linux and the BSDs, bytes on macOS.
func maxRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return 0
	}
	if goruntime.GOOS == "darwin" || goruntime.GOOS == "ios" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) * 1024
}
