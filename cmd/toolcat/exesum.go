package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// The gen cache is keyed by the SHA-256 of toolcat's own executable: the
// same bytes generate the same files, whatever built them (a release, a
// checkout with changes, go tool, a build without vcs stamps), and two
// different builds never share an index.
//
// Hashing the executable reads all of it, some tens of milliseconds; the
// sum is kept in the user's cache directory (toolcat/exe/) by the
// executable's path, with the file's identity when it was hashed: device,
// inode, size, and its modification and change times. A later run uses the
// kept sum only when the identity is the same. The change time (ctime) is
// set by the kernel on every write, rename into place or chmod, and no
// program can set it back, so a file replaced or rewritten in place has
// another identity. A file changed less than exeSumMinAge before it was
// hashed has its sum not kept, so that a rewrite within the same tick of a
// coarse file-system clock cannot give it the identity it had.
var exeSumMinAge = 3 * time.Second

// exeSumRecord is what the cache keeps of one executable.
type exeSumRecord struct {
	Identity string `json:"identity"`
	SHA256   string `json:"sha256"`
}

// executableSum returns the SHA-256 of the running executable, in hex,
// kept in and taken from memo (a directory; "" keeps nothing).
func executableSum(memo string) (string, error) {
	f, path, err := openExecutable()
	if err != nil {
		return "", err
	}
	defer f.Close()
	return fileSum(f, path, memo, time.Now())
}

// fileSum returns the SHA-256 of the open file f, at path, in hex: the one
// memo keeps for path when f's identity is the one memo recorded,
// otherwise f's contents' sum, which it records when f is at least
// exeSumMinAge older than now.
func fileSum(f *os.File, path, memo string, now time.Time) (string, error) {
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	id, changed, ok := fileIdentity(fi)
	rec := ""
	if ok && memo != "" {
		s := sha256.Sum256([]byte(path))
		rec = filepath.Join(memo, hex.EncodeToString(s[:12])+".json")
		var r exeSumRecord
		if b, err := os.ReadFile(rec); err == nil && json.Unmarshal(b, &r) == nil && r.Identity == id && len(r.SHA256) == 2*sha256.Size {
			return r.SHA256, nil
		}
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hashing %s: %w", path, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if rec != "" && now.Sub(changed) >= exeSumMinAge {
		// The sum is only a shortcut: a failure to keep it costs the
		// next run the hashing.
		if b, err := json.Marshal(exeSumRecord{Identity: id, SHA256: sum}); err == nil && os.MkdirAll(memo, 0o755) == nil {
			writeAtomic(rec, b)
		}
	}
	return sum, nil
}

// openExecutable opens the running executable, the file
// runningExecutable names, and returns it with its path.
func openExecutable() (*os.File, string, error) {
	path, err := os.Executable()
	if err != nil {
		return nil, "", err
	}
	f, err := os.Open(runningExecutable(path))
	return f, path, err
}

// statIdentity is fileIdentity's answer for a file its system describes
// by these: what tells it from any other file and from its own earlier
// contents, and the later of its modification and change times.
func statIdentity(dev, ino uint64, size int64, mtime, ctime time.Time) (string, time.Time) {
	id := fmt.Sprintf("dev %d ino %d size %d mtime %d ctime %d", dev, ino, size, mtime.UnixNano(), ctime.UnixNano())
	return id, later(mtime, ctime)
}

// later returns the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
