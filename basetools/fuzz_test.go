package basetools

import (
	"maps"
	"slices"
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

// FuzzArgPolicies sends arbitrary argument lists to every shipped policy:
// none may panic, and none lets through an argument that names a program
// to run (find's -exec family, git's upload and receive packs, git's and
// go's program options, a git remote helper).
func FuzzArgPolicies(f *testing.F) {
	for _, s := range []string{"status", "-c\x00alias.x=!sh\x00x", "clone\x00ext::sh", ".\x00-exec\x00sh\x00;",
		"ls-remote\x00--upload-p=sh\x00.", "build\x00-toolexec=sh", "--\x00-exec", "-calias=1", "env\x00-w\x00X=1"} {
		f.Add(s, uint8(0))
	}
	names := slices.Sorted(maps.Keys(DefaultArgPolicies))
	f.Fuzz(func(t *testing.T, s string, which uint8) {
		name := names[int(which)%len(names)]
		args := strings.Split(s, "\x00")
		if DefaultArgPolicies[name].Check(args) != nil {
			return
		}
		for _, a := range args {
			if name == "find" && (a == "-exec" || a == "-execdir" || a == "-ok" || a == "-okdir") {
				t.Fatalf("find %q: allowed %s", args, a)
			}
		}
		for _, a := range options(args) {
			refused := map[string][]string{"go": {"-toolexec", "-vettool", "-exec"}}
			for _, bad := range refused[name] {
				if a == bad || strings.HasPrefix(a, bad+"=") {
					t.Fatalf("%s %q: allowed %s", name, args, a)
				}
			}
			if name == "git" && (strings.HasPrefix(a, "--upload-pack") || strings.HasPrefix(a, "--receive-pack") || strings.HasPrefix(a, "--exec-path") || a == "-c") {
				t.Fatalf("git %q: allowed %s", args, a)
			}
		}
		if name == "git" {
			for _, a := range args {
				if remoteHelper.MatchString(a) {
					t.Fatalf("git %q: allowed the remote helper %s", args, a)
				}
			}
		}
	})
}
