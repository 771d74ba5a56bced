package main

import (
	"os"
	"syscall"
	"time"
)

// fileIdentity returns what tells fi's file from any other and from its
// own earlier contents, and the later of its modification and change
// times; ok is false when the system does not say.
func fileIdentity(fi os.FileInfo) (id string, changed time.Time, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", time.Time{}, false
	}
	id, changed = statIdentity(uint64(st.Dev), st.Ino, st.Size, time.Unix(st.Mtimespec.Unix()), time.Unix(st.Ctimespec.Unix()))
	return id, changed, true
}
