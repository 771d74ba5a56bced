package basetools

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	goruntime "runtime"

	"github.com/toolcat/toolcat/runtime"
)

// secret is the content of every file outside the workspace: no answer
// may ever hold it.
const secret = "SECRET-OUTSIDE"

// jail is a workspace with an outside folder beside it, a read-only root,
// and symlinks in and out.
type jail struct {
	base, ws, out, ro string
	set               *Set
	reg               *runtime.Registry
	key               atomic.Int64
}

func newJail(t testing.TB) *jail {
	t.Helper()
	return newJailWith(t, Config{})
}

// newJailWith is newJail with cfg (its Workspace and ReadOnly are set).
func newJailWith(t testing.TB, cfg Config) *jail {
	t.Helper()
	base := t.TempDir()
	j := &jail{base: base, ws: filepath.Join(base, "ws"), out: filepath.Join(base, "outside"), ro: filepath.Join(base, "ro")}
	writeTree(t, base, map[string]string{
		"ws/inside.txt":      "inside\n",
		"ws/sub/inside.txt":  "inside\n",
		"ws/notes.txt":       "inside\n",
		"outside/secret.txt": secret,
		"outside/ok.txt":     secret,
		"ro/ro.txt":          "read-only\n",
	})
	links := map[string]string{
		"ws/link_out": "../outside",
		"ws/abs_out":  j.out,
		"ws/file_out": "../outside/secret.txt",
		"ws/link_in":  "sub",
		"ws/proc":     "/proc/self/root",
		"ws/chain1":   "chain2",
		"ws/chain2":   "sub/up",
		"ws/sub/up":   "../../outside",
		"ws/loop":     "loop",
		"ws/ro_link":  j.ro,
		"ws/dangle":   "../outside/new.txt",
		"ws/etc":      "/etc",
		"ro/esc":      "../outside",
		"ro/esc_file": "../outside/secret.txt",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(base, name)); err != nil {
			t.Fatal(err)
		}
	}
	cfg.Workspace, cfg.ReadOnly = j.ws, []string{j.ro}
	set, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	j.set = set
	if j.reg, err = NewRegistry(set.Tools()); err != nil {
		t.Fatal(err)
	}
	return j
}

// call calls a tool as a fully autonomous, approved agent.
func (j *jail) call(t *testing.T, tool string, args map[string]any) runtime.Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return j.reg.Call(t.Context(), tool, raw, runtime.CallOptions{
		IdempotencyKey: fmt.Sprint("k", j.key.Add(1)), Autonomy: runtime.AutonomyFull, Approved: true,
	})
}

// argsFor are the arguments of each file tool for path p.
func argsFor(tool, p string) map[string]any {
	switch tool {
	case "find_files":
		return map[string]any{"path": p, "pattern": "**"}
	case "write_file":
		return map[string]any{"path": p, "content": "pwned"}
	case "append_file":
		return map[string]any{"path": p, "content": "pwned"}
	case "edit_file":
		return map[string]any{"path": p, "old_text": "SECRET", "new_text": "pwned"}
	}
	return map[string]any{"path": p}
}

var (
	readTools  = []string{"read_file", "list_dir", "find_files"}
	writeTools = []string{"write_file", "append_file", "edit_file"}
	fileTools  = append(append([]string{}, readTools...), writeTools...)
)

