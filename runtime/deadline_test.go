package runtime

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestSLACtx(t *testing.T) {
	tests := []struct {
		desc string
		run  func(t *testing.T)
	}{
		{desc: "done closes at the deadline", run: func(t *testing.T) {
			c := newSLACtx(context.Background(), 20*time.Millisecond)
			defer c.release()
			if c.Err() != nil {
				t.Fatal("Err before the deadline")
			}
			select {
			case <-c.Done():
			case <-time.After(2 * time.Second):
				t.Fatal("Done did not close")
			}
			if !errors.Is(c.Err(), context.DeadlineExceeded) || !c.expired() {
				t.Fatalf("Err = %v, expired %v", c.Err(), c.expired())
			}
		}},
		{desc: "err sees the deadline without Done", run: func(t *testing.T) {
			c := newSLACtx(context.Background(), 5*time.Millisecond)
			defer c.release()
			time.Sleep(10 * time.Millisecond)
			if !errors.Is(c.Err(), context.DeadlineExceeded) {
				t.Fatalf("Err = %v", c.Err())
			}
			select {
			case <-c.Done():
			default:
				t.Fatal("Done not closed after Err reported the deadline")
			}
		}},
		{desc: "caller cancellation propagates", run: func(t *testing.T) {
			parent, cancel := context.WithCancel(context.Background())
			c := newSLACtx(parent, time.Hour)
			defer c.release()
			done := c.Done()
			cancel()
			select {
			case <-done:
			case <-time.After(2 * time.Second):
				t.Fatal("Done did not close on the caller's cancel")
			}
			if !errors.Is(c.Err(), context.Canceled) || c.expired() {
				t.Fatalf("Err = %v, expired %v", c.Err(), c.expired())
			}
		}},
		{desc: "children are cancelled at the deadline", run: func(t *testing.T) {
			c := newSLACtx(context.Background(), 10*time.Millisecond)
			defer c.release()
			child, cancel := context.WithCancel(c)
			defer cancel()
			select {
			case <-child.Done():
			case <-time.After(2 * time.Second):
				t.Fatal("child not cancelled")
			}
		}},
		{desc: "release cancels", run: func(t *testing.T) {
			c := newSLACtx(context.Background(), time.Hour)
			done := c.Done()
			c.release()
			<-done
			if !errors.Is(c.Err(), context.Canceled) {
				t.Fatalf("Err = %v", c.Err())
			}
			if c.Done() != done {
				t.Fatal("Done changed")
			}
		}},
		{desc: "deadline is the earlier one", run: func(t *testing.T) {
			parent, cancel := context.WithTimeout(context.Background(), time.Millisecond)
			defer cancel()
			c := newSLACtx(parent, time.Hour)
			defer c.release()
			d, ok := c.Deadline()
			pd, _ := parent.Deadline()
			if !ok || !d.Equal(pd) {
				t.Fatalf("Deadline = %v, want the caller's %v", d, pd)
			}
		}},
		{desc: "values pass through", run: func(t *testing.T) {
			type key struct{}
			c := newSLACtx(context.WithValue(context.Background(), key{}, "v"), time.Hour)
			defer c.release()
			if c.Value(key{}) != "v" {
				t.Fatal("value lost")
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, tt.run)
	}
}
