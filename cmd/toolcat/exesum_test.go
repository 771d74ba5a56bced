package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The build key of the gen cache is the SHA-256 of the running executable,
// whatever built it: here a test binary, which has no vcs stamp.
func TestExecutableSumIsTheExecutablesSHA256(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	got, err := executableSum(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if want := hexSHA256(data); got != want {
		t.Fatalf("executableSum() = %s, want %s", got, want)
	}
}

func hexSHA256(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// sumOf opens path and returns fileSum of it at now with the memo memo.
func sumOf(t *testing.T, path, memo string, now time.Time) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sum, err := fileSum(f, path, memo, now)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// The kept sum of an executable is used while the file is the one hashed,
// and never once it was rewritten in place (even with its size and
// modification time as they were) or replaced.
func TestFileSumKeptByIdentity(t *testing.T) {
	if _, _, ok := fileIdentity(statOf(t, os.Args[0])); !ok {
		t.Skip("no file identity on this system: every run hashes the executable")
	}
	dir, memo := t.TempDir(), t.TempDir()
	path := filepath.Join(dir, "toolcat")
	a := bytes.Repeat([]byte("a"), 1000)
	if err := os.WriteFile(path, a, 0o755); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour) // the file is old enough to be kept
	if got := sumOf(t, path, memo, later); got != hexSHA256(a) {
		t.Fatalf("sum %s, want %s", got, hexSHA256(a))
	}
	recs, _ := filepath.Glob(filepath.Join(memo, "*.json"))
	if len(recs) != 1 {
		t.Fatalf("the memo holds %d records, want 1", len(recs))
	}
	// The kept sum is what a later run takes: plant another to see it.
	var r exeSumRecord
	b, _ := os.ReadFile(recs[0])
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	planted := strings.Repeat("0", 64)
	r.SHA256 = planted
	b, _ = json.Marshal(r)
	if err := os.WriteFile(recs[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := sumOf(t, path, memo, later); got != planted {
		t.Fatalf("sum %s, want the kept %s", got, planted)
	}

	// Rewritten in place: the same size, the modification time set back.
	mtime := statOf(t, path).ModTime()
	c := bytes.Repeat([]byte("c"), len(a))
	for i := 0; ; i++ {
		if err := os.WriteFile(path, c, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		if id, _, _ := fileIdentity(statOf(t, path)); id != r.Identity {
			break
		}
		// The change time is that of the rewrite, which the file
		// system's clock may not yet tell from the first write.
		if i == 1000 {
			t.Fatalf("a rewritten file keeps its identity %q", r.Identity)
		}
		time.Sleep(time.Millisecond)
	}
	if got := sumOf(t, path, memo, later); got != hexSHA256(c) {
		t.Fatalf("rewritten in place: sum %s, want %s", got, hexSHA256(c))
	}

	// Replaced: another file renamed onto the path.
	d := bytes.Repeat([]byte("d"), len(a))
	if err := writeAtomic(path, d); err != nil {
		t.Fatal(err)
	}
	if got := sumOf(t, path, memo, later); got != hexSHA256(d) {
		t.Fatalf("replaced: sum %s, want %s", got, hexSHA256(d))
	}
}

// The sum of a file changed just before it was hashed is not kept: a
// rewrite within the same tick of the file system's clock could give the
// file the same identity.
func TestFileSumOfNewFileNotKept(t *testing.T) {
	dir, memo := t.TempDir(), t.TempDir()
	path := filepath.Join(dir, "toolcat")
	if err := os.WriteFile(path, []byte("new"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, changed, _ := fileIdentity(statOf(t, path))
	if got := sumOf(t, path, memo, changed.Add(exeSumMinAge-time.Millisecond)); got != hexSHA256([]byte("new")) {
		t.Fatalf("sum %s", got)
	}
	if recs, _ := filepath.Glob(filepath.Join(memo, "*")); len(recs) != 0 {
		t.Fatalf("the sum of a file changed %v before was kept: %v", exeSumMinAge-time.Millisecond, recs)
	}
}

func statOf(t *testing.T, path string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}