// TestConfinementEscapes tries to leave the workspace in every way in
// the table, with every file tool; each attempt must fail with the code
// given, no answer may hold the outside content, and nothing outside may
// change.
func TestConfinementEscapes(t *testing.T) {
	j := newJail(t)
	const (
		denied  = runtime.CodePermissionDenied
		invalid = runtime.CodeInvalidArgs
		missing = runtime.CodeNotFound
		failed  = runtime.Code("") // any failure
	)
	long := strings.Repeat("a", 300)
	cases := []struct {
		desc  string
		path  string
		tools []string
		want  runtime.Code
	}{
		{"dot-dot", "../outside/secret.txt", fileTools, denied},
		{"dot-dot chain to /etc", "../../../../../../../../etc/passwd", fileTools, denied},
		{"dot-dot after a missing folder", "a/../../outside/secret.txt", fileTools, denied},
		{"dot slash dot-dot", "./../outside/secret.txt", fileTools, denied},
		{"dot-dot after a real folder", "sub/../../outside/secret.txt", fileTools, denied},
		{"doubled slashes", "..//..//outside//secret.txt", fileTools, denied},
		{"dots mixed in", "sub/./.././../outside/./secret.txt", fileTools, denied},
		{"bare dot-dot", "..", fileTools, denied},
		{"absolute /etc/passwd", "/etc/passwd", fileTools, denied},
		{"absolute path of the outside file", "OUT/secret.txt", fileTools, denied},
		{"absolute workspace path with dot-dot", "WS/../outside/secret.txt", fileTools, denied},
		{"absolute workspace prefix without separator", "WS-evil/secret.txt", fileTools, denied},
		{"/proc/self/root", "/proc/self/root/etc/passwd", fileTools, denied},
		{"/proc/self/cwd", "/proc/self/cwd/../outside/secret.txt", fileTools, denied},
		{"relative symlink to a folder outside", "link_out/secret.txt", fileTools, denied},
		{"absolute symlink to a folder outside", "abs_out/secret.txt", fileTools, denied},
		{"symlink to a file outside", "file_out", fileTools, denied},
		{"symlink chain leading outside", "chain1/secret.txt", fileTools, denied},
		{"symlink in a subfolder leading outside", "sub/up/secret.txt", fileTools, denied},
		{"symlink to /proc/self/root", "proc/etc/passwd", fileTools, denied},
		{"symlink to /etc", "etc/passwd", fileTools, denied},
		{"listing a symlinked folder outside", "link_out", readTools, denied},
		{"symlink to the read-only root", "ro_link/ro.txt", fileTools, denied},
		{"dangling symlink to a new file outside", "dangle", writeTools, denied},
		{"symlink loop", "loop", fileTools, failed},
		{"NUL byte", "secret.txt\x00", fileTools, invalid},
		{"NUL byte before dot-dot", "ok\x00/../../outside/secret.txt", fileTools, invalid},
		{"path above the schema's length", strings.Repeat("a/", 2049), fileTools, invalid},
		{"name above the file system's length", long, fileTools, invalid},
		{"very deep missing path", strings.Repeat("d/", 1500) + "x", readTools, missing},
		{"Windows separators with dot-dot", `..\outside\secret.txt`, fileTools, invalid},
		{"Windows separators to /etc", `..\..\..\..\etc\passwd`, fileTools, invalid},
		{"Windows drive path", `C:\Windows\win.ini`, fileTools, invalid},
		{"Windows UNC path", `\\server\share\secret.txt`, fileTools, invalid},
		{"mixed separators", `sub\..\../outside/secret.txt`, fileTools, invalid},
		{"URL-encoded dot-dot stays a name", "%2e%2e/outside/secret.txt", readTools, missing},
		{"fullwidth dots stay a name", "．．/outside/secret.txt", readTools, missing},
		{"tilde is not home", "~/../../outside/secret.txt", fileTools, denied},
		{"read-only root with dot-dot", "RO/../outside/secret.txt", fileTools, denied},
		{"symlink in the read-only root leading outside", "RO/esc/secret.txt", readTools, denied},
		{"symlink file in the read-only root leading outside", "RO/esc_file", []string{"read_file"}, denied},
		{"writing into the read-only root", "RO/ro.txt", writeTools, denied},
		{"creating in the read-only root", "RO/new.txt", writeTools, denied},
	}
	if len(cases) < 30 {
		t.Fatalf("only %d escape attempts", len(cases))
	}
	before := snapshotOutside(t, j)
	calls := 0
	for _, c := range cases {
		p := strings.NewReplacer("OUT", j.out, "WS", j.ws, "RO", j.ro).Replace(c.path)
		for _, tool := range c.tools {
			t.Run(c.desc+"/"+tool, func(t *testing.T) {
				calls++
				res := j.call(t, tool, argsFor(tool, p))
				body := string(res.JSON())
				if res.Success {
					t.Fatalf("%s %q succeeded: %s", tool, clip(p, 80), clip(body, 300))
				}
				if c.want != failed && res.Error.Code != c.want {
					t.Errorf("%s %q: code %s, want %s: %s", tool, clip(p, 80), res.Error.Code, c.want, clip(body, 300))
				}
				if strings.Contains(body, secret) {
					t.Errorf("%s %q: the answer holds the outside content: %s", tool, clip(p, 80), body)
				}
			})
		}
	}
	if after := snapshotOutside(t, j); after != before {
		t.Errorf("the folders outside the workspace changed:\nbefore %s\nafter  %s", before, after)
	}
	t.Logf("%d escape attempts, %d calls, 0 escapes", len(cases), calls)
}

