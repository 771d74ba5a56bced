package httpserve

import (
	"bytes"
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"
)

// TestServeStop: when the context ends, a connection that never sent a
// request is closed at once, while a request in flight runs to its end
// and gets its whole response.
func TestServeStop(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	var logged syncBuffer
	hs := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			close(entered)
			<-release
			io.WriteString(w, "finished")
		}),
		ErrorLog: log.New(&logged, "", 0),
	}
	var mu sync.Mutex
	states := map[string][]http.ConnState{}
	seen := make(chan string, 16)
	hs.ConnState = func(c net.Conn, s http.ConnState) { // Serve chains it
		mu.Lock()
		states[c.RemoteAddr().String()] = append(states[c.RemoteAddr().String()], s)
		mu.Unlock()
		if s == http.StateNew {
			seen <- c.RemoteAddr().String()
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	// Shorter than the five seconds http.Server.Shutdown gives a
	// connection with no request: without Serve's closing of it, the
	// grace runs out and the log says so.
	go func() { served <- Serve(ctx, hs, ln, 4*time.Second) }()

	reply := make(chan string, 1)
	go func() {
		res, err := http.Get("http://" + ln.Addr().String() + "/")
		if err != nil {
			reply <- err.Error()
			return
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		reply <- string(b)
	}()
	<-entered
	idle, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	// Wait until the server has the connection, so that the stop finds
	// it rather than one that arrives after the stop.
	for addr := ""; addr != idle.LocalAddr().String(); addr = <-seen {
	}
	cancel()
	if n, err := idle.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("the connection with no request: read %d, %v; want EOF", n, err)
	}
	close(release)
	if got := <-reply; got != "finished" {
		t.Errorf("the request in flight got %q", got)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
	if s := logged.String(); s != "" {
		t.Errorf("the stop had to force connections closed: %s", s)
	}
	mu.Lock()
	defer mu.Unlock()
	if got := states[idle.LocalAddr().String()]; len(got) != 2 || got[1] != http.StateClosed {
		t.Errorf("the chained hook saw the idle connection go %v; want new, closed", got)
	}
}

// TestServeError: an error that stops the server before its context ends
// is Serve's.
func TestServeError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	if err := Serve(context.Background(), &http.Server{}, ln, time.Second); err == nil {
		t.Fatal("Serve on a closed listener returned nil")
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
