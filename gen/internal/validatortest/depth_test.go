package validatortest

import (
	"strings"
	"testing"
)

// TestDeepValues compares the validators on values nested about as deep as
// encoding/json allows.
func TestDeepValues(t *testing.T) {
	pairs := validatorPairs(t)
	for _, n := range []int{9998, 9999, 10000, 10001} {
		deep := strings.Repeat("[", n) + strings.Repeat("]", n)
		compareValidators(t, pairOf(t, pairs, "create_event"), []byte(`{"title":"Standup","starts_at":"2026-01-02T09:00:00Z","attendees":[{"name":"A"}],"metadata":`+deep+`}`))
		compareValidators(t, pairOf(t, pairs, "log_note"), []byte(`{"text":"hi","other":`+deep+`}`))
	}
}
