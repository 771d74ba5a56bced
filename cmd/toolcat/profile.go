package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// startProfile starts the CPU profile --cpuprofile asks for, once the
// command's flags are parsed.
func (e *env) startProfile() error {
	if e.cpuProfile == "" || e.stopCPU != nil {
		return nil
	}
	f, err := os.Create(e.cpuProfile)
	if err != nil {
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	e.stopCPU = func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}
	return nil
}

// profiled ends the profiles of a command that exited with code, and
// writes the memory profile --memprofile asks for. A profile that cannot
// be written turns a clean exit into a usage error.
func (e *env) profiled(code int) int {
	fail := func(err error) {
		fmt.Fprintf(e.stderr, "toolcat: %v\n", err)
		if code == exitOK {
			code = exitUsage
		}
	}
	if e.stopCPU != nil {
		if err := e.stopCPU(); err != nil {
			fail(fmt.Errorf("--cpuprofile: %w", err))
		}
		e.stopCPU = nil
	}
	if e.memProfile != "" {
		if err := writeMemProfile(e.memProfile); err != nil {
			fail(fmt.Errorf("--memprofile: %w", err))
		}
	}
	return code
}

// writeMemProfile writes the allocations profile: what the command
// allocated (alloc_space, alloc_objects) and what the heap held at its
// end (inuse_space, the default view of go tool pprof).
func writeMemProfile(name string) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	runtime.GC() // the in-use figures as of now
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
