//go:build !unix

package redistest

import "os"

// pauseSignal stands for SIGSTOP and SIGCONT where the system has no such
// signals: os.Process.Signal refuses it, so Pause fails the test saying so.
type pauseSignal struct{}

func (pauseSignal) String() string { return "SIGSTOP (not on this system)" }
func (pauseSignal) Signal()        {}

var sigStop, sigCont os.Signal = pauseSignal{}, pauseSignal{}
