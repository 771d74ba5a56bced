package basetools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/toolcat/toolcat/runtime"
)

// TestHardLinks plants hard links in the workspace to files outside: no
// tool reads one (unless the host allows reads of linked files), no tool
// writes, appends to or edits one, and no dry run shows its content.
func TestHardLinks(t *testing.T) {
	j := newJail(t)
	link := func(name, target string) {
		t.Helper()
		p := filepath.Join(j.ws, name)
		os.Remove(p)
		if err := os.Link(filepath.Join(j.out, target), p); err != nil {
			t.Fatal(err)
		}
	}
	link("hl.txt", "secret.txt")
	before := snapshotOutside(t, j)
	for _, tool := range fileTools {
		if tool == "list_dir" || tool == "find_files" {
			continue // they name files, they do not read them
		}
		res := j.call(t, tool, argsFor(tool, "hl.txt"))
		if res.Success || res.Error.Code != runtime.CodePermissionDenied || !strings.Contains(res.Error.Message, "hard link") {
			t.Errorf("%s of a hard link to the outside: %s", tool, res.JSON())
		}
		if strings.Contains(string(res.JSON()), secret) {
			t.Errorf("%s showed the outside content", tool)
		}
	}
	for _, tool := range writeTools {
		raw := mustJSON(t, argsFor(tool, "hl.txt"))
		res := j.reg.Call(t.Context(), tool, raw, runtime.CallOptions{DryRun: true, IdempotencyKey: "dry-" + tool, Autonomy: runtime.AutonomyFull, Approved: true})
		if res.Success || strings.Contains(string(res.JSON()), secret) {
			t.Errorf("dry run of %s on a hard link: %s", tool, res.JSON())
		}
	}
	if after := snapshotOutside(t, j); after != before {
		t.Errorf("the outside changed:\nbefore %s\nafter  %s", before, after)
	}

	// A host that allows reads of linked files gets them read, and still
	// no write.
	r := newJailWith(t, Config{ReadHardLinks: true})
	if err := os.Link(filepath.Join(r.out, "secret.txt"), filepath.Join(r.ws, "hl.txt")); err != nil {
		t.Fatal(err)
	}
	if res := r.call(t, "read_file", map[string]any{"path": "hl.txt"}); !res.Success || decode[ReadFileResult](t, res).Content != secret {
		t.Errorf("read with ReadHardLinks: %s", res.JSON())
	}
	for _, tool := range writeTools {
		if res := r.call(t, tool, argsFor(tool, "hl.txt")); res.Success {
			t.Errorf("%s with ReadHardLinks changed a linked file: %s", tool, res.JSON())
		}
	}
	if b, _ := os.ReadFile(filepath.Join(r.out, "secret.txt")); string(b) != secret {
		t.Errorf("the outside file changed: %q", b)
	}
}

// TestWritesReplaceTheFile checks that every write leaves a new inode at
// the name, with the file's permissions, so that a link made between the
// tool's checks and its write still never reaches the other file.
func TestWritesReplaceTheFile(t *testing.T) {
	j := newJail(t)
	p := filepath.Join(j.ws, "notes.txt")
	if err := os.Chmod(p, 0o640); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"write_file", map[string]any{"path": "notes.txt", "content": "one\n"}, "one\n"},
		{"append_file", map[string]any{"path": "notes.txt", "content": "two\n"}, "one\ntwo\n"},
		{"edit_file", map[string]any{"path": "notes.txt", "old_text": "two", "new_text": "2"}, "one\n2\n"},
	} {
		ino := inode(t, p)
		if res := j.call(t, c.tool, c.args); !res.Success {
			t.Fatalf("%s: %s", c.tool, res.JSON())
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != c.want {
			t.Errorf("%s: content %q, want %q", c.tool, b, c.want)
		}
		if inode(t, p) == ino {
			t.Errorf("%s wrote the file in place", c.tool)
		}
		if fi.Mode().Perm() != 0o640 {
			t.Errorf("%s: mode %v, want 0640", c.tool, fi.Mode().Perm())
		}
	}
	entries, _ := os.ReadDir(j.ws)
	for _, e := range entries {
		if strings.Contains(e.Name(), "toolcat") {
			t.Errorf("a temporary file was left: %s", e.Name())
		}
	}
}

