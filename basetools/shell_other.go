//go:build !unix

package basetools

import "os/exec"

// killGroup leaves the command as it is: only the program itself is killed
// when its context ends.
func killGroup(cmd *exec.Cmd) {}

// oNonblock is 0 where there is no such flag.
const oNonblock = 0
