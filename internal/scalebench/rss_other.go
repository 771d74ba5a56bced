//go:build !unix

package scalebench

import "os"

// maxRSS is 0 where the process's rusage is not available.
func maxRSS(*os.ProcessState) int64 { return 0 }
