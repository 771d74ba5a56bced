package main

import (
	"os"
	"os/signal"
	"syscall"
)

// interruptExit is the exit code of a run stopped by an interrupt.
const interruptExit = 130

// onInterrupt makes an interrupt (or SIGTERM) run cleanup, then exit,
// until the function it returns is called.
func onInterrupt(cleanup func()) (stop func()) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sig:
			cleanup()
			os.Exit(interruptExit)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sig)
		close(done)
	}
}
