package basetools

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolcat/toolcat/runtime"
)

func newFilesJail(t *testing.T, cfg Config) *jail {
	t.Helper()
	j := &jail{ws: t.TempDir()}
	writeTree(t, j.ws, map[string]string{
		"a.txt":        "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n",
		"dup.txt":      "x = 1\nx = 1\n",
		"big.txt":      strings.Repeat("0123456789", 100),
		"docs/a.md":    "a",
		"docs/b/c.md":  "c",
		"src/main.go":  "package main\n",
		"src/util.txt": "u",
	})
	cfg.Workspace = j.ws
	set, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	if j.reg, err = NewRegistry(set.Tools()); err != nil {
		t.Fatal(err)
	}
	return j
}

func (j *jail) dryRun(t *testing.T, tool string, args map[string]any) *runtime.Preview {
	t.Helper()
	raw := mustJSON(t, args)
	res := j.reg.Call(t.Context(), tool, raw, runtime.CallOptions{DryRun: true, IdempotencyKey: "dry", Autonomy: runtime.AutonomyFull, Approved: true})
	if !res.Success {
		t.Fatalf("dry run of %s: %s", tool, res.JSON())
	}
	return decode[runtime.Preview](t, res)
}

func (j *jail) revert(t *testing.T, tool string, args map[string]any, res runtime.Result) {
	t.Helper()
	data := mustJSON(t, res.Data)
	if r := j.reg.Revert(t.Context(), tool, mustJSON(t, args), data, runtime.CallOptions{Autonomy: runtime.AutonomyFull, Approved: true}); !r.Success {
		t.Fatalf("revert of %s: %s", tool, r.JSON())
	}
}

func (j *jail) read(t *testing.T, name string) (string, bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(j.ws, name))
	return string(b), err == nil
}

func TestReadFileLimits(t *testing.T) {
	j := newFilesJail(t, Config{MaxReadBytes: 300})
	for _, c := range []struct {
		desc      string
		args      map[string]any
		content   string
		truncated bool
	}{
		{"cut at max_bytes", map[string]any{"path": "big.txt", "max_bytes": 15}, "012345678901234", true},
		{"cut at the host's cap", map[string]any{"path": "big.txt"}, strings.Repeat("0123456789", 30), true},
		{"read on from an offset to the end", map[string]any{"path": "big.txt", "offset": 995}, "56789", false},
		{"offset past the end", map[string]any{"path": "big.txt", "offset": 5000}, "", false},
		{"whole small file", map[string]any{"path": "docs/a.md"}, "a", false},
	} {
		res := j.call(t, "read_file", c.args)
		if !res.Success {
			t.Fatalf("%s: %s", c.desc, res.JSON())
		}
		got := decode[ReadFileResult](t, res)
		if got.Content != c.content || got.Truncated != c.truncated {
			t.Errorf("%s: content %q truncated %v, want %q %v", c.desc, clip(got.Content, 40), got.Truncated, clip(c.content, 40), c.truncated)
		}
	}
	if res := j.call(t, "read_file", map[string]any{"path": "docs"}); res.Success || res.Error.Code != runtime.CodeInvalidArgs {
		t.Errorf("reading a folder: %s", res.JSON())
	}
	if res := j.call(t, "read_file", map[string]any{"path": "nope.txt"}); res.Success || res.Error.Code != runtime.CodeNotFound {
		t.Errorf("reading a missing file: %s", res.JSON())
	}
}

