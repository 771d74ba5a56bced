package validatortest

import "testing"

// conformanceTools returns the implementations that TestConformance
// checks: give them test doubles of their dependencies here.
func conformanceTools(t *testing.T) Tools {
	return Tools{
		CreateEvent:    &createEvent{},
		FindContact:    &findContact{},
		LogNote:        &logNote{},
		PingHost:       &pingHost{},
		UpdateSettings: &updateSettings{},
	}
}
