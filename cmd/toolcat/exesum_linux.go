package main

import (
	"fmt"
	"os"
	"syscall"
	"time"
)

// openExecutable opens the running executable and returns it with its
// path. /proc/self/exe is the file the process runs even when its path
// has since been given to another file.
func openExecutable() (*os.File, string, error) {
	path, err := os.Executable()
	if err != nil {
		return nil, "", err
	}
	f, err := os.Open("/proc/self/exe")
	return f, path, err
}

// fileIdentity returns what tells fi's file from any other and from its
// own earlier contents, and the later of its modification and change
// times; ok is false when the system does not say.
func fileIdentity(fi os.FileInfo) (id string, changed time.Time, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", time.Time{}, false
	}
	mtime, ctime := time.Unix(st.Mtim.Unix()), time.Unix(st.Ctim.Unix())
	id = fmt.Sprintf("dev %d ino %d size %d mtime %d ctime %d", st.Dev, st.Ino, st.Size, mtime.UnixNano(), ctime.UnixNano())
	return id, later(mtime, ctime), true
}