// TestHardLinkRace swaps a workspace file between a file of its own and a
// hard link to the outside while writes, appends, edits and their undos
// go through it: the outside file never changes.
func TestHardLinkRace(t *testing.T) {
	j := newJail(t)
	name := filepath.Join(j.ws, "race.txt")
	outside := filepath.Join(j.out, "ok.txt")
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		tmp := filepath.Join(j.ws, "race.swap")
		for i := 0; !stop.Load(); i++ {
			os.Remove(tmp)
			var err error
			if i%2 == 0 {
				err = os.Link(outside, tmp)
			} else {
				err = os.WriteFile(tmp, []byte("SECRET inside\n"), 0o644)
			}
			if err == nil {
				os.Rename(tmp, name)
			}
		}
	})
	var calls atomic.Int64
	for w := range 3 {
		wg.Go(func() {
			for i := range 100 {
				for _, tool := range writeTools {
					args := argsFor(tool, "race.txt")
					args["content"] = fmt.Sprintf("w%d-%d\n", w, i)
					if res := j.call(t, tool, args); res.Success {
						j.reg.Revert(t.Context(), tool, mustJSON(t, args), mustJSON(t, res.Data), runtime.CallOptions{Autonomy: runtime.AutonomyFull, Approved: true})
					}
					calls.Add(1)
				}
			}
		})
	}
	for calls.Load() < 900 {
		runtimeGosched()
	}
	stop.Store(true)
	wg.Wait()
	if b, _ := os.ReadFile(outside); string(b) != secret {
		t.Errorf("the outside file changed: %q", clip(string(b), 80))
	}
}

// TestUndoThroughAHardLink replaces a written file by a hard link to the
// outside before its undo: the undo puts the previous content back at the
// name, and the outside file is untouched.
func TestUndoThroughAHardLink(t *testing.T) {
	j := newJail(t)
	big := filepath.Join(j.out, "big.txt")
	bigContent := strings.Repeat(secret, 10)
	if err := os.WriteFile(big, []byte(bigContent), 0o644); err != nil {
		t.Fatal(err)
	}
	swap := func(name string) {
		t.Helper()
		p := filepath.Join(j.ws, name)
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(big, p); err != nil {
			t.Fatal(err)
		}
	}
	for _, tool := range writeTools {
		args := map[string]any{"path": "notes.txt", "content": "new\n"}
		if tool == "edit_file" {
			args = map[string]any{"path": "notes.txt", "old_text": "inside", "new_text": "changed"}
		}
		os.Remove(filepath.Join(j.ws, "notes.txt")) // the link the last round left, not the file
		if err := os.WriteFile(filepath.Join(j.ws, "notes.txt"), []byte("inside\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		res := j.call(t, tool, args)
		if !res.Success {
			t.Fatalf("%s: %s", tool, res.JSON())
		}
		swap("notes.txt")
		r := j.reg.Revert(t.Context(), tool, mustJSON(t, args), mustJSON(t, res.Data), runtime.CallOptions{Autonomy: runtime.AutonomyFull, Approved: true})
		t.Logf("undo of %s over a hard link: %s", tool, r.JSON())
		if b, _ := os.ReadFile(big); string(b) != bigContent {
			t.Fatalf("the undo of %s changed the outside file: %q", tool, clip(string(b), 80))
		}
		// The journal's undos put the previous content back at the name;
		// append's undo, which cuts the file it finds, refuses a linked one.
		got, _ := j.read(t, "notes.txt")
		if tool != "append_file" && (!r.Success || got != "inside\n") {
			t.Errorf("undo of %s: %s, notes.txt %q", tool, r.JSON(), got)
		}
		if tool == "append_file" && r.Success {
			t.Errorf("undo of append_file cut a linked file: %s", r.JSON())
		}
	}
}

func inode(t *testing.T, p string) uint64 {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// BenchmarkWriteFile measures write_file replacing a 4 KiB file (a new
// file, synced, renamed over the name) against its peer, os.WriteFile
// writing the same file in place.
func BenchmarkWriteFile(b *testing.B) {
	content := strings.Repeat("x", 4<<10)
	b.Run("tool", func(b *testing.B) {
		ws := b.TempDir()
		set, err := Open(Config{Workspace: ws})
		if err != nil {
			b.Fatal(err)
		}
		defer set.Close()
		tool := set.Tools().WriteFile
		args := &WriteFileArgs{Path: "f.txt", Content: content}
		for b.Loop() {
			if _, err := tool.Execute(b.Context(), args); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("os.WriteFile", func(b *testing.B) {
		p := filepath.Join(b.TempDir(), "f.txt")
		for b.Loop() {
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	})
}
