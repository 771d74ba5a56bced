package main

import (
	"os"
	"syscall"
	"time"
)

// runningExecutable is the file to hash for the executable at path:
// /proc/self/exe is the file the process runs even when its path has since
// been given to another file.
func runningExecutable(string) string { return "/proc/self/exe" }

// fileIdentity returns what tells fi's file from any other and from its
// own earlier contents, and the later of its modification and change
// times; ok is false when the system does not say.
func fileIdentity(fi os.FileInfo) (id string, changed time.Time, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", time.Time{}, false
	}
	id, changed = statIdentity(uint64(st.Dev), uint64(st.Ino), st.Size, time.Unix(st.Mtim.Unix()), time.Unix(st.Ctim.Unix()))
	return id, changed, true
}
