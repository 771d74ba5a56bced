//go:build !unix

package basetools

import "os/exec"

// startGroup leaves the command as it is: only the program itself is
// killed when its context ends.
func startGroup(cmd *exec.Cmd) {}

func killGroup(pgid int) error { return nil }

// oNonblock is 0 where there is no such flag.
const oNonblock = 0
