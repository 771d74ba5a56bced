package runtime_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/toolcat/toolcat/runtime"
	"github.com/toolcat/toolcat/runtime/internal/sessionflow"
)

func TestSessionFlows(t *testing.T) {
	sessionflow.Run(t, func() runtime.SessionStore { return runtime.NewMemorySessionStore() })
}

// brokenSessions is a SessionStore that cannot be reached.
type brokenSessions struct{}

var errDown = errors.New("store down")

func (brokenSessions) Load(context.Context, string) ([]byte, error) { return nil, errDown }
func (brokenSessions) Update(context.Context, string, time.Duration, func([]byte) ([]byte, error)) error {
	return errDown
}

func TestSessionStoreDown(t *testing.T) {
	w := sessionflow.NewWorld()
	s := w.Replicas(t, 1, brokenSessions{})[0].Session("conv-down")
	res := s.Call(context.Background(), "publish_post", []byte(`{"title":"x"}`), runtime.CallOptions{})
	if res.Success || res.Error.Code != runtime.CodeDependencyUnavailable {
		t.Fatalf("call with the session store down: %s", res.JSON())
	}
	if len(w.Posts()) != 0 {
		t.Fatal("the tool ran without the session's state")
	}
	if _, err := s.Tools(context.Background()); !errors.Is(err, runtime.ErrSessionState) || !errors.Is(err, errDown) {
		t.Fatalf("Tools with the store down: %v", err)
	}
	if err := s.EndTurn(context.Background()); !errors.Is(err, errDown) {
		t.Fatalf("EndTurn with the store down: %v", err)
	}
}
