package basetools

import (
	"strings"
	"testing"
)

// FuzzFileToolPaths sends arbitrary paths to every file tool in a jail:
// no call may panic, no answer may hold the content outside the
// workspace, and nothing outside may change.
func FuzzFileToolPaths(f *testing.F) {
	for _, s := range []string{"../outside/secret.txt", "link_out/secret.txt", "/proc/self/root/etc/passwd",
		"sub/up/ok.txt", `..\x`, "a\x00b", "chain1", "RO/esc/secret.txt", "./sub/../../outside", "dangle"} {
		f.Add(s, uint8(0))
	}
	j := newJail(f)
	f.Fuzz(func(t *testing.T, p string, which uint8) {
		p = strings.NewReplacer("RO", j.ro, "OUT", j.out).Replace(p)
		tool := fileTools[int(which)%len(fileTools)]
		before := snapshotOutside(t, j)
		res := j.call(t, tool, argsFor(tool, p))
		if body := string(res.JSON()); strings.Contains(body, secret) {
			t.Fatalf("%s %q: the answer holds the outside content: %s", tool, p, clip(body, 300))
		}
		if after := snapshotOutside(t, j); after != before {
			t.Fatalf("%s %q changed the folders outside the workspace", tool, p)
		}
	})
}
