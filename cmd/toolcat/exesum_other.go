//go:build !linux && !darwin

package main

import (
	"os"
	"time"
)

// fileIdentity: on this system a file's change time is not known, so its
// sum is never kept and every run hashes the executable.
func fileIdentity(os.FileInfo) (string, time.Time, bool) {
	return "", time.Time{}, false
}