func TestWriteFileDryRunAndRevert(t *testing.T) {
	j := newFilesJail(t, Config{})
	// Creating, with folders: dry run, write, revert removes all of it.
	args := map[string]any{"path": "new/deep/f.txt", "content": "hello"}
	p := j.dryRun(t, "write_file", args)
	if !strings.Contains(p.Summary, "would create new/deep/f.txt with 5 bytes") || len(p.Effects) != 3 {
		t.Errorf("dry run of a creation: %+v", p)
	}
	if _, ok := j.read(t, "new"); ok {
		t.Fatal("the dry run wrote")
	}
	res := j.call(t, "write_file", args)
	if got, _ := j.read(t, "new/deep/f.txt"); !res.Success || got != "hello" || !decode[WriteFileResult](t, res).Created {
		t.Fatalf("write: %s, file %q", res.JSON(), got)
	}
	j.revert(t, "write_file", args, res)
	if _, err := os.Lstat(filepath.Join(j.ws, "new")); !os.IsNotExist(err) {
		t.Errorf("revert left the created folders: %v", err)
	}
	// Overwriting: the revert restores the previous content.
	args = map[string]any{"path": "a.txt", "content": "replaced"}
	if p := j.dryRun(t, "write_file", args); !strings.Contains(p.Summary, "would overwrite a.txt (40 bytes) with 8 bytes") {
		t.Errorf("dry run of an overwrite: %+v", p)
	}
	res = j.call(t, "write_file", args)
	j.revert(t, "write_file", args, res)
	if got, _ := j.read(t, "a.txt"); got != "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n" {
		t.Errorf("after revert: %q", got)
	}
	// The same undo twice is refused.
	if r := j.reg.Revert(t.Context(), "write_file", mustJSON(t, args), mustJSON(t, res.Data), runtime.CallOptions{Autonomy: runtime.AutonomyFull, Approved: true}); r.Success {
		t.Error("a second revert of the same write succeeded")
	}
}

func TestWriteFileSizeLimit(t *testing.T) {
	j := newFilesJail(t, Config{MaxFileBytes: 10})
	res := j.call(t, "write_file", map[string]any{"path": "x.txt", "content": strings.Repeat("x", 11)})
	if res.Success || res.Error.Code != runtime.CodeInvalidArgs {
		t.Errorf("a write above MaxFileBytes: %s", res.JSON())
	}
	res = j.call(t, "append_file", map[string]any{"path": "docs/a.md", "content": strings.Repeat("x", 10)})
	if res.Success || res.Error.Code != runtime.CodeInvalidArgs {
		t.Errorf("an append above MaxFileBytes: %s", res.JSON())
	}
}

func TestAppendFileRevert(t *testing.T) {
	j := newFilesJail(t, Config{})
	args := map[string]any{"path": "docs/a.md", "content": "\nmore"}
	if p := j.dryRun(t, "append_file", args); !strings.Contains(p.Summary, "would add 5 bytes at the end of docs/a.md (1 bytes now)") {
		t.Errorf("dry run: %+v", p)
	}
	res := j.call(t, "append_file", args)
	if got, _ := j.read(t, "docs/a.md"); got != "a\nmore" {
		t.Fatalf("after append: %q (%s)", got, res.JSON())
	}
	j.revert(t, "append_file", args, res)
	if got, _ := j.read(t, "docs/a.md"); got != "a" {
		t.Errorf("after revert: %q", got)
	}
	args = map[string]any{"path": "fresh.log", "content": "line\n"}
	res = j.call(t, "append_file", args)
	j.revert(t, "append_file", args, res)
	if _, ok := j.read(t, "fresh.log"); ok {
		t.Error("revert left the file the append created")
	}
	if res := j.call(t, "append_file", map[string]any{"path": "nodir/x.log", "content": "x"}); res.Success || res.Error.Code != runtime.CodeNotFound {
		t.Errorf("append in a missing folder: %s", res.JSON())
	}
}

