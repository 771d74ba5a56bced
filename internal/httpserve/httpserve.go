// Package httpserve runs an http.Server until its context ends and then
// stops it without waiting on connections that carry no request.
//
// http.Server.Shutdown counts a connection that has not sent its first
// request as busy for up to five seconds. HTTP clients open such
// connections on their own (a dial that loses the race to an idle
// connection lands in the pool unused), so a plain Shutdown can keep a
// stopping server waiting, or fail, for no request at all.
package httpserve

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"
)

// Serve serves hs on ln until ctx ends, then stops it: connections that
// have not sent a request are closed at once, requests in flight get up
// to grace to finish, and what is still open after that is closed. It
// returns nil once the server has stopped because ctx ended, and the
// error that stopped it otherwise. Serve sets hs.ConnState to a hook of
// its own, which calls the one hs had; what it forces closed it reports
// to hs.ErrorLog.
func Serve(ctx context.Context, hs *http.Server, ln net.Listener, grace time.Duration) error {
	w := &watch{fresh: map[net.Conn]struct{}{}, next: hs.ConnState}
	hs.ConnState = w.state
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	stopped := make(chan error, 1)
	go func() { stopped <- hs.Shutdown(shut) }()
	w.stop()
	if err := <-stopped; err != nil {
		if hs.ErrorLog != nil {
			hs.ErrorLog.Printf("closing the connections still busy after %v", grace)
		}
		hs.Close()
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// watch keeps the connections that have not sent a request yet.
type watch struct {
	mu       sync.Mutex
	stopping bool
	fresh    map[net.Conn]struct{}
	next     func(net.Conn, http.ConnState)
}

func (w *watch) state(c net.Conn, s http.ConnState) {
	w.mu.Lock()
	if s == http.StateNew {
		if w.stopping {
			c.Close()
		} else {
			w.fresh[c] = struct{}{}
		}
	} else {
		delete(w.fresh, c)
	}
	w.mu.Unlock()
	if w.next != nil {
		w.next(c, s)
	}
}

// stop closes the connections that have not sent a request, and those
// that open from now on.
func (w *watch) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopping = true
	for c := range w.fresh {
		c.Close()
	}
	clear(w.fresh)
}