// TestConfinementAllowed checks the other side: paths that stay inside,
// through symlinks within the workspace or in a read-only root, work.
func TestConfinementAllowed(t *testing.T) {
	j := newJail(t)
	for _, c := range []struct{ desc, tool, path, want string }{
		{"symlink within the workspace", "read_file", "link_in/inside.txt", "inside\n"},
		{"dot-dot that stays inside", "read_file", "sub/../inside.txt", "inside\n"},
		{"absolute path in the workspace", "read_file", j.ws + "/inside.txt", "inside\n"},
		{"read-only root by absolute path", "read_file", j.ro + "/ro.txt", "read-only\n"},
	} {
		res := j.call(t, c.tool, map[string]any{"path": c.path})
		if !res.Success {
			t.Errorf("%s: %s", c.desc, res.JSON())
			continue
		}
		if got := decode[ReadFileResult](t, res).Content; got != c.want {
			t.Errorf("%s: content %q, want %q", c.desc, got, c.want)
		}
	}
	// Names that look like escapes to other software are plain names here:
	// the file lands inside.
	for _, p := range []string{"%2e%2e/outside/secret.txt", "．．/outside/secret.txt"} {
		if res := j.call(t, "write_file", map[string]any{"path": p, "content": "x"}); !res.Success {
			t.Errorf("write_file %q: %s", p, res.JSON())
		} else if _, err := os.Stat(filepath.Join(j.ws, p)); err != nil {
			t.Errorf("write_file %q did not land in the workspace: %v", p, err)
		}
	}
	// A search of the whole workspace lists the symlinks but never walks
	// into them.
	res := j.call(t, "find_files", map[string]any{"pattern": "**"})
	if !res.Success {
		t.Fatal(res.JSON())
	}
	got := decode[FindFilesResult](t, res).Paths
	for _, p := range got {
		if strings.HasPrefix(p, "link_out/") || strings.HasPrefix(p, "abs_out/") || strings.HasPrefix(p, "proc/") {
			t.Errorf("find_files walked into a symlink leaving the workspace: %s", p)
		}
	}
}

// TestConfinementSymlinkRace swaps a folder of the workspace with a
// symlink to the outside while reads and writes go through it: no read
// may return the outside content and no write may land outside.
func TestConfinementSymlinkRace(t *testing.T) {
	j := newJail(t)
	race := filepath.Join(j.ws, "race")
	writeTree(t, j.ws, map[string]string{"real/ok.txt": "inside\n"})
	if err := os.Symlink("real", race); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		tmp := filepath.Join(j.ws, "race.tmp")
		for i := 0; !stop.Load(); i++ {
			target := "real"
			if i%2 == 0 {
				target = "../outside"
			}
			os.Remove(tmp)
			if err := os.Symlink(target, tmp); err == nil {
				os.Rename(tmp, race) // atomic swap of the link
			}
		}
	})
	var reads, inside atomic.Int64
	for w := range 4 {
		wg.Go(func() {
			for i := range 150 {
				res := j.call(t, "read_file", map[string]any{"path": "race/ok.txt"})
				reads.Add(1)
				if res.Success {
					inside.Add(1)
				}
				if strings.Contains(string(res.JSON()), secret) {
					t.Errorf("a read through the swapped link returned the outside content")
				}
				j.call(t, "write_file", map[string]any{"path": fmt.Sprintf("race/w%d-%d.txt", w, i), "content": "x"})
				j.call(t, "append_file", map[string]any{"path": "race/ok.txt", "content": "x"})
			}
		})
	}
	// Let the writers finish, then the swapper.
	for reads.Load() < 600 {
		runtimeGosched()
	}
	stop.Store(true)
	wg.Wait()
	entries, err := os.ReadDir(j.out)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "ok.txt" && e.Name() != "secret.txt" {
			t.Errorf("a write landed outside the workspace: %s", e.Name())
		}
	}
	for _, name := range []string{"ok.txt", "secret.txt"} {
		if b, _ := os.ReadFile(filepath.Join(j.out, name)); string(b) != secret {
			t.Errorf("outside/%s changed: %q", name, b)
		}
	}
	t.Logf("%d reads during the swaps, %d succeeded inside, none outside", reads.Load(), inside.Load())
}

// snapshotOutside describes the outside and read-only folders.
func snapshotOutside(t testing.TB, j *jail) string {
	t.Helper()
	var b strings.Builder
	for _, d := range []string{j.out, j.ro} {
		s, err := snapshot(d)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprint(&b, s)
	}
	return b.String()
}

func runtimeGosched() { goruntime.Gosched() }

// decode reads the data of a successful result, wrapped or not.
func decode[T any](t *testing.T, res runtime.Result) *T {
	t.Helper()
	if v, ok := res.Data.(*T); ok {
		return v
	}
	raw, err := json.Marshal(res.Data)
	if err != nil {
		t.Fatal(err)
	}
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	return &v
}
