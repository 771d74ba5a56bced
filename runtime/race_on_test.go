//go:build race

package runtime_test

// raceEnabled says that the tests run under the race detector.
const raceEnabled = true