func TestEditFile(t *testing.T) {
	j := newFilesJail(t, Config{})
	args := map[string]any{"path": "a.txt", "old_text": "five\n", "new_text": "FIVE\n5\n"}
	p := j.dryRun(t, "edit_file", args)
	want := "--- a/a.txt\n+++ b/a.txt\n@@ -2,7 +2,8 @@\n two\n three\n four\n-five\n+FIVE\n+5\n six\n seven\n eight\n"
	if d := p.Data.(map[string]string)["diff"]; d != want {
		t.Errorf("diff:\n%s\nwant:\n%s", d, want)
	}
	if got, _ := j.read(t, "a.txt"); strings.Contains(got, "FIVE") {
		t.Fatal("the dry run edited")
	}
	res := j.call(t, "edit_file", args)
	if got, _ := j.read(t, "a.txt"); !res.Success || got != "one\ntwo\nthree\nfour\nFIVE\n5\nsix\nseven\neight\n" {
		t.Fatalf("edit: %s, file %q", res.JSON(), got)
	}
	if line := decode[EditFileResult](t, res).Line; line != 5 {
		t.Errorf("line %d, want 5", line)
	}
	j.revert(t, "edit_file", args, res)
	if got, _ := j.read(t, "a.txt"); got != "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n" {
		t.Errorf("after revert: %q", got)
	}
	// Ambiguous and absent matches are refused with a hint.
	res = j.call(t, "edit_file", map[string]any{"path": "dup.txt", "old_text": "x = 1", "new_text": "x = 2"})
	if res.Success || res.Error.Code != runtime.CodeInvalidArgs || !strings.Contains(res.Error.Message, "occurs 2 times in \"dup.txt\" (lines 1, 2)") {
		t.Errorf("ambiguous edit: %s", res.JSON())
	}
	res = j.call(t, "edit_file", map[string]any{"path": "a.txt", "old_text": "one  two", "new_text": "x"})
	if res.Success || res.Error.Code != runtime.CodeNotFound || !strings.Contains(res.Error.Message, "other whitespace") {
		t.Errorf("absent edit: %s", res.JSON())
	}
}

