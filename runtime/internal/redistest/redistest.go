// Package redistest runs a real redis-server for tests: a child process on a
// free loopback port, with no persistence configured, stopped when the test
// ends. Tests can stop, kill, pause (hang) and restart it mid-test.
//
// redis-server must be on PATH (Debian: apt-get install redis-server). When it
// is not, Start fails the test with a message saying so, unless the
// environment sets TOOLCAT_SKIP_REDIS=1, in which case the test is skipped
// (explicitly, with that reason).
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// SkipEnv is the environment variable that, set to 1, skips Redis tests
// instead of failing them when redis-server is missing.
const SkipEnv = "TOOLCAT_SKIP_REDIS"

// Server is a redis-server child process.
type Server struct {
	// Addr is host:port of the server, stable across restarts.
	Addr string

	t    testing.TB
	bin  string
	dir  string
	port int

	mu  sync.Mutex
	cmd *exec.Cmd
}

// Start runs a redis-server for t and stops it in t.Cleanup.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv(SkipEnv) == "1" {
			t.Skipf("redis-server not on PATH and %s=1: skipping a test that needs Redis", SkipEnv)
		}
		t.Fatalf("redis-server is not on PATH: install it (Debian: apt-get install redis-server), "+
			"or set %s=1 to skip the tests that need Redis", SkipEnv)
	}
	s := &Server{t: t, bin: bin, dir: t.TempDir()}
	t.Cleanup(s.Kill)
	var lastErr error
	for range 5 {
		s.port, err = freePort()
		if err != nil {
			t.Fatalf("finding a free port: %v", err)
		}
		s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port))
		if lastErr = s.start(); lastErr == nil {
			return s
		}
	}
	t.Fatalf("starting redis-server: %v", lastErr)
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (s *Server) start() error {
	cmd := exec.Command(s.bin,
		"--port", strconv.Itoa(s.port),
		"--bind", "127.0.0.1",
		"--save", "",
		"--appendonly", "no",
		"--dir", s.dir,
		"--daemonize", "no",
		"--logfile", "",
	)
	var out strings.Builder
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return fmt.Errorf("redis-server exited at start: %s", out.String())
		default:
		}
		if reply, err := s.command("PING"); err == nil && reply == "+PONG" {
			s.mu.Lock()
			s.cmd = cmd
			s.mu.Unlock()
			go func() { <-exited; s.exited(cmd) }()
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	<-exited
	return fmt.Errorf("redis-server did not answer PING within 10s: %s", out.String())
}

func (s *Server) exited(cmd *exec.Cmd) {
	s.mu.Lock()
	if s.cmd == cmd {
		s.cmd = nil
	}
	s.mu.Unlock()
}

// command sends one inline command and returns the first reply line.
func (s *Server) command(cmd string) (string, error) {
	c, err := net.DialTimeout("tcp", s.Addr, time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte(cmd + "\r\n")); err != nil {
		return "", err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSpace(line), err
}

// Stop shuts the server down gracefully, saving its data to disk so that
// Restart brings it back with the same keys.
func (s *Server) Stop() {
	s.t.Helper()
	s.mu.Lock()
	cmd := s.cmd
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	_, _ = s.command("SHUTDOWN SAVE") // the connection closes as it exits
	s.waitGone()
}

// Kill kills the server; its data is lost.
func (s *Server) Kill() {
	s.mu.Lock()
	cmd := s.cmd
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Kill()
	s.waitGone()
}

func (s *Server) waitGone() {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		gone := s.cmd == nil
		s.mu.Unlock()
		if gone {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.t.Errorf("redis-server on %s did not exit", s.Addr)
}

// Pause stops the server process with SIGSTOP, as a hung server: the
// kernel still accepts connections and data, but nothing answers. Resume
// (or the end of the test) continues it.
func (s *Server) Pause() {
	s.t.Helper()
	s.mu.Lock()
	cmd := s.cmd
	s.mu.Unlock()
	if cmd == nil {
		s.t.Fatalf("redis-server on %s is not running", s.Addr)
	}
	if err := cmd.Process.Signal(sigStop); err != nil {
		s.t.Fatalf("stopping redis-server: %v", err)
	}
	s.t.Cleanup(s.Resume)
}

// Resume continues a paused server with SIGCONT; it does nothing when the
// server is not running.
func (s *Server) Resume() {
	s.mu.Lock()
	cmd := s.cmd
	s.mu.Unlock()
	if cmd != nil {
		_ = cmd.Process.Signal(sigCont)
	}
}

// Restart starts the server again on the same port, after Stop or Kill.
func (s *Server) Restart() {
	s.t.Helper()
	var err error
	for range 50 { // the port may linger briefly
		if err = s.start(); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.t.Fatalf("restarting redis-server on %s: %v", s.Addr, err)
}
