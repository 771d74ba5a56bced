//go:build linux

package basetools

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// alive reports whether the process pid runs (a zombie waiting for its
// parent to reap it does not).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z' && s[i+2] != 'X'
}

// gone waits, up to a deadline, for pid to stop running; it reports
// whether it did.
func gone(pid int) bool {
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

// pids reads the process ids a script printed, one a line.
func pids(t *testing.T, out string) []int {
	t.Helper()
	var ps []int
	for _, f := range strings.Fields(out) {
		p, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("not a pid: %q in %q", f, out)
		}
		ps = append(ps, p)
	}
	if len(ps) == 0 {
		t.Fatalf("the script printed no pid: %q", out)
	}
	return ps
}

// TestShellChildrenEnd starts scripts that leave children behind in every
// usual way: none of them runs once the call has returned, whether the
// script exited or timed out.
func TestShellChildrenEnd(t *testing.T) {
	j := newShellJail(t, ShellConfig{ShellMode: true})
	for _, c := range []struct {
		desc, script string
		timeout      int
	}{
		{"a background child", "sleep 300 & echo $!", 0},
		{"a background child with its streams redirected", "sleep 300 >/dev/null 2>&1 </dev/null & echo $!", 0},
		{"nohup", "nohup sleep 300 >/dev/null 2>&1 & echo $!", 0},
		{"a grandchild", "sh -c 'sleep 300 >/dev/null 2>&1 & echo $!' ; sleep 300 >/dev/null 2>&1 & echo $!", 0},
		{"a child ignoring SIGHUP and SIGTERM", "sh -c 'trap \"\" HUP TERM; exec sleep 300' >/dev/null 2>&1 & echo $!", 0},
		{"a background child, then a timeout", "sleep 300 & echo $!; sleep 300", 300},
	} {
		args := map[string]any{"argv": []string{c.script}, "use_shell": true}
		if c.timeout > 0 {
			args["timeout_ms"] = c.timeout
		}
		res := j.call(t, "run_shell_command", args)
		if !res.Success {
			t.Fatalf("%s: %s", c.desc, res.JSON())
		}
		got := decode[RunShellCommandResult](t, res)
		if (c.timeout > 0) != got.TimedOut {
			t.Errorf("%s: timed out %v", c.desc, got.TimedOut)
		}
		for _, pid := range pids(t, got.Stdout) {
			if !gone(pid) {
				t.Errorf("%s: process %d still runs after the call returned", c.desc, pid)
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
}

// TestShellSetsid: a child that leaves the process group with setsid
// escapes the group kill; with a cgroup it ends too.
func TestShellSetsid(t *testing.T) {
	// The script waits until the child leads a session of its own (field
	// 6 of /proc/PID/stat), so that it has left the group before the
	// script ends.
	const script = `setsid sleep 300 >/dev/null 2>&1 </dev/null & p=$!
while [ "$(cut -d' ' -f6 /proc/$p/stat)" != "$p" ]; do sleep 0.01; done; echo $p`
	j := newShellJail(t, ShellConfig{ShellMode: true})
	res := j.call(t, "run_shell_command", map[string]any{"argv": []string{script}, "use_shell": true})
	pid := pids(t, decode[RunShellCommandResult](t, res).Stdout)[0]
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	if !alive(pid) {
		t.Fatalf("without a cgroup, the setsid child %d was expected to escape (as documented); it does not run", pid)
	}

	dir := testCgroup(t)
	j = newShellJail(t, ShellConfig{ShellMode: true, Cgroup: dir})
	res = j.call(t, "run_shell_command", map[string]any{"argv": []string{script}, "use_shell": true})
	if !res.Success {
		t.Fatal(res.JSON())
	}
	pid = pids(t, decode[RunShellCommandResult](t, res).Stdout)[0]
	if !gone(pid) {
		t.Errorf("with a cgroup, the setsid child %d still runs", pid)
		syscall.Kill(pid, syscall.SIGKILL)
	}
	// The call's cgroup is removed.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), "toolcat-") {
			t.Errorf("a cgroup was left: %s", e.Name())
		}
	}
}

// testCgroup makes a cgroup v2 folder for the test, or skips the test
// saying why when this machine has none it may write.
func testCgroup(t testing.TB) string {
	t.Helper()
	for _, mnt := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
		var st syscall.Statfs_t
		if syscall.Statfs(mnt, &st) != nil || st.Type != cgroup2Magic {
			continue
		}
		dir := filepath.Join(mnt, fmt.Sprintf("toolcat-test-%d-%d", os.Getpid(), time.Now().UnixNano()))
		if err := os.Mkdir(dir, 0o755); err != nil {
			continue
		}
		t.Cleanup(func() { os.Remove(dir) })
		if _, err := os.Stat(filepath.Join(dir, "cgroup.kill")); err != nil {
			continue
		}
		return dir
	}
	t.Skip("no writable cgroup v2 hierarchy with cgroup.kill on this machine (Linux 5.14 or later, as root or in a delegated subtree): the cgroup option is not tested here")
	return ""
}

// BenchmarkRunShellCommand measures one call of true, with the process
// group killed after it, and with a cgroup made, killed and removed too.
func BenchmarkRunShellCommand(b *testing.B) {
	for _, c := range []struct {
		name   string
		cgroup bool
	}{{"group", false}, {"cgroup", true}} {
		b.Run(c.name, func(b *testing.B) {
			cfg := ShellConfig{}
			if c.cgroup {
				cfg.Cgroup = testCgroup(b)
			}
			set, err := Open(Config{Workspace: b.TempDir(), Shell: cfg})
			if err != nil {
				b.Fatal(err)
			}
			defer set.Close()
			tool := set.Tools().RunShellCommand
			args := &RunShellCommandArgs{Argv: []string{"true"}}
			for b.Loop() {
				if res, err := tool.Execute(b.Context(), args); err != nil || res.ExitCode != 0 {
					b.Fatal(res, err)
				}
			}
		})
	}
}
