package codemode

import (
	"fmt"
	"time"
)

// Limits bound one program. The model is told them in execute_code's
// description; a program that passes one stops, and the envelope names the
// limit (details.limit) and where the program was (details.line,
// details.column).
type Limits struct {
	// Time is the wall time a program may run, its tool calls included
	// (default 10s). Each inner call gets the program's deadline.
	Time time.Duration
	// Calls is how many tool calls a program may make (default 50).
	Calls int
	// Memory is how much the heap may grow while the program runs, in
	// bytes (default 64 MiB). See the package doc for how it is enforced.
	Memory int64
	// ResultBytes caps the JSON of the program's return value (default 64 KiB).
	ResultBytes int
	// LogBytes caps the captured console output (default 16 KiB); lines
	// past it are dropped and the result says log_truncated.
	LogBytes int
	// StackDepth caps the depth of the program's calls (default 1,000).
	StackDepth int
}

// The limits' names, as details.limit gives them.
const (
	LimitTime        = "time"
	LimitCalls       = "calls"
	LimitMemory      = "memory"
	LimitResultBytes = "result_bytes"
	LimitStackDepth  = "stack_depth"
)

// DefaultLimits are the limits of a Mode made without ModeLimits.
var DefaultLimits = Limits{
	Time:        10 * time.Second,
	Calls:       50,
	Memory:      64 << 20,
	ResultBytes: 64 << 10,
	LogBytes:    16 << 10,
	StackDepth:  1000,
}

// orDefault fills the zero fields of l from DefaultLimits.
func (l Limits) orDefault() Limits {
	d := DefaultLimits
	if l.Time <= 0 {
		l.Time = d.Time
	}
	if l.Calls <= 0 {
		l.Calls = d.Calls
	}
	if l.Memory <= 0 {
		l.Memory = d.Memory
	}
	if l.ResultBytes <= 0 {
		l.ResultBytes = d.ResultBytes
	}
	if l.LogBytes <= 0 {
		l.LogBytes = d.LogBytes
	}
	if l.StackDepth <= 0 {
		l.StackDepth = d.StackDepth
	}
	return l
}

// describe is the sentence of execute_code's description that tells the
// model the limits.
func (l Limits) describe() string {
	return fmt.Sprintf("Limits: %s of wall time, %d tool calls, %s of memory, a return value of %s as JSON, %s of console output, a call depth of %d.",
		l.Time, l.Calls, bytesText(l.Memory), bytesText(int64(l.ResultBytes)), bytesText(int64(l.LogBytes)), l.StackDepth)
}

func bytesText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