func TestUnifiedDiffEdges(t *testing.T) {
	for _, c := range []struct {
		desc, s, old, repl, want string
	}{
		{"first line, no newline at the end", "abc", "b", "B", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-abc\n\\ No newline at end of file\n+aBc\n\\ No newline at end of file\n"},
		{"a line deleted", "a\nb\nc\n", "b\n", "", "--- a/f\n+++ b/f\n@@ -1,3 +1,2 @@\n a\n-b\n c\n"},
	} {
		at := strings.Index(c.s, c.old)
		if got := unifiedDiff("f", c.s, at, len(c.old), c.repl); got != c.want {
			t.Errorf("%s:\n%s\nwant:\n%s", c.desc, got, c.want)
		}
	}
}

func TestListDirAndFindFiles(t *testing.T) {
	j := newFilesJail(t, Config{MaxFindVisits: 100})
	res := j.call(t, "list_dir", map[string]any{"path": ".", "max_entries": 3})
	got := decode[ListDirResult](t, res)
	var names []string
	for _, e := range got.Entries {
		names = append(names, e.Name+":"+string(e.Kind))
	}
	if strings.Join(names, " ") != "a.txt:file big.txt:file docs:dir" || !got.Truncated {
		t.Errorf("list_dir: %v truncated %v", names, got.Truncated)
	}
	for _, c := range []struct {
		pattern, path string
		want          string
	}{
		{"**/*.md", ".", "docs/a.md docs/b/c.md"},
		{"*.md", "docs", "docs/a.md"},
		{"src/*", ".", "src/main.go src/util.txt"},
		{"**/c.md", ".", "docs/b/c.md"},
		{"*.go", ".", ""},
	} {
		res := j.call(t, "find_files", map[string]any{"pattern": c.pattern, "path": c.path})
		if g := strings.Join(decode[FindFilesResult](t, res).Paths, " "); g != c.want {
			t.Errorf("find_files %q in %q: %q, want %q", c.pattern, c.path, g, c.want)
		}
	}
	res = j.call(t, "find_files", map[string]any{"pattern": "**", "max_results": 2})
	if f := decode[FindFilesResult](t, res); len(f.Paths) != 2 || !f.Truncated {
		t.Errorf("max_results: %+v", f)
	}
	if res := j.call(t, "find_files", map[string]any{"pattern": "[a-"}); res.Success || res.Error.Code != runtime.CodeInvalidArgs {
		t.Errorf("a bad pattern: %s", res.JSON())
	}
	// Visits are bounded: a tree bigger than MaxFindVisits is cut.
	files := map[string]string{}
	for i := range 200 {
		files[filepath.Join("many", strings.Repeat("d", 1+i%5), string(rune('a'+i%26))+string(rune('a'+i/26))+".txt")] = "x"
	}
	writeTree(t, j.ws, files)
	res = j.call(t, "find_files", map[string]any{"pattern": "**/*.txt", "max_results": 5000})
	if f := decode[FindFilesResult](t, res); !f.Truncated || len(f.Paths) >= 200 {
		t.Errorf("the walk was not bounded: %d paths, truncated %v", len(f.Paths), f.Truncated)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReadFileFIFO(t *testing.T) {
	j := newFilesJail(t, Config{})
	if err := syscall.Mkfifo(filepath.Join(j.ws, "pipe"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for _, tool := range []string{"read_file", "edit_file"} {
		done := make(chan runtime.Result, 1)
		go func() { done <- j.call(t, tool, argsFor(tool, "pipe")) }()
		select {
		case res := <-done:
			if res.Success || res.Error.Code != runtime.CodeInvalidArgs {
				t.Errorf("%s of a FIFO: %s", tool, res.JSON())
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s of a FIFO hangs", tool)
		}
	}
}

func TestSetRegister(t *testing.T) {
	ws := t.TempDir()
	writeTree(t, ws, map[string]string{"hello.txt": "hi"})
	set, err := Open(Config{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	reg := runtime.New()
	if err := set.Register(reg); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(reg.Names(), " "); got != "append_file edit_file fetch_web_page find_files get_current_time list_dir read_file run_shell_command write_file" {
		t.Errorf("names: %s", got)
	}
	res := reg.Call(t.Context(), "read_file", []byte(`{"path":"hello.txt"}`), runtime.CallOptions{})
	if !res.Success || !strings.Contains(string(res.JSON()), `"content":"hi"`) {
		t.Errorf("read_file through the host's registry: %s", res.JSON())
	}
	if err := set.Register(reg); err == nil {
		t.Error("registering twice succeeded")
	}
	if _, err := Open(Config{Workspace: filepath.Join(ws, "hello.txt")}); err == nil {
		t.Error("a file as the workspace was accepted")
	}
	if _, err := Open(Config{}); err == nil {
		t.Error("no workspace was accepted")
	}
}

// TestLargestResults checks that the largest reads the limits allow fit
// in the tools' max_result_bytes, escaping included.
func TestLargestResults(t *testing.T) {
	j := newFilesJail(t, Config{})
	writeTree(t, j.ws, map[string]string{"huge.txt": strings.Repeat("\x01\"", 1<<19)})
	res := j.call(t, "read_file", map[string]any{"path": "huge.txt", "max_bytes": 1 << 20})
	if got := decode[ReadFileResult](t, res); !res.Success || len(got.Content) != 1<<20 || got.Truncated {
		t.Errorf("a 1 MiB read of control characters: %s", clip(string(res.JSON()), 300))
	}
	files := map[string]string{}
	for i := range 3000 {
		files[fmt.Sprintf("wide/%s%04d", strings.Repeat("\x01", 240), i)] = ""
	}
	writeTree(t, j.ws, files)
	res = j.call(t, "list_dir", map[string]any{"path": "wide", "max_entries": 10000})
	if got := decode[ListDirResult](t, res); !res.Success || got.Truncated || len(got.Entries) != 3000 {
		t.Errorf("listing 3000 long names: %s", clip(string(res.JSON()), 300))
	}
	res = j.call(t, "find_files", map[string]any{"pattern": "wide/*", "max_results": 5000})
	if got := decode[FindFilesResult](t, res); !res.Success || got.Truncated || len(got.Paths) != 3000 {
		t.Errorf("finding 3000 long names: %s", clip(string(res.JSON()), 300))
	}
}
