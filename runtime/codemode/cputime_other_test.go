//go:build !unix

package codemode_test

import (
	"testing"
	"time"
)

func reportCPU(*testing.B, time.Duration) {}

func startCPU() time.Duration { return 0 }
